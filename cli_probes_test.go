package main

// The last probes of issue 12 (items 5, 7, 8), rerun through run() as main runs them, or
// through the real binary where a file on disk must be left untouched.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestProbeTooManyToolCalls is item 5: a model streaming 2,000 tool calls in one reply
// made `run` fail with exit 2 (`save turn: … more than 10000 parts`, as if the script
// were wrong) and lost the reply. It is the model's failure (exit 1, naming the model
// and the limit), and what fits is saved: the first chat.MaxToolCalls calls, in a reply
// marked interrupted.
func TestProbeTooManyToolCalls(t *testing.T) {
	liveEnv(t)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ <-chan struct{}) {
		sseStart(w)
		for i := range 2000 {
			sseLine(w, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"run_sql","arguments":"{}"}}]},"finish_reason":null}]}`, i, i))
		}
		sseLine(w, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		sseLine(w, "[DONE]")
	})
	db := filepath.Join(t.TempDir(), "probe.db")
	r := ctxlabLive(context.Background(), "run", "testdata/live/one-question.script.yaml", "--db", db,
		"--base-url", s.url, "--model", "m")
	want := "ctxlab: testdata/live/one-question.script.yaml:4:5: user: model: malformed stream from " + s.url +
		": a reply holds at most 256 tool calls\n"
	if r.code != exitFailure || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", r.code, r.stderr, want)
	}
	a := savedChat(t, db, "live-one")
	if len(a.Messages) != 2 {
		t.Fatalf("saved %d messages, want the question and the interrupted reply", len(a.Messages))
	}
	reply := a.Messages[1]
	if reply.Role != chat.RoleAssistant || !reply.Interrupted || len(reply.ToolParts()) != chat.MaxToolCalls {
		t.Errorf("saved reply %s interrupted %v with %d tool calls, want an interrupted assistant reply with %d",
			reply.Role, reply.Interrupted, len(reply.ToolParts()), chat.MaxToolCalls)
	}
	if len(a.Turns) != 1 || !strings.Contains(a.Turns[0].Error, "a reply holds at most 256 tool calls") {
		t.Errorf("saved turns %+v, want one recording the error", a.Turns)
	}
	noKey(t, db, r)
}

// TestProbeImportShapes is item 7: import accepted chats ctxlab could not have made. A
// reminder span laid over the user's own words (the markdown export then showed the
// question as a reminder and the reminder as the user's text), and an OpenAI array that
// starts with a reply (imported, then left out of every turn by replay while export
// --format openai kept it), are refused: exit 2 at the value at fault, no database made.
func TestProbeImportShapes(t *testing.T) {
	good := expReadFile(t, impGood)
	const rem = "<system-reminder>Be brief.</system-reminder>"
	over := strings.Replace(good, `"parts": [{"type": "text", "text": "héllo wörld"}],`,
		`"parts": [{"type": "text", "text": "héllo wörld`+rem+`"}], "reminders": [{"id": "brief", "part_index": 0, "start": 0, "end": 13, "mode": "inline"}],`, 1)
	if over == good {
		t.Fatal("the good export changed: the span was not added")
	}
	baked := strings.Replace(over, `"start": 0, "end": 13`, fmt.Sprintf(`"start": 13, "end": %d`, 13+len(rem)), 1)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string // want "" for accepted
	}{
		{"a span over the user's words", over,
			`FILE:6:186: message "u1": reminder "brief": span [0,13) of part 0 is not a <system-reminder>…</system-reminder> block (a span covers exactly the text a reminder injected)`},
		{"the span as the engine bakes it", baked, ""},
		{"an OpenAI array that starts with a reply", `[{"role": "assistant", "content": "Welcome!"}, {"role": "user", "content": "hi"}]`,
			`FILE:1:11: messages[0]: the array starts with an assistant message: a chat starts with a user message`},
		{"two replies in a row", `[{"role": "user", "content": "hi"},
 {"role": "assistant", "content": "Hello."},
 {"role": "assistant", "content": "Anything else?"}]`,
			`FILE:3:11: messages[2]: assistant message after an assistant message: a reply answers a user message (join the two, or put the user message between them)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveEnv(t)
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			r := ctxlabLive(context.Background(), "import", file, "--db", db)
			if tc.want == "" {
				if r.code != exitOK {
					t.Fatalf("exit %d, stderr %q; want the chat imported", r.code, r.stderr)
				}
				return
			}
			if want := strings.ReplaceAll(tc.want, "FILE", file) + "\n"; r.code != exitInvalid || r.stderr != want {
				t.Fatalf("exit %d, stderr\n%s\nwant exit 2 and\n%s", r.code, r.stderr, want)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the database was made (%v), want nothing written", err)
			}
		})
	}
}

