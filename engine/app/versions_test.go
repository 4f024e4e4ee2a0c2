package app

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func TestChatVersionsAndCheckpoints(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	file := loadFile(t)
	s, err := w.Settings(file, true)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewChat(s, e, nil)
	if cps, err := c.Checkpoints(ctx); err != nil || cps != nil {
		t.Errorf("before saving: got checkpoints %v, %v, want none", cps, err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := c.SendScripted(ctx, fmt.Sprintf("q%d", i), fmt.Sprintf("a%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	reply := "a2 again"
	if _, err := c.RegenerateTurn(ctx, 2, &reply, nil); err != nil {
		t.Fatal(err)
	}
	if b := c.Session().Branch(); b != "main-v2" || c.Session().TurnCount() != 2 {
		t.Errorf("got branch %s with %d turns, want main-v2 with 2", b, c.Session().TurnCount())
	}
	if _, err := c.RegenerateTurn(ctx, 2, nil, nil); err != ErrNoServer {
		t.Errorf("regenerate with no model and no reply: got %v, want ErrNoServer", err)
	}
	vs, at, err := c.Versions(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || at != 1 || vs[0].Branch != "main" || vs[1].Branch != "main-v2" {
		t.Errorf("got versions %+v at %d, want main then main-v2 (active)", vs, at)
	}
	if err := c.Checkpoint(ctx, "good"); err != nil {
		t.Fatal(err)
	}
	cps, err := c.Checkpoints(ctx)
	if err != nil || len(cps) != 1 || cps[0].Name != "good" || cps[0].MessageID != c.Session().Head() {
		t.Errorf("got checkpoints %+v, %v, want good at the head", cps, err)
	}
}

// BenchmarkSwitchVersion: a 10,000-message chat whose last turn was regenerated; each
// iteration asks for the versions of that turn and switches to the other one (what `left`
// and `right` do in the workbench before drawing the next frame). Target: under 20 ms
// with the frame (tui's BenchmarkSwitchVersionFrame).
func BenchmarkSwitchVersion(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	w, err := Open(ctx, Options{DB: filepath.Join(dir, "ctxlab.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	c := benchForkedChat(b, w)
	n := c.Session().TurnCount()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		vs, at, err := c.Versions(ctx, n)
		if err != nil || len(vs) != 2 {
			b.Fatalf("got %d versions, %v", len(vs), err)
		}
		if err := c.Switch(ctx, vs[1-at].Branch); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(t0); d > 20*time.Millisecond {
			b.Logf("versions and switch took %v", d)
		}
	}
}

// benchForkedChat makes a scripted chat of 5,000 turns (10,000 messages) in w whose last
// turn is regenerated (on main-v2, active).
func benchForkedChat(b *testing.B, w *Workspace) *Chat {
	ctx := context.Background()
	file, err := loadPath("../../testdata/demo/support.ctx.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := w.Settings(file, true)
	if err != nil {
		b.Fatal(err)
	}
	e, err := w.Engine(file, s)
	if err != nil {
		b.Fatal(err)
	}
	c := w.NewChat(s, e, nil)
	for i := range 5000 {
		if _, err := c.SendScripted(ctx, fmt.Sprintf("message %d", i), "a reply", nil); err != nil {
			b.Fatal(err)
		}
	}
	reply := "another reply"
	if _, err := c.RegenerateTurn(ctx, 5000, &reply, nil); err != nil {
		b.Fatal(err)
	}
	return c
}
