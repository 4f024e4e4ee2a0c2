package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBranchesCommand(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db)

	checkGolden(t, "branches.txt", normaliseIDs(mustRunCtxlab(t, "branches", "branching-1", "--db", db)))
	checkGolden(t, "branches-json.jsonl", normaliseIDs(mustRunCtxlab(t, "branches", "branching-1", "--db", db, "--json")))

	r := runCtxlab(t, "branches", "nope", "--db", db)
	if r.code != exitFailure || !strings.Contains(r.stderr, `chat "nope" not found`) {
		t.Errorf("unknown chat: exit %d, stderr %q; want 1 and the chat named", r.code, r.stderr)
	}
	r = runCtxlab(t, "branches", "--db", db)
	if r.code != exitInvalid {
		t.Errorf("no chat given: exit %d, want 2", r.code)
	}
}