// TestProbeInvalidBaseURL is item 8: a base URL with port 99999 failed at connect time
// (exit 1, as if the server were down). It is invalid input, naming where it was set,
// found before any connection.
func TestProbeInvalidBaseURL(t *testing.T) {
	const bad = "http://127.0.0.1:99999/v1"
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  p:\n    base_url: "+bad+"\n    model: m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag", []string{"models", "--base-url", bad}, nil,
			`ctxlab: flag --base-url: "` + bad + `": port 99999 is out of range (1 to 65535)` + "\n"},
		{"environment", []string{"models"}, map[string]string{"OPENAI_BASE_URL": bad},
			`ctxlab: env OPENAI_BASE_URL: "` + bad + `": port 99999 is out of range (1 to 65535)` + "\n"},
		{"config file", []string{"models", "--config", cfg, "--profile", "p"}, nil,
			cfg + `:3:15: profile p: base_url: "` + bad + `": port 99999 is out of range (1 to 65535)` + "\n"},
		{"a run", []string{"run", "testdata/live/one-question.script.yaml", "--db", ":memory:", "--base-url", bad, "--model", "m"}, nil,
			`ctxlab: flag --base-url: "` + bad + `": port 99999 is out of range (1 to 65535)` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := ctxlabLive(context.Background(), tc.args...)
			if r.code != exitInvalid || r.stderr != tc.want {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// TestProbeBaseURLSecrets is issue 22 item 8: a base URL with a query (`…/v1?api-key=
// SECRET`) was taken, shown whole by config and in every error, and sent in the path of
// every request; one with a fragment silently posted to the URL without it. Both are
// invalid input naming where they were set, and the query's value is never shown.
func TestProbeBaseURLSecrets(t *testing.T) {
	const query, fragment = "http://127.0.0.1:8080/v1?api-key=SECRET", "http://127.0.0.1:8080/v1#SECRET"
	const whyQuery = `"http://127.0.0.1:8080/v1?…" has a query: a base URL cannot have one (a key goes in api_key_env, api_key_cmd or OPENAI_API_KEY)`
	const whyFragment = `"http://127.0.0.1:8080/v1#…" has a fragment: a base URL cannot have one (the requests would go to "http://127.0.0.1:8080/v1")`
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  p:\n    base_url: "+query+"\n    model: m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag", []string{"run", "testdata/live/one-question.script.yaml", "--db", ":memory:", "--base-url", query, "--model", "m"}, nil,
			"ctxlab: flag --base-url: " + whyQuery + "\n"},
		{"fragment", []string{"ask", "hi", "--db", ":memory:", "--base-url", fragment, "--model", "m"}, nil,
			"ctxlab: flag --base-url: " + whyFragment + "\n"},
		{"environment", []string{"config"}, map[string]string{"OPENAI_BASE_URL": query},
			"ctxlab: env OPENAI_BASE_URL: " + whyQuery + "\n"},
		{"config file", []string{"config", "--config", cfg, "--profile", "p"}, nil,
			cfg + ":3:15: profile p: base_url: " + whyQuery + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := ctxlabLive(context.Background(), tc.args...)
			if r.code != exitInvalid || r.stderr != tc.want || strings.Contains(r.stdout+r.stderr, "SECRET") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
}

// TestProbeKeyOverPlainHTTP is issue 22 item 8: the API key was sent to any --base-url,
// plain http to another host included. With a key, such a base URL is invalid input,
// found before anything is opened or sent, unless --allow-http-key allows it, which
// config then shows.
func TestProbeKeyOverPlainHTTP(t *testing.T) {
	const remote = "http://192.0.2.10:11434/v1" // TEST-NET-1: never connected to here
	liveEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	r := ctxlabLive(context.Background(), "run", "testdata/live/one-question.script.yaml", "--db", db, "--base-url", remote, "--model", "m")
	want := `ctxlab: flag --base-url: "` + remote + `" is plain http to another machine: the API key (env OPENAI_API_KEY) would cross the network unencrypted; use https, or allow it with --allow-http-key (or allow_http_key: true in the config profile)` + "\n"
	if r.code != exitInvalid || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the database was made (%v), want nothing written", err)
	}
	r = ctxlabLive(context.Background(), "config", "--base-url", remote, "--allow-http-key")
	if r.code != exitOK || !strings.Contains(r.stdout, "allow_http_key") || !strings.Contains(r.stdout, "flag --allow-http-key") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the setting shown with its source", r.code, r.stdout, r.stderr)
	}
}

