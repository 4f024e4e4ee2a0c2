package engine

import (
	"reflect"
	"testing"
)

// versionSummary writes each version as its branch, with * on the active one.
func versionSummary(vs []Version, at int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Branch
		if v.Current {
			out[i] += "*"
		}
		if v.Current != (i == at) {
			out[i] += "!at"
		}
	}
	return out
}

func TestVersions(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	h.sendN(3)
	// Turn 2 edited (main-v2), then turn 2 of main regenerated (main-v3) from main.
	if _, err := h.s.Edit(h.ctx, 2, UserInput{Text: "edited", At: at(4)}, &Scripted{Text: "reply"}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	res, err := h.s.RegenerateTurn(h.ctx, 2, &Scripted{Text: "again"}, at(5))
	if err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v3" || h.s.TurnCount() != 2 || res.Turn.Number != 2 {
		t.Fatalf("got branch %s with %d turns (turn %d), want main-v3 ending at turn 2", h.s.Branch(), h.s.TurnCount(), res.Turn.Number)
	}
	if got, want := pathTexts(h.s), []string{"u:turn 1", "a:ok", "u:turn 2", "a:again"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got path %q, want %q", got, want)
	}
	// A rewind of main at turn 1 holds no version of turn 2; of turn 1 it is the same.
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Rewind(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		branch string
		turn   int
		want   []string
	}{
		{"main", 2, []string{"main*", "main-v2", "main-v3"}},
		{"main-v2", 2, []string{"main", "main-v2*", "main-v3"}},
		{"main-v3", 2, []string{"main", "main-v2", "main-v3*"}},
		{"main", 1, []string{"main*"}},
		{"main", 3, []string{"main*"}},
	}
	for _, tt := range tests {
		if err := h.s.Switch(h.ctx, tt.branch); err != nil {
			t.Fatal(err)
		}
		vs, at, err := h.s.Versions(h.ctx, tt.turn)
		if err != nil {
			t.Fatal(err)
		}
		if got := versionSummary(vs, at); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s turn %d: got versions %q, want %q", tt.branch, tt.turn, got, tt.want)
		}
	}
	all, err := h.s.AllVersions(h.ctx)
	if err != nil || len(all) != 1 || len(all[2]) != 3 {
		t.Errorf("got all versions %v, %v, want turn 2's three", all, err)
	}
	if _, _, err := h.s.Versions(h.ctx, 9); err == nil {
		t.Error("versions of turn 9: got no error")
	}
}

func TestRegenerateTurnErrors(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	h.sendN(2)
	if _, err := h.s.RegenerateTurn(h.ctx, 5, &Scripted{Text: "x"}, at(3)); err == nil {
		t.Error("turn 5: got no error")
	}
	if h.s.Branch() != "main" || h.s.TurnCount() != 2 {
		t.Errorf("after a failed regenerate: branch %s with %d turns, want main with 2", h.s.Branch(), h.s.TurnCount())
	}
}

func TestCheckpointTurn(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	h.sendN(3)
	if err := h.s.CheckpointTurn(h.ctx, 2, "mid"); err != nil {
		t.Fatal(err)
	}
	if err := h.s.CheckpointTurn(h.ctx, 2, "bad\x01name"); err == nil {
		t.Error("a name with a control character: got no error")
	}
	if err := h.s.Restore(h.ctx, "mid"); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2" || h.s.TurnCount() != 2 {
		t.Errorf("restored: got branch %s with %d turns, want main-v2 with 2", h.s.Branch(), h.s.TurnCount())
	}
}
