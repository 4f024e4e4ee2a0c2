package config

import (
	"os"
	"path/filepath"
)

// FilePath returns the config file the settings are read from given --config (flag): the
// flag, else $CTXLAB_CONFIG, else ctxlab/config.yaml in the user's config directory, and
// where it came from ("flag --config", "env CTXLAB_CONFIG", "default"). path is "" when
// there is no config directory (no $HOME).
func FilePath(flag string) (path, source string) {
	if flag != "" {
		return flag, "flag --config"
	}
	if v := os.Getenv("CTXLAB_CONFIG"); v != "" {
		return v, "env CTXLAB_CONFIG"
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", "default"
	}
	return filepath.Join(d, "ctxlab", "config.yaml"), "default"
}
