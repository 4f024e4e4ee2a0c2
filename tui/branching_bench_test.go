package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
)

// BenchmarkSwitchVersion: on a 10,000-message chat (SQLite in memory) whose last turn was regenerated, the
// left/right key on that turn: the switch to the other version (the Cmd), the load of the
// branch it starts, and the next full frame at 160x50. The traces of the branch are read
// after that frame (not timed). The median is reported as median-ms; the issue asks
// under 20 ms.
func BenchmarkSwitchVersion(b *testing.B) {
	v := newEnv(b)
	c := v.chat(b, "", nil).(*ctxapp.Chat) // on SQLite, as the workbench runs
	ctx := context.Background()
	for i := range 5000 {
		if _, err := c.SendScripted(ctx, fmt.Sprintf("question %d about the schema", i), "A reply with **Markdown**.", nil); err != nil {
			b.Fatal(err)
		}
	}
	reply := "Another reply."
	if _, err := c.RegenerateTurn(ctx, 5000, &reply, nil); err != nil {
		b.Fatal(err)
	}
	m := newModel(b, v, c, 160, 50, Options{})
	selectTurn(m, 5000)
	m.View()
	if m.tr.versions[m.tr.Item(4999).user.ID] != "‹2/2›" {
		b.Fatalf("the last turn is not marked ‹2/2›: %q", m.tr.versions)
	}
	keys := []string{"left", "right"}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		_, cmd := m.Update(keyMsg(keys[i%2]))
		_, cmd = m.Update(cmd()) // the switch and the read of the branch
		m.View()
		times = append(times, time.Since(start))
		b.StopTimer()
		drive(m, cmd) // the traces and versions, read after the frame
		if want := []string{"main", "main-v2"}[i%2]; m.branch != want {
			b.Fatalf("on branch %s, want %s", m.branch, want)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(median(times).Microseconds())/1000, "median-ms")
}
