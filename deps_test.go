package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The dependency direction of DESIGN.md, checked over the import graph of the module.
// Every package belongs to a layer; a layer may import only the layers it lists (and
// itself). From the bottom up:
//
//	leaf        the message model (engine/chat), diagnostics (engine/diag) and the small
//	            packages the tree shows are leaves: positions in JSON and YAML (engine/jsonpos,
//	            engine/yamlx), the sanitizer of untrusted text (engine/inert), the fragment
//	            renderers (engine/fragment), the workbench's action table (tui/keybind, which
//	            the config's keys: section is checked against). They import nothing of ctxlab but other leaves.
//	predicates  WhenContext, the predicates and their expression language: leaves only.
//	decision    the decision record the engine, the formats and the front ends share
//	            (engine/decision): leaves and predicates (a decision's trace is a predicate
//	            result).
//	engine      the context engine (engine, engine/ctxfile, engine/script, engine/enginetest):
//	            leaves, predicates and the decision record. It declares the small interfaces it needs (a store,
//	            a model) and never imports their implementations, the application layer or a
//	            front end.
//	format      the file formats (engine/format):
//	            leaves, predicates, the decision record and the engine.
//	store       SQLite data access (store, store/...): leaves only, never the engine.
//	llm         the OpenAI-compatible client (llm, llm/...): leaves only, never the engine.
//	app         the application layer both front ends call (engine/app): everything above.
//	themes      the workbench's styles: nothing of ctxlab.
//	tui         the workbench: the application layer, the engine, the decision record,
//	            predicates, leaves and themes; never store or llm (it touches neither SQL nor HTTP).
//	main        the command (the module's root package): anything.
//
// Tests are left out: a test wires what it needs.
var layers = map[string]struct {
	may []string // the layers a package of this layer may import, besides its own
	// notStd are packages outside the module it must not import either.
	notStd []string
}{
	"leaf":       {notStd: ioPackages},
	"predicates": {may: []string{"leaf"}, notStd: ioPackages},
	"decision":   {may: []string{"leaf", "predicates"}, notStd: ioPackages},
	"engine":     {may: []string{"leaf", "predicates", "decision"}, notStd: ioPackages},
	"format":     {may: []string{"leaf", "predicates", "decision", "engine"}, notStd: ioPackages},
	"store":      {may: []string{"leaf"}},
	"llm":        {may: []string{"leaf"}},
	"app":        {may: []string{"leaf", "predicates", "decision", "engine", "format", "store", "llm"}},
	"themes":     {notStd: ioPackages},
	"tui":        {may: []string{"leaf", "predicates", "decision", "engine", "app", "themes"}, notStd: ioPackages},
	"main":       {may: []string{"leaf", "predicates", "decision", "engine", "format", "store", "llm", "app", "themes", "tui"}},
}

// ioPackages are the packages of SQL and HTTP: only store, llm, the application layer and
// the command import them.
var ioPackages = []string{"database/sql", "net/http", "modernc.org/sqlite", "github.com/sashabaranov/go-openai"}

// packageLayers puts every package of the module in its layer, by its path in the module
// ("" is the root package; "x/..." is x and every package under it). The longest pattern
// that matches wins.
var packageLayers = map[string]string{
	"engine/chat":     "leaf",
	"engine/diag":     "leaf",
	"engine/jsonpos":  "leaf",
	"engine/yamlx":    "leaf",
	"engine/inert":    "leaf",
	"engine/fragment": "leaf",
	"tui/keybind":     "leaf",

	"predicates/...": "predicates",

	"engine/decision": "decision",

	"engine":            "engine",
	"engine/ctxfile":    "engine",
	"engine/script":     "engine",
	"engine/enginetest": "engine",

	"engine/format/...": "format",

	"store/...": "store",
	"llm/...":   "llm",

	"engine/app/...": "app",

	"themes/...": "themes",
	"tui/...":    "tui",

	"": "main",
}

const modulePath = "github.com/ctxlab/ctxlab"

// listedPackage is what go list tells of a package.
type listedPackage struct {
	ImportPath string
	Imports    []string
}

