package app

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// benchLongChat commits turns scripted turns (2*turns messages) under the demo context into
// a database file, and returns the file, the context file and the chat's id.
func benchLongChat(b *testing.B, turns int) (db string, file *ctxfile.File, id string) {
	b.Helper()
	ctx := context.Background()
	db = filepath.Join(b.TempDir(), "long.db")
	clock := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	w, err := Open(ctx, Options{DB: db, Now: func() time.Time { return clock }})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if file, err = ctxfile.Load("../../testdata/demo/support.ctx.yaml"); err != nil {
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
	for i := range turns {
		reply := fmt.Sprintf("Reply %d: the table has %d rows.\n\n- first point\n- second point\n\n```sql\nselect count(*) from t%d;\n```", i, i*7, i)
		if _, err := c.SendScripted(ctx, fmt.Sprintf("question %d about the schema", i), reply, nil); err != nil {
			b.Fatal(err)
		}
	}
	return db, file, c.ID()
}

// BenchmarkOpenChat10k times each step of opening a saved 10,000-message chat as the
// workbench does before its first frame: the context file (the demo's, with its skills),
// the database (Open, which checks the migrations), the settings and the engine, and the chat (OpenChat: its active branch's
// path and light turn records); then what it reads after the first frame: the light
// traces of every turn (LightTraces), and the detail of the last turn (TurnDetail: its
// decisions and loop requests), which the inspector shows first.
func BenchmarkOpenChat10k(b *testing.B) {
	db, file, id := benchLongChat(b, 5000)
	ctx := context.Background()
	var load, open, engine, chat, light, detail time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := ctxfile.Load("../../testdata/demo/support.ctx.yaml"); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		w, err := Open(ctx, Options{DB: db})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		s, err := w.Settings(file, false)
		if err != nil {
			b.Fatal(err)
		}
		e, err := w.Engine(file, s)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		c, err := w.OpenChat(ctx, s, e, nil, id)
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		traces, err := c.LightTraces(ctx)
		if err != nil || len(traces) != 5000 {
			b.Fatalf("got %d light traces, %v, want 5000", len(traces), err)
		}
		t4 := time.Now()
		d, err := c.TurnDetail(ctx, &traces[len(traces)-1])
		if err != nil || len(d.Decisions) == 0 {
			b.Fatalf("the last turn's detail: %d decisions, %v", len(d.Decisions), err)
		}
		t5 := time.Now()
		load += start.Sub(t0)
		open, engine, chat, light, detail = open+t1.Sub(start), engine+t2.Sub(t1), chat+t3.Sub(t2), light+t4.Sub(t3), detail+t5.Sub(t4)
		w.Close()
	}
	n := float64(b.N) * float64(time.Millisecond)
	b.ReportMetric(float64(load)/n, "context-ms")
	b.ReportMetric(float64(open)/n, "open-ms")
	b.ReportMetric(float64(engine)/n, "engine-ms")
	b.ReportMetric(float64(chat)/n, "chat-ms")
	b.ReportMetric(float64(light)/n, "light-traces-ms")
	b.ReportMetric(float64(detail)/n, "detail-ms")
}
