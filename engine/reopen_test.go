package engine

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestReopen: a session reopened on another engine is the session Open gives, reusing
// what the old one held; another writer's turn is read; the next turn is the same.
func TestReopen(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.sendN(4)
	// Another writer adds a turn the session has not seen.
	other, err := h.engine(h.file).Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Send(h.ctx, UserInput{Text: "from elsewhere", At: at(5)}, &Scripted{Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	edited := parseFile(t, replaySrc+"\n  - id: extra\n    text: Extra.\n    when: everyNTurns(2)\n")
	opened, err := h.engine(edited).Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	reopened, err := h.engine(edited).Reopen(h.ctx, h.s)
	if err != nil {
		t.Fatal(err)
	}
	if reopened.Branch() != opened.Branch() || reopened.TurnCount() != 5 || reopened.Head() != opened.Head() ||
		reopened.Usage() != opened.Usage() || !reflect.DeepEqual(reopened.Chat(), opened.Chat()) {
		t.Fatalf("reopened: branch %s, %d turns, head %s; want %s, 5, %s", reopened.Branch(), reopened.TurnCount(), reopened.Head(),
			opened.Branch(), opened.Head())
	}
	if len(reopened.Messages()) != len(opened.Messages()) {
		t.Fatalf("reopened has %d messages, want %d", len(reopened.Messages()), len(opened.Messages()))
	}
	for i, m := range reopened.Messages() {
		if !reflect.DeepEqual(*m, *opened.Messages()[i]) {
			t.Errorf("message %d differs", i)
		}
	}
	in := UserInput{Text: "the next one", At: at(6)}
	a, b := opened.Preview(in), reopened.Preview(in)
	ja, _ := json.Marshal([]any{a.Request, a.Decisions, a.SystemPrompt, a.Estimate})
	jb, _ := json.Marshal([]any{b.Request, b.Decisions, b.SystemPrompt, b.Estimate})
	if string(ja) != string(jb) {
		t.Errorf("the next turn's preview differs:\nopened   %s\nreopened %s", ja, jb)
	}
	if _, err := h.engine(edited).Reopen(h.ctx, h.engine(h.file).Start(opened.Chat())); err == nil {
		t.Error("a session not saved was reopened")
	}
}
