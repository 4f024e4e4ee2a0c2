package main

// Data-safety tests of the ctxlab binary (issue 3, item 5): kill -9 at random points of a
// long run, two processes writing one database, and a database from a newer schema.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
)

// buildCtxlab builds the ctxlab binary into tb.TempDir() and returns its path. A test
// binary built with -race builds it with -race too, so the build shares the compiled
// packages of the test.
func buildCtxlab(tb testing.TB) string {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skipf("the go tool is not on PATH: %v", err)
	}
	bin := filepath.Join(tb.TempDir(), "ctxlab")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := []string{"build", "-o", bin}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// ctxlabProcessEnv is the environment of a ctxlab process in a test: the test's own, less
// every variable that could reach a model, a config file or the user's database.
func ctxlabProcessEnv(tb testing.TB) []string {
	tb.Helper()
	set := ctxlabTestEnv(tb)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CTXLAB_") {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// ctxlabProcess is a ctxlab command ready to start, with its output captured.
func ctxlabProcess(bin string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// exitCode returns the exit code of a finished command (-1 if it was killed).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// writeLongScript writes a script of n scripted turns on chat id, with tool calls (output
// and error), usage, and a few branch operations (checkpoint, edit, regenerate, restore,
// switch, rewind) that stay valid when the script continues a chat it played before.
func writeLongScript(tb testing.TB, dir, id string, n int) string {
	tb.Helper()
	ctxFile, err := filepath.Abs("testdata/demo/support.ctx.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "context: %q\nchat: {id: %s, title: Long run %s}\nturns:\n", ctxFile, id, id)
	at := time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		at = at.Add(7 * time.Minute)
		ts := at.Format(time.RFC3339)
		switch {
		case i%50 == 0:
			b.WriteString("  - checkpoint: cp\n")
		case i%89 == 0:
			b.WriteString("  - restore: cp\n")
		case i%113 == 0:
			b.WriteString("  - switch: main\n")
		case i%131 == 0:
			b.WriteString("  - rewind: {turn: 1}\n")
		}
		switch {
		case i%61 == 0:
			fmt.Fprintf(&b, "  - edit: {turn: 2, user: edited message %d}\n    at: %s\n    assistant: Edited reply %d.\n", i, ts, i)
		case i%67 == 0:
			fmt.Fprintf(&b, "  - regenerate: {assistant: Regenerated reply %d.}\n    at: %s\n", i, ts)
		case i%5 == 0:
			fmt.Fprintf(&b, "  - user: run query %d, it failed with an error\n    at: %s\n    assistant:\n      text: Query %d done.\n"+
				"      tools:\n        - {name: run_sql, input: {query: select %d}, error: permission denied}\n"+
				"        - {name: run_sql, input: {query: select %d}, output: '[{\"n\": %d}]'}\n", i, ts, i, i, i, i)
		default:
			fmt.Fprintf(&b, "  - user: message %d about the customers table\n    at: %s\n    assistant: Reply %d.\n"+
				"    usage: {prompt_tokens: %d, completion_tokens: 9}\n", i, ts, i, 100+i)
		}
	}
	path := filepath.Join(dir, id+".script.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// dbState is what checkDatabase found: turn records by chat.
type dbState struct {
	turns map[string]int
	// assistants holds the assistant message id of every turn.
	assistants map[string]bool
}

// checkDatabase opens a database after a crash or a race and checks that it is sound:
// store.Open succeeds, Check passes, and every chat is made of complete turns (user
// message, assistant message and turn record with its decisions, written together), with
// every branch a connected path from the root.
func checkDatabase(t *testing.T, path string) dbState {
	t.Helper()
	ctx := context.Background()
	st := dbState{turns: map[string]int{}, assistants: map[string]bool{}}
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("store.Open after the crash: %v", err)
	}
	defer db.Close()
	if err := db.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	chats, err := db.ListChats(ctx, store.ListOptions{})
	if err != nil {
		t.Fatalf("ListChats: %v", err)
	}
	for _, c := range chats {
		e, err := db.ExportChat(ctx, c.ID)
		if err != nil {
			t.Fatalf("ExportChat %s: %v", c.ID, err)
		}
		for _, p := range chatProblems(db, &e) {
			t.Error(p)
		}
		st.turns[c.ID] = len(e.Turns)
		for _, tr := range e.Turns {
			st.assistants[tr.AssistantMessageID] = true
		}
	}
	return st
}

// chatProblems lists what is wrong with a chat: a turn without its messages or decisions, a
// message without its turn record (a half-written step), a branch whose path is not a
// connected alternation of user messages and replies, a checkpoint naming no message.
func chatProblems(db *store.DB, e *chat.Archive) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	id := e.Chat.ID
	msgs := map[string]*chat.Message{}
	for i := range e.Messages {
		m := &e.Messages[i]
		msgs[m.ID] = m
		if m.ParentID != "" && msgs[m.ParentID] == nil {
			errorf("chat %s: message %s: parent %s is missing (or comes later)", id, m.ID, m.ParentID)
		}
	}
	userTurns, asstTurns := map[string]int{}, map[string]int{}
	for _, tr := range e.Turns {
		u, a := msgs[tr.UserMessageID], msgs[tr.AssistantMessageID]
		switch {
		case u == nil || a == nil:
			errorf("chat %s: turn %s: its user or assistant message is missing", id, tr.ID)
			continue
		case u.Role != chat.RoleUser || a.Role != chat.RoleAssistant || a.ParentID != u.ID:
			errorf("chat %s: turn %s: messages are not a user message and its reply", id, tr.ID)
		}
		var ds []json.RawMessage
		if err := json.Unmarshal(tr.Decisions, &ds); err != nil || len(ds) == 0 {
			errorf("chat %s: turn %d (%s): no decisions recorded (%v)", id, tr.Number, tr.ID, err)
		}
		if tr.Request.SystemPrompt == "" {
			errorf("chat %s: turn %d: no system prompt recorded", id, tr.Number)
		}
		userTurns[u.ID]++
		asstTurns[a.ID]++
	}
	for _, m := range e.Messages {
		switch {
		case m.Role == chat.RoleUser && userTurns[m.ID] == 0:
			errorf("chat %s: user message %s has no turn record: a half turn is visible", id, m.ID)
		case m.Role == chat.RoleAssistant && asstTurns[m.ID] != 1:
			errorf("chat %s: assistant message %s has %d turn records, want 1", id, m.ID, asstTurns[m.ID])
		}
	}
	active := false
	for _, b := range e.Branches {
		active = active || b.Name == e.Chat.ActiveBranch
		if b.Head == "" {
			continue
		}
		path, err := db.Path(context.Background(), id, b.Head)
		if err != nil {
			errorf("chat %s: branch %s: path: %v", id, b.Name, err)
			continue
		}
		for i := range path {
			want := chat.RoleUser
			if i%2 == 1 {
				want = chat.RoleAssistant
			}
			parent := ""
			if i > 0 {
				parent = path[i-1].ID
			}
			if path[i].Role != want || path[i].ParentID != parent {
				errorf("chat %s: branch %s: message %d of its path is %s with parent %q, want %s with parent %q",
					id, b.Name, i, path[i].Role, path[i].ParentID, want, parent)
				break
			}
		}
		if len(path)%2 != 0 {
			errorf("chat %s: branch %s ends with a user message", id, b.Name)
		}
	}
	if !active {
		errorf("chat %s: its active branch %q does not exist", id, e.Chat.ActiveBranch)
	}
	for _, cp := range e.Checkpoints {
		if msgs[cp.MessageID] == nil {
			errorf("chat %s: checkpoint %s names a missing message", id, cp.Name)
		}
	}
	return problems
}

// printedTurns returns the assistant message ids of the complete JSON trace lines of out.
func printedTurns(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasSuffix(line, "\n") {
			break // cut by the kill
		}
		var tr struct {
			AssistantMessageID string `json:"assistant_message_id"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("a trace line is not JSON: %v\n%s", err, clip(line, 200))
		}
		ids = append(ids, tr.AssistantMessageID)
	}
	return ids
}

// TestDataSafety builds the binary once and runs the process-level safety tests on it.
func TestDataSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, runs and kills the ctxlab binary")
	}
	bin := buildCtxlab(t)
	env := ctxlabProcessEnv(t)
	t.Run("kill -9 at random points", func(t *testing.T) { testKillDuringRun(t, bin, env) })
	t.Run("two processes", func(t *testing.T) { testConcurrentWriters(t, bin, env) })
}

// testKillDuringRun kills `ctxlab run` of a long script at random points. Each run after
// the first continues the chat the killed one left, and is itself killed; a last run goes
// to the end. After every kill the database must be sound, hold every turn the killed
// process reported as saved, and show no half turn.
func testKillDuringRun(t *testing.T, bin string, env []string) {
	if runtime.GOOS == "windows" {
		t.Skip("kill -9 is a POSIX test")
	}
	const (
		turns = 300
		kills = 10
	)
	dir := t.TempDir()
	script := writeLongScript(t, dir, "long-1", turns)

	// An uninterrupted run: how long a run takes and how many turns it records.
	ref := filepath.Join(dir, "ref.db")
	cmd, _, errb := ctxlabProcess(bin, env, "run", script, "--db", ref, "--json")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, errb)
	}
	full := time.Since(start)
	perRun := checkDatabase(t, ref).turns["long-1"]
	if perRun < turns {
		t.Fatalf("uninterrupted run recorded %d turns, want at least %d", perRun, turns)
	}
	t.Logf("uninterrupted run: %d turns in %v", perRun, full.Round(time.Millisecond))

	seed := uint64(20260327)
	if s := os.Getenv("CTXLAB_KILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CTXLAB_KILL_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("kill delays from seed %d (set CTXLAB_KILL_SEED to replay a failure)", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	minDelay := 5 * time.Millisecond
	span := max(full-minDelay, time.Millisecond)

	db := filepath.Join(dir, "killed.db")
	saved := 0
	for i := range kills {
		delay := minDelay + time.Duration(rng.Int64N(int64(span)))
		cmd, out, errb := ctxlabProcess(bin, env, "run", script, "--db", db, "--json")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Kill() // SIGKILL; the run may have finished already
		err := cmd.Wait()
		killed := exitCode(err) == -1
		if !killed && err != nil {
			t.Fatalf("run %d: failed before the kill: %v\n%s", i, err, errb)
		}

		checkStart := time.Now()
		st := checkDatabase(t, db)
		checked := time.Since(checkStart)
		got := st.turns["long-1"]
		printed := printedTurns(t, out.String())
		for _, id := range printed {
			if !st.assistants[id] {
				t.Errorf("run %d, killed after %v: a turn reported as saved (assistant %s) is not in the database", i, delay, id)
			}
		}
		// A turn is printed while the next one commits (outQueue): at most two are saved
		// but unreported.
		added := got - saved
		if added < len(printed) || added > len(printed)+2 || (!killed && added != perRun) {
			t.Errorf("run %d, killed=%v after %v: %d turns added, %d reported", i, killed, delay, added, len(printed))
		}
		t.Logf("run %d: killed=%v after %v, %d turns added (checked in %v)", i, killed, delay.Round(time.Millisecond), added, checked.Round(time.Millisecond))
		saved = got
	}

	// The same script once more continues the chat and goes to the end.
	again, _, errb := ctxlabProcess(bin, env, "run", script, "--db", db, "--json")
	if err := again.Run(); err != nil {
		t.Fatalf("re-running the script after the kills: %v\n%s", err, errb)
	}
	if got := checkDatabase(t, db).turns["long-1"]; got != saved+perRun {
		t.Errorf("after the last run the chat has %d turns, want %d + %d", got, saved, perRun)
	}
}

// testConcurrentWriters runs two `ctxlab run` processes on one new database at once, on
// two chats and on one: both complete, and every turn either reports as saved is in the
// database. On one chat, a turn whose branch the other process moved (or made first) is
// saved on a new branch, with planned_on in its trace.
func testConcurrentWriters(t *testing.T, bin string, env []string) {
	const turns = 120
	dir := t.TempDir()
	scriptA := writeLongScript(t, dir, "chat-a", turns)
	scriptB := writeLongScript(t, dir, "chat-b", turns)

	type proc struct {
		cmd       *exec.Cmd
		out, errb *bytes.Buffer
		err       error
	}
	runBoth := func(db string, scripts ...string) []*proc {
		ps := make([]*proc, len(scripts))
		for i, s := range scripts {
			cmd, out, errb := ctxlabProcess(bin, env, "run", s, "--db", db, "--json")
			ps[i] = &proc{cmd: cmd, out: out, errb: errb}
		}
		var wg sync.WaitGroup
		for _, p := range ps {
			wg.Go(func() { p.err = p.cmd.Run() })
		}
		wg.Wait()
		return ps
	}

	t.Run("different chats", func(t *testing.T) {
		for round := range 2 {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			ps := runBoth(db, scriptA, scriptB)
			for i, p := range ps {
				if p.err != nil {
					t.Fatalf("round %d: process %d: %v\n%s", round, i, p.err, p.errb)
				}
			}
			st := checkDatabase(t, db)
			for i, id := range []string{"chat-a", "chat-b"} {
				if printed := len(printedTurns(t, ps[i].out.String())); st.turns[id] != printed || printed < turns {
					t.Errorf("round %d: chat %s has %d turns, %d reported; want the same, at least %d", round, id, st.turns[id], printed, turns)
				}
			}
		}
	})

	t.Run("same chat", func(t *testing.T) {
		aside := 0
		for round := range 3 {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			ps := runBoth(db, scriptA, scriptA)
			st := checkDatabase(t, db)
			saved := 0
			for i, p := range ps {
				if p.err != nil {
					t.Errorf("round %d: process %d: %v; stderr:\n%s", round, i, p.err, p.errb)
				}
				printed := printedTurns(t, p.out.String())
				if len(printed) < turns {
					t.Errorf("round %d: process %d reported %d turns saved, want at least %d", round, i, len(printed), turns)
				}
				for _, id := range printed {
					if !st.assistants[id] {
						t.Errorf("round %d: process %d: a turn reported as saved (assistant %s) is not in the database", round, i, id)
					}
				}
				saved += len(printed)
				aside += strings.Count(p.out.String(), `"planned_on":`)
			}
			if st.turns["chat-a"] != saved {
				t.Errorf("round %d: the chat has %d turns, the processes reported %d saved", round, st.turns["chat-a"], saved)
			}
		}
		t.Logf("%d turns saved on a new branch after the other process wrote to theirs", aside)
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	isolateCtxlabEnv(t)
	path := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", "testdata/cli/latch.script.yaml", "--db", path)
	settle(t, path)

	// Mark the file as written by a future ctxlab.
	newer := store.SchemaVersion() + 1
	sdb, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(fmt.Sprintf("PRAGMA user_version = %d", newer)); err != nil {
		t.Fatal(err)
	}
	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, path)

	for _, args := range [][]string{
		{"run", "testdata/cli/latch.script.yaml"},
		{"replay", "latch-1"},
		{"replay", "latch-1", "--context", "testdata/cli/latch.ctx.yaml", "--json"},
	} {
		r := runCtxlab(t, append(args, "--db", path)...)
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1; stderr:\n%s", args[0], r.code, r.stderr)
		}
		for _, want := range []string{path, fmt.Sprintf("schema version %d is newer", newer), "upgrade ctxlab"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr does not contain %q:\n%s", args[0], want, r.stderr)
			}
		}
		if r.stdout != "" {
			t.Errorf("%s: printed %q, want nothing", args[0], r.stdout)
		}
	}
	if got := fileSum(t, path); got != sum {
		t.Errorf("the database file changed")
	}
	for _, ext := range []string{"-wal", "-journal"} {
		if fi, err := os.Stat(path + ext); err == nil && fi.Size() > 0 {
			t.Errorf("%s%s was written (%d bytes)", path, ext, fi.Size())
		}
	}
}

// TestChatProblemsFindsHalfTurns checks the checker of the crash tests: a user message
// saved without its reply and turn record is reported.
func TestChatProblemsFindsHalfTurns(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "ctxlab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := db.CreateChat(ctx, chat.Chat{ID: "half", ActiveBranch: "main", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	user := chat.Message{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("hello")}, CreatedAt: at}
	if err := db.Commit(ctx, chat.Commit{ChatID: "half", Branch: "main", NewHead: "u1", Messages: []chat.Message{user}}); err != nil {
		t.Fatal(err)
	}
	e, err := db.ExportChat(ctx, "half")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(chatProblems(db, &e), "\n")
	for _, want := range []string{"user message u1 has no turn record", "branch main ends with a user message"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not report %q; got:\n%s", want, got)
		}
	}
}
