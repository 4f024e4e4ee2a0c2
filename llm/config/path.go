package config

import (
	"os"
	"path/filepath"
	"runtime"
)

// FilePath returns the config file the settings are read from given --config (flag): the
// flag, else $CTXLAB_CONFIG, else ctxlab/config.yaml in the user's config directory, and
// where it came from ("flag --config", "env CTXLAB_CONFIG", "default"). path is "" when
// there is no config directory (no $HOME). A relative $XDG_CONFIG_HOME is ignored, as the
// XDG base directory rules say.
func FilePath(flag string) (path, source string) {
	if flag != "" {
		return flag, "flag --config"
	}
	if v := os.Getenv("CTXLAB_CONFIG"); v != "" {
		return v, "env CTXLAB_CONFIG"
	}
	d, err := userConfigDir()
	if err != nil {
		return "", "default"
	}
	return filepath.Join(d, "ctxlab", "config.yaml"), "default"
}

// userConfigDir is os.UserConfigDir, but for a relative $XDG_CONFIG_HOME, which the XDG
// base directory rules say to ignore (os.UserConfigDir fails instead): ~/.config is
// then the config directory.
func userConfigDir() (string, error) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		return os.UserConfigDir() // these read no $XDG_CONFIG_HOME
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d == "" || filepath.IsAbs(d) {
		return os.UserConfigDir()
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config"), nil
}