// TestDependencyDirection checks every package of the module against its layer.
func TestDependencyDirection(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to list the packages: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs, err := decodePackages(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; is the test run from the module's root?", len(pkgs))
	}
	for _, p := range checkImports(pkgs) {
		t.Error(p)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkPackageMap(pkgs, string(readme)) {
		t.Error(p)
	}
}

// checkPackageMap returns a problem for each package of the tree the README's package map
// leaves out (internal packages go with their parent) and each package the map names that
// the tree does not have.
func checkPackageMap(pkgs []listedPackage, readme string) []string {
	_, table, ok := strings.Cut(readme, "### Package map")
	if !ok {
		return []string{"README.md has no \"### Package map\" section"}
	}
	mapped := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			if len(mapped) > 0 && !strings.HasPrefix(line, "|") {
				break // the end of the table
			}
			continue
		}
		first, _, _ := strings.Cut(line[1:], "|")
		names := strings.Split(first, "`")
		for i := 1; i < len(names); i += 2 { // the text between backquotes
			mapped[names[i]] = true
		}
	}
	var problems []string
	inTree := map[string]bool{}
	for _, p := range pkgs {
		rel, ok := moduleRel(p.ImportPath)
		if !ok {
			continue
		}
		if rel == "" {
			rel = "."
		}
		if parent, _, internal := strings.Cut(rel, "/internal/"); internal {
			rel = parent
		}
		inTree[rel] = true
		if !mapped[rel] {
			problems = append(problems, fmt.Sprintf("package %s is not in README.md's package map: add a line saying what it owns and may import", rel))
		}
	}
	for name := range mapped {
		if !inTree[name] {
			problems = append(problems, fmt.Sprintf("README.md's package map names %s, which the tree does not have", name))
		}
	}
	sort.Strings(problems)
	return problems
}

// decodePackages reads the stream of JSON objects go list -json writes.
func decodePackages(out []byte) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// layerOf returns the layer of a package of the module, by its path in the module, or "".
func layerOf(rel string) string {
	best, layer := -1, ""
	for pattern, l := range packageLayers {
		base, tree := strings.CutSuffix(pattern, "/...")
		if rel == base || tree && strings.HasPrefix(rel, base+"/") {
			if len(pattern) > best {
				best, layer = len(pattern), l
			}
		}
	}
	return layer
}

// moduleRel returns the path of a package in the module ("" for the root), and whether
// it is in the module.
func moduleRel(importPath string) (string, bool) {
	if importPath == modulePath {
		return "", true
	}
	rel, ok := strings.CutPrefix(importPath, modulePath+"/")
	return rel, ok
}

// checkImports returns a problem for each package in no layer and each import its layer
// does not allow, sorted.
func checkImports(pkgs []listedPackage) []string {
	var problems []string
	for _, p := range pkgs {
		rel, ok := moduleRel(p.ImportPath)
		if !ok {
			continue
		}
		layer := layerOf(rel)
		if layer == "" {
			problems = append(problems, fmt.Sprintf("package %s is in no layer of the dependency direction: "+
				"add it to packageLayers in deps_test.go, in the layer it belongs to (the comment above layers says what each allows)", p.ImportPath))
			continue
		}
		rule := layers[layer]
		for _, imp := range p.Imports {
			impRel, inModule := moduleRel(imp)
			if !inModule {
				if slices.ContainsFunc(rule.notStd, func(io string) bool { return imp == io || strings.HasPrefix(imp, io+"/") }) {
					problems = append(problems, fmt.Sprintf("%s (%s) imports %s: a %s package does no SQL or HTTP", p.ImportPath, layer, imp, layer))
				}
				continue
			}
			impLayer := layerOf(impRel)
			if impLayer == "" || impLayer == layer || slices.Contains(rule.may, impLayer) {
				continue // a package in no layer is reported on its own
			}
			problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s): a %s package may import only %s",
				p.ImportPath, layer, imp, impLayer, layer, allowed(layer)))
		}
	}
	sort.Strings(problems)
	return problems
}

// allowed lists the layers a layer may import, for a message.
func allowed(layer string) string {
	may := append([]string{layer}, layers[layer].may...)
	return strings.Join(may, ", ")
}

