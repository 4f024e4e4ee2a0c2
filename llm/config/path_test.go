package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestFilePathRelativeXDG is issue 12 item 8: a relative $XDG_CONFIG_HOME left ctxlab
// with no config file at all (os.UserConfigDir refuses it). The XDG base directory rules
// say to ignore it: ~/.config is used instead.
func TestFilePathRelativeXDG(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "ios" || runtime.GOOS == "plan9" {
		t.Skip("the config directory does not follow $XDG_CONFIG_HOME here")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CTXLAB_CONFIG", "")
	for _, tc := range []struct{ xdg, want string }{
		{"config", filepath.Join(home, ".config", "ctxlab", "config.yaml")},
		{"./c", filepath.Join(home, ".config", "ctxlab", "config.yaml")},
		{"", filepath.Join(home, ".config", "ctxlab", "config.yaml")},
		{filepath.Join(home, "abs"), filepath.Join(home, "abs", "ctxlab", "config.yaml")},
	} {
		t.Run(tc.xdg, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", tc.xdg)
			got, source := FilePath("")
			if got != tc.want || source != "default" {
				t.Errorf("got %q (%s), want %q (default)", got, source, tc.want)
			}
		})
	}
}
