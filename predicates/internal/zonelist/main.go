// Command zonelist writes the IANA zone names of Go's zone database ($GOROOT/lib/time/
// zoneinfo.zip, what time/tzdata embeds), one a line, sorted, to the file named by its
// argument. `go generate ./predicates` runs it; the list serves "did you mean" for unknown
// time zones.
package main

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "zonelist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: zonelist OUT")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	z, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		return err
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		if !f.FileInfo().IsDir() {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	return os.WriteFile(args[0], []byte(strings.Join(names, "\n")+"\n"), 0o644)
}