// TestCheckImports checks the checker on small graphs, each breaking one rule.
func TestCheckImports(t *testing.T) {
	m := func(rel string) string {
		if rel == "" {
			return modulePath
		}
		return modulePath + "/" + rel
	}
	// pkg makes a package of the module; its imports are paths in the module, or, with the
	// prefix "ext:", outside it.
	pkg := func(rel string, imports ...string) listedPackage {
		p := listedPackage{ImportPath: m(rel)}
		for _, imp := range imports {
			if ext, ok := strings.CutPrefix(imp, "ext:"); ok {
				p.Imports = append(p.Imports, ext)
				continue
			}
			p.Imports = append(p.Imports, m(imp))
		}
		return p
	}
	tests := []struct {
		name string
		pkgs []listedPackage
		want []string // substrings of the problems, one each, in order
	}{
		{"the direction", []listedPackage{
			pkg("engine/chat", "ext:fmt"), pkg("engine/yamlx", "engine/diag"), pkg("predicates", "engine/chat"),
			pkg("engine", "engine/chat", "predicates", "engine/ctxfile", "engine/decision"), pkg("engine/decision", "predicates"), pkg("store", "engine/chat", "ext:database/sql"),
			pkg("llm", "engine/chat", "ext:net/http"), pkg("engine/app", "engine", "store", "llm"),
			pkg("tui", "engine/app", "engine", "themes", "engine/chat"), pkg("themes", "ext:github.com/charmbracelet/lipgloss"),
			pkg("", "engine/app", "store", "tui"), pkg("engine/format", "engine", "predicates", "engine/decision"),
		}, nil},
		{"a leaf imports the engine", []listedPackage{pkg("engine/chat", "engine")},
			[]string{"engine/chat (leaf) imports github.com/ctxlab/ctxlab/engine (engine): a leaf package may import only leaf"}},
		{"the decision record imports the engine", []listedPackage{pkg("engine/decision", "engine/chat", "predicates", "engine")},
			[]string{"engine/decision (decision) imports github.com/ctxlab/ctxlab/engine (engine)"}},
		{"store imports the decision record", []listedPackage{pkg("store", "engine/chat", "engine/decision")},
			[]string{"store (store) imports github.com/ctxlab/ctxlab/engine/decision (decision): a store package may import only store, leaf"}},
		{"predicates import the engine", []listedPackage{pkg("predicates", "engine/ctxfile")},
			[]string{"predicates (predicates) imports github.com/ctxlab/ctxlab/engine/ctxfile (engine)"}},
		{"store imports the engine", []listedPackage{pkg("store/storetest", "engine")},
			[]string{"store/storetest (store) imports github.com/ctxlab/ctxlab/engine (engine)"}},
		{"llm imports the application layer", []listedPackage{pkg("llm", "engine/app")},
			[]string{"llm (llm) imports github.com/ctxlab/ctxlab/engine/app (app)"}},
		{"the engine imports store", []listedPackage{pkg("engine", "store")},
			[]string{"engine (engine) imports github.com/ctxlab/ctxlab/store (store)"}},
		{"the engine imports the application layer", []listedPackage{pkg("engine", "engine/app")},
			[]string{"engine (engine) imports github.com/ctxlab/ctxlab/engine/app (app)"}},
		{"tui imports store and llm", []listedPackage{pkg("tui", "store", "llm/config")},
			[]string{"tui (tui) imports github.com/ctxlab/ctxlab/llm/config (llm)", "tui (tui) imports github.com/ctxlab/ctxlab/store (store)"}},
		{"tui does SQL", []listedPackage{pkg("tui/panes", "ext:database/sql")},
			[]string{"tui/panes (tui) imports database/sql: a tui package does no SQL or HTTP"}},
		{"themes import the engine", []listedPackage{pkg("themes", "engine/chat")},
			[]string{"themes (themes) imports github.com/ctxlab/ctxlab/engine/chat (leaf)"}},
		{"an unknown package", []listedPackage{pkg("engine/newthing", "engine/chat")},
			[]string{"engine/newthing is in no layer of the dependency direction: add it to packageLayers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkImports(tt.pkgs)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant it to hold %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}