// TestProbeEmptyDB is item 8: an empty --db silently meant the default database. It is a
// usage error, for every command that takes the flag.
func TestProbeEmptyDB(t *testing.T) {
	const want = "ctxlab: flag --db: empty path (leave the flag out for the default database, or give :memory: for none)\n"
	for _, args := range [][]string{
		{"chats", "--db", ""},
		{"--db=", "branches", "x"},
		{"run", "testdata/live/one-question.script.yaml", "--db", ""},
		{"export", "x", "--db="},
		{"import", "x.json", "--db", ""},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			liveEnv(t)
			data, _ := os.LookupEnv("XDG_DATA_HOME")
			r := ctxlabLive(context.Background(), args...)
			if r.code != exitInvalid || r.stderr != want {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("the data directory %s was made (%v), want nothing written", data, err)
			}
		})
	}
}

// TestProbeReadOnlyEmptyFile is item 8: read-only commands wrote a schema into a 0-byte
// --db file. They now leave it as it is (no schema, no -wal or -shm file beside it), and
// say there is no database in it; a missing file is not created.
func TestProbeReadOnlyEmptyFile(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   string // with PATH for the database
		missingOut string
	}{
		{[]string{"chats"}, exitOK, "no chats yet (PATH is an empty file)\n", "", "no chats yet (no database at PATH)\n"},
		{[]string{"chats", "--json"}, exitOK, "", "", ""},
		{[]string{"branches", "x"}, exitFailure, "", "ctxlab: no database in PATH: the file is empty (check --db)\n", ""},
		{[]string{"export", "x"}, exitFailure, "", "ctxlab: no database in PATH: the file is empty (check --db)\n", ""},
		{[]string{"replay", "x"}, exitFailure, "", "ctxlab: no database in PATH: the file is empty (check --db)\n", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			liveEnv(t)
			dir := t.TempDir()
			db := filepath.Join(dir, "empty.db")
			if err := os.WriteFile(db, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			r := ctxlabLive(context.Background(), append(tc.args, "--db", db)...)
			out, errOut := strings.ReplaceAll(tc.out, "PATH", db), strings.ReplaceAll(tc.err, "PATH", db)
			if r.code != tc.code || r.stdout != out || r.stderr != errOut {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, out, errOut)
			}
			entries, _ := os.ReadDir(dir)
			if fi, err := os.Stat(db); err != nil || fi.Size() != 0 || len(entries) != 1 {
				t.Errorf("the empty file changed (%v) or files appeared beside it (%d entries), want it left as it was", err, len(entries))
			}
			missing := filepath.Join(dir, "missing.db")
			r = ctxlabLive(context.Background(), append(tc.args, "--db", missing)...)
			if tc.missingOut != "" && r.stdout != strings.ReplaceAll(tc.missingOut, "PATH", missing) {
				t.Errorf("stdout %q for a missing file, want %q", r.stdout, tc.missingOut)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Errorf("%s was created (%v), want no file", missing, err)
			}
		})
	}
}

// TestProbeRelativeXDG is item 8: a relative $XDG_DATA_HOME was used (the database moved
// with the working directory), and a relative $XDG_CONFIG_HOME left ctxlab with no config
// file. Both are ignored, as the XDG base directory rules say: ~/.local/share and
// ~/.config are used.
func TestProbeRelativeXDG(t *testing.T) {
	liveEnv(t)
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "ctxlab")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("profiles:\n  p:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"HOME": home, "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config",
		"CTXLAB_CONFIG": "", "OPENAI_API_KEY": ""} {
		t.Setenv(k, v)
	}
	r := ctxlabLive(context.Background(), "config", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{filepath.Join(cfgDir, "config.yaml"), filepath.Join(home, ".local", "share", "ctxlab", "ctxlab.db"),
		"http://127.0.0.1:9/v1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config --json:\n%s\nwant it to hold %s", r.stdout, want)
		}
	}
}

