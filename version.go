package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the version ctxlab reports; "" takes it from the build information (the
// main module's version, set by go install MODULE@VERSION). Override it when building:
//
//	go build -ldflags "-X main.version=v1.2.3" .
var version = ""

// versionInfo is what --version and `ctxlab version` print: the version, and the commit
// it was built from when the build recorded one ("+modified" when the work tree had
// changes): "ctxlab v1.2.3 (commit 0123abcd, go1.26.8)".
func versionInfo(info *debug.BuildInfo, ok bool) string {
	v, commit, modified, goVersion := version, "", false, ""
	if ok {
		if v == "" {
			v = info.Main.Version
		}
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	line := "ctxlab " + v
	var extra []string
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if modified {
			commit += "+modified"
		}
		extra = append(extra, "commit "+commit)
	}
	if goVersion != "" {
		extra = append(extra, goVersion)
	}
	for i, e := range extra {
		if i == 0 {
			line += " (" + e
		} else {
			line += ", " + e
		}
	}
	if len(extra) > 0 {
		line += ")"
	}
	return line
}

// buildVersion is versionInfo of this binary.
func buildVersion() string { return versionInfo(debug.ReadBuildInfo()) }

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit ctxlab was built from",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(a.stdout, buildVersion())
			return err
		},
	}
}
