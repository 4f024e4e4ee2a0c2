package store_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// linearChat is an export of a chat "grow" with one branch of n turns, each with the
// decisions of 200 reminders.
func linearChat(n int) format.Export {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := format.NewExport(chat.Archive{Chat: chat.Chat{ID: "grow", Title: "grow", ActiveBranch: "main", CreatedAt: at, UpdatedAt: at}})
	decisions := bigDecisions(200)
	text := strings.Repeat("Some words of a message about deployments and reports. ", 4)
	parent := ""
	for i := 1; i <= n; i++ {
		u := chat.Message{ID: fmt.Sprintf("u%d", i), ParentID: parent, Role: chat.RoleUser,
			Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: at.Add(time.Duration(i) * time.Second)}
		a := chat.Message{ID: fmt.Sprintf("a%d", i), ParentID: u.ID, Role: chat.RoleAssistant,
			Parts: []chat.Part{chat.TextPart(text + text)}, CreatedAt: u.CreatedAt}
		e.Messages = append(e.Messages, u, a)
		e.Turns = append(e.Turns, chat.Turn{ID: fmt.Sprintf("t%d", i), ChatID: "grow", Branch: "main", Number: i,
			UserMessageID: u.ID, AssistantMessageID: a.ID, At: u.CreatedAt,
			Request:   chat.SentRequest{Model: "scripted", SystemPrompt: strings.Repeat("<role>You help.</role>\n", 40)},
			Fired:     []chat.Fired{{ID: "concise"}},
			Decisions: decisions, Estimated: chat.Usage{PromptTokens: 100, CompletionTokens: 20}})
		parent = a.ID
	}
	e.Branches = []chat.Branch{{Name: "main", Head: parent, CreatedAt: at}}
	return e
}

// BenchmarkCommitGrowth commits the next turn of a chat that has 100 turns, and of one
// that has 5,000, into a file database (200 reminders' decisions a turn). Each op appends
// one more turn; compare median-ms, which should stay within 20% (what grows is the depth
// of the b-trees; with the decision lists packed the file holds about 70 MB at turn
// 5,000, not 600).
//
//	go test ./store -run '^$' -bench CommitGrowth -benchtime 300x
func BenchmarkCommitGrowth(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprintf("turn=%d", n), func(b *testing.B) {
			db, err := store.Open(filepath.Join(b.TempDir(), "grow.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if err := format.ImportChat(ctx, db, linearChat(n)); err != nil {
				b.Fatal(err)
			}
			decisions := bigDecisions(200)
			head := fmt.Sprintf("a%d", n)
			times := make([]time.Duration, 0, b.N)
			k := n
			for b.Loop() {
				k++
				c := storetest.TurnCommit("grow", "", k, "main", head, "a user message of ordinary length, asking about the quarterly report", decisions)
				start := time.Now()
				if err := db.Commit(ctx, c); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				head = c.NewHead
			}
			reportQuantiles(b, times)
		})
	}
}
