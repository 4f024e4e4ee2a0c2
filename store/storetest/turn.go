package storetest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TurnStart is the clock of the turns TurnCommit makes: turn n is n minutes after it.
var TurnStart = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)

// TurnCommit returns the commit of turn n of chat chatID on branch, from head: a user
// message with text (ids CHAT TAG-uN), a reply (-aN) and its turn record (-tN) with a
// request, a fired reminder, decisions, reported and estimated usage, latencies and the
// response to its one request, as the tests of the store and of the file formats write
// them. tag makes the ids of several
// writers of one chat distinct.
func TurnCommit(chatID, tag string, n int, branch, head, text string, decisions json.RawMessage) chat.Commit {
	at := TurnStart.Add(time.Duration(n) * time.Minute)
	u := chat.Message{ID: fmt.Sprintf("%s%s-u%d", chatID, tag, n), ParentID: head, Role: chat.RoleUser,
		Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: at, Locale: &chat.Locale{Language: "English", TimeZone: "UTC"}}
	a := chat.Message{ID: fmt.Sprintf("%s%s-a%d", chatID, tag, n), ParentID: u.ID, Role: chat.RoleAssistant,
		Parts: []chat.Part{chat.TextPart("reply to " + text)}, CreatedAt: at.Add(time.Second)}
	rep := chat.Usage{PromptTokens: 100 + n, CompletionTokens: 10}
	tr := chat.Turn{ID: fmt.Sprintf("%s%s-t%d", chatID, tag, n), Branch: branch, Number: n,
		UserMessageID: u.ID, AssistantMessageID: a.ID, At: at,
		Request:   chat.SentRequest{Model: "scripted", SystemPrompt: "<role>helper</role>"},
		Fired:     []chat.Fired{{ID: "concise", Latches: []string{"concise"}}},
		Decisions: decisions, Reported: &rep, Estimated: chat.Usage{PromptTokens: 99, CompletionTokens: 9},
		TTFT: 120 * time.Millisecond, Latency: 450 * time.Millisecond, FinishReason: "stop",
		Responses: []chat.Response{{FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 100 + n, CompletionTokens: 10, TotalTokens: 110 + n},
			EstimatedPrompt: 99, TTFT: 120 * time.Millisecond, Latency: 450 * time.Millisecond}}}
	return chat.Commit{ChatID: chatID, Branch: branch, ExpectHead: head, NewHead: a.ID,
		Messages: []chat.Message{u, a}, Turns: []chat.Turn{tr}}
}
