package script

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// FuzzParse checks that no script makes the parser panic, and that every problem is a
// positioned error inside the script.
func FuzzParse(f *testing.F) {
	for _, tt := range errorCases {
		f.Add([]byte(tt.yaml))
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "spec", "example.script.yaml")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("s.yaml", data)
		if err == nil {
			if s == nil {
				t.Fatal("got a nil script and no error")
			}
			for _, st := range s.Steps {
				if st.Reply != nil && len(st.Reply.Tools) != len(st.Reply.ToolsAt) {
					t.Fatalf("got %d tools and %d positions", len(st.Reply.Tools), len(st.Reply.ToolsAt))
				}
			}
			_ = Check(s, nil, false)
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
		// YAML ends a line at \n, \r\n or a lone \r.
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n")) + 1
		for _, e := range list {
			if e.File != "s.yaml" || e.Line < 1 || e.Line > lines+1 || e.Col < 1 {
				t.Errorf("error %q is outside the script (%d lines)", e, lines)
			}
		}
	})
}