// TestProbeYAMLBytesAndTags is item 8: invalid UTF-8 and NUL bytes in a context file
// were turned into U+FFFD in the prompt sent, silently, and YAML tags like
// !!python/object were accepted silently, in every YAML file ctxlab reads. Each is now
// invalid input at the first offending byte or at the tagged node.
func TestProbeYAMLBytesAndTags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badUTF8 := write("utf8.ctx.yaml", "version: 1\nsystem:\n  - role: \"You are \xffterse.\"\n")
	nul := write("nul.ctx.yaml", "version: 1\nsystem:\n  - role: You are\x00 terse.\n")
	python := write("python.script.yaml", "turns:\n  - user: !!python/object:os.system [ls]\n    assistant: hi\n")
	binary := write("binary-config.yaml", "profiles:\n  p:\n    base_url: !!binary aHR0cDovLzEyNy4wLjAuMTo5L3Yx\n")
	write("skills/charts/SKILL.md", "---\nname: !custom charts\ndescription: Draw charts.\n---\n# Charts\n")
	skills := write("skills.ctx.yaml", "version: 1\nsystem:\n  - role: You are terse.\n  - skills: ./skills\n")
	plain := write("plain.ctx.yaml", "version: !!int 1\nsystem:\n  - role: !!str You are terse.\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"invalid UTF-8 in a context file", []string{"prompt", "--context", badUTF8},
			badUTF8 + ":3:20: invalid UTF-8 (byte 0xff): a YAML file is UTF-8 text\n"},
		{"a NUL in a context file", []string{"prompt", "--context", nul},
			nul + ":3:18: a NUL byte: a YAML file is text\n"},
		{"!!python/object in a script", []string{"run", python, "--db", ":memory:"},
			python + ":2:11: YAML tag !!python/object:os.system is not accepted: only the tags of plain values (!!str, !!int, !!float, !!bool, !!null, !!seq, !!map) are\n"},
		{"!!binary in the config file", []string{"config", "--config", binary},
			binary + ":3:15: YAML tag !!binary is not accepted: only the tags of plain values (!!str, !!int, !!float, !!bool, !!null, !!seq, !!map) are\n"},
		{"a custom tag in SKILL.md", []string{"prompt", "--context", skills},
			filepath.Join(dir, "skills", "charts", "SKILL.md") + ":2:7: bad front matter: YAML tag !custom is not accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveEnv(t)
			r := ctxlabLive(context.Background(), tc.args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
	t.Run("the tags of plain values", func(t *testing.T) {
		liveEnv(t)
		if r := ctxlabLive(context.Background(), "prompt", "--context", plain); r.code != exitOK || !strings.Contains(r.stdout, "<role>You are terse.</role>") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want the prompt", r.code, r.stdout, r.stderr)
		}
	})
}

// TestProbeTimeouts is item 8: --connect-timeout 0 was once taken as the default while -5s
// was refused. Every timeout flag refuses 0 and a negative duration alike, before
// anything runs.
func TestProbeTimeouts(t *testing.T) {
	for _, flag := range []string{"--connect-timeout", "--first-token-timeout", "--idle-timeout"} {
		for _, v := range []string{"0", "0s", "-5s", "-1ns"} {
			t.Run(flag+"="+v, func(t *testing.T) {
				liveEnv(t)
				db := filepath.Join(t.TempDir(), "ctxlab.db")
				r := ctxlabLive(context.Background(), "run", "testdata/demo/support.script.yaml", "--db", db, flag+"="+v)
				want := "ctxlab: flag " + flag + " must be a positive duration like 90s, found "
				if r.code != exitInvalid || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
					t.Errorf("exit %d, stderr %q; want 2 and %q…", r.code, r.stderr, want)
				}
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("a refused timeout created the database (%v)", err)
				}
			})
		}
	}
}
