//go:build unix

package main

// The probes of issue 12 (bounded inputs), rerun through run(), as main runs them: each
// ends in a clear error, with the exit code of its kind (2 for a user's file, 1 for a
// server or a command), allocating under 100 MB. (The peak resident size of a child
// process cannot be measured here: on Linux it starts from the size of the test process
// that forked it.)

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLimitsProbes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deepFlow := write("deep-flow.ctx.yaml", "system:\n  - role: "+strings.Repeat("{a: ", 50_000)+"1"+strings.Repeat("}", 50_000)+"\n")
	deepList := write("deep-list.script.yaml", "turns:\n  - user: "+strings.Repeat("[", 40_000)+strings.Repeat("]", 40_000)+"\n")
	deepBlock := write("deep-block.ctx.yaml", "system:\n  - fragment:\n      name: x\n      data:\n        - "+strings.Repeat("- ", 40_000)+"x\n")
	manyHints := write("many-hints.ctx.yaml", "system:\n"+strings.Repeat("  - hint: x\n", (8<<20)/12-10)+"  - hint: [a\n")
	bigRole := write("big.ctx.yaml", "system:\n  - role: "+strings.Repeat("x", 9<<20)+"\n")
	deepCfg := write("deep-config.yaml", "profiles: "+strings.Repeat("[", 40_000)+"\n")
	endless := write("endless-key.yaml", "profiles:\n  p:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_cmd: yes sk-probe-secret-000000000000\n")
	failing := write("failing-key.yaml", "profiles:\n  p:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_cmd: echo sk-probe-secret-000000000000 >&2; exit 3\n")

	// A model whose reply is one line of 200 MB.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		if _, err := io.WriteString(w, "data: "); err != nil {
			return
		}
		for sent := 0; sent < 200<<20; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	// A model list of 200 MB.
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := io.WriteString(w, `{"object":"list","data":[`+"\n"); err != nil {
			return
		}
		line := []byte(strings.Repeat(`{"id":"m","object":"model"},`+"\n", 2000))
		for sent := 0; sent < 200<<20; sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}))
	t.Cleanup(models.Close)

	for _, tc := range []struct {
		name     string
		args     []string
		env      []string
		wantCode int
		want     string
	}{
		{"context file from /dev/zero", []string{"prompt", "--context", "/dev/zero"}, nil, 2,
			"/dev/zero: a device, not a file: a context file must be a file\n"},
		{"script from /dev/zero", []string{"run", "/dev/zero", "--db", ":memory:"}, nil, 2,
			"/dev/zero: a device, not a file: a script must be a file\n"},
		{"config file from /dev/zero", []string{"config", "--config", "/dev/zero"}, nil, 2,
			"/dev/zero: a device, not a file: the config file must be a file\n"},
		{"a 9 MiB role", []string{"prompt", "--context", bigRole}, nil, 2,
			bigRole + ": too large: a context file holds at most 8 MiB\n"},
		{"8 MiB of one-line hints, invalid on the last line", []string{"prompt", "--context", manyHints}, nil, 2,
			manyHints + ":100001:11: too many values (more than 300000)\n"},
		{"flow mappings 50,000 deep", []string{"prompt", "--context", deepFlow}, nil, 2,
			deepFlow + ":2:399: nesting is too deep (more than 100 levels)\n"},
		{"block lists 40,000 deep", []string{"prompt", "--context", deepBlock}, nil, 2,
			deepBlock + ":5:201: nesting is too deep (more than 100 levels)\n"},
		{"flow lists 40,000 deep in a script", []string{"run", deepList, "--db", ":memory:"}, nil, 2,
			deepList + ":2:108: nesting is too deep (more than 100 levels)\n"},
		{"unclosed flow lists in the config file", []string{"config", "--config", deepCfg}, nil, 2,
			deepCfg + ":1:110: nesting is too deep (more than 100 levels)\n"},
		{"api_key_cmd printing without end", []string{"models", "--config", endless}, nil, 1,
			"ctxlab: config " + endless + " profile p api_key_cmd: the command printed more than 64 KiB; it must print the key only\n"},
		{"api_key_cmd failing", []string{"models", "--config", failing}, nil, 1,
			"ctxlab: config " + failing + " profile p api_key_cmd: the command failed with exit status 3 (its output is not shown: it may hold the key)\n"},
		{"a stream line of 200 MB", []string{"run", "testdata/live/one-question.script.yaml", "--db", ":memory:",
			"--base-url", srv.URL + "/v1", "--model", "m"}, []string{"OPENAI_API_KEY=sk-probe-secret-000000000000"}, 1,
			"malformed stream from " + srv.URL + "/v1: a line of the stream is longer than 8 MiB"},
		{"a model list of 200 MB", []string{"models", "--base-url", models.URL + "/v1"},
			[]string{"OPENAI_API_KEY=sk-probe-secret-000000000000"}, 1,
			"invalid response from " + models.URL + "/v1: the answer is larger than 8 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range ctxlabTestEnv(t) {
				t.Setenv(k, v)
			}
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			runtime.ReadMemStats(&after)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q, want it to hold %q", stderr.String(), tc.want)
			}
			if strings.Contains(stdout.String()+stderr.String(), "sk-probe-secret") {
				t.Errorf("output %q %q shows the key", stdout.String(), stderr.String())
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc >= 100<<20 {
				t.Errorf("allocated %d MB, want under 100 MB", alloc>>20)
			}
		})
	}
}
