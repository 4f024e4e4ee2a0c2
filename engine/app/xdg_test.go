package app

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestDBPathRelativeXDG is issue 12 item 8: a relative $XDG_DATA_HOME was used, so the
// default database moved with the working directory. The XDG base directory rules say to
// ignore it: the default data directory is used instead.
func TestDBPathRelativeXDG(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the default data directory is not ~/.local/share here")
	}
	home := isolate(t)
	for _, tc := range []struct{ xdg, want string }{
		{"data", filepath.Join(home, ".local", "share", "ctxlab", "ctxlab.db")},
		{"./x/y", filepath.Join(home, ".local", "share", "ctxlab", "ctxlab.db")},
		{filepath.Join(home, "abs"), filepath.Join(home, "abs", "ctxlab", "ctxlab.db")},
	} {
		t.Run(tc.xdg, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			got, err := DBPath("")
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v, want %q", got, err, tc.want)
			}
		})
	}
}
