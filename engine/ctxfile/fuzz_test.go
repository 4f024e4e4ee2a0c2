package ctxfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// yamlLines counts the lines of data as YAML does: \n, \r\n and a lone \r end a line.
func yamlLines(data []byte) int {
	return bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n")) + 1
}

// FuzzParse checks that no input makes the loader panic, and that every problem is a
// positioned error inside the file.
func FuzzParse(f *testing.F) {
	for _, tt := range errorCases {
		f.Add([]byte(tt.yaml))
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "spec", "example.ctx.yaml")); err == nil {
		f.Add(data)
	}
	f.Add(benchFile(12))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join("testdata", "spec", "fuzz.ctx.yaml")
		file, err := Parse(path, data)
		if err == nil {
			if file == nil {
				t.Fatal("got a nil file and no error")
			}
			return
		}
		var list diag.List
		var one *diag.Error
		switch {
		case errors.As(err, &list):
		case errors.As(err, &one):
			list = diag.List{one}
		default:
			t.Fatalf("got %T %v, want a diag.Error or diag.List", err, err)
		}
		lines := yamlLines(data)
		for _, e := range list {
			if e.File != path {
				// Problems inside a SKILL.md or a fragment file name that file.
				if _, statErr := os.Stat(e.File); statErr != nil {
					t.Errorf("error %q names %q, which is neither the file nor one it reads", e, e.File)
				}
				continue
			}
			if e.Line < 1 || e.Line > lines+1 || e.Col < 1 {
				t.Errorf("error %q is outside the file (%d lines)", e, lines)
			}
		}
	})
}
