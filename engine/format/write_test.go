package format_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

// The store is what the commands read from and write to.
var (
	_ format.Source   = (*store.DB)(nil)
	_ format.Importer = (*store.DB)(nil)
)

// fakeSource is a Source over one chat, recording the reads made of it.
type fakeSource struct {
	a     chat.Archive
	reads []string
}

func (f *fakeSource) ExportChat(_ context.Context, id string) (chat.Archive, error) {
	f.reads = append(f.reads, "ExportChat")
	return f.a, nil
}

func (f *fakeSource) Load(_ context.Context, id, branch string, detail chat.Detail) (chat.Snapshot, error) {
	f.reads = append(f.reads, "Load "+map[chat.Detail]string{chat.DetailLight: "light", chat.DetailStats: "stats"}[detail])
	return chat.Snapshot{Chat: f.a.Chat, Branch: chat.BranchInfo{Branch: f.a.Branches[0]}, Messages: f.a.Messages, Turns: f.a.Turns}, nil
}

func (f *fakeSource) Branches(context.Context, string) ([]chat.BranchInfo, error) {
	f.reads = append(f.reads, "Branches")
	return []chat.BranchInfo{{Branch: f.a.Branches[0]}}, nil
}

func (f *fakeSource) Checkpoints(context.Context, string) ([]chat.Checkpoint, error) {
	f.reads = append(f.reads, "Checkpoints")
	return nil, nil
}

func (f *fakeSource) Turn(_ context.Context, _, id string) (chat.Turn, error) {
	f.reads = append(f.reads, "Turn "+id)
	t := f.a.Turns[len(f.a.Turns)-1]
	t.Request.SystemPrompt = "<role>helper</role>"
	return t, nil
}

func fakeChat() chat.Archive {
	u := chat.Message{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("hello")}, CreatedAt: t0}
	a := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, Parts: []chat.Part{chat.TextPart("hi")}, CreatedAt: t0}
	return chat.Archive{
		Chat:        chat.Chat{ID: "c1", Title: "Greetings", ActiveBranch: "main", CreatedAt: t0, UpdatedAt: t0},
		Messages:    []chat.Message{u, a},
		Branches:    []chat.Branch{{Name: "main", Head: "a1", CreatedAt: t0}},
		Checkpoints: []chat.Checkpoint{},
		Turns:       []chat.Turn{{ID: "t1", ChatID: "c1", Branch: "main", Number: 1, UserMessageID: "u1", AssistantMessageID: "a1", At: t0}},
	}
}

func TestWriteChat(t *testing.T) {
	tests := []struct {
		format string
		reads  string // the reads WriteChat makes, in order
		want   string // in what it writes
	}{
		{format.JSON, "ExportChat", `"format": "ctxlab-chat"`},
		{format.Markdown, "Load stats, Branches, Checkpoints", "# Greetings"},
		{format.OpenAI, "Load light, Turn t1", "\"role\": \"system\",\n    \"content\": \"<role>helper</role>\""},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			if err := format.CheckFormat(tc.format); err != nil {
				t.Errorf("CheckFormat: %v", err)
			}
			src := &fakeSource{a: fakeChat()}
			var b bytes.Buffer
			if err := format.WriteChat(ctx, &b, tc.format, src, "c1"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(src.reads, ", "); got != tc.reads {
				t.Errorf("reads: got %q, want %q", got, tc.reads)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("got %s, want it to hold %s", b.String(), tc.want)
			}
		})
	}
}

func TestWriteChatUnknownFormat(t *testing.T) {
	const want = `unknown format "yaml" (want json, markdown or openai)`
	var uf *format.UnknownFormatError
	if err := format.CheckFormat("yaml"); !errors.As(err, &uf) || err.Error() != want {
		t.Errorf("CheckFormat: got %v, want %s", err, want)
	}
	src := &fakeSource{a: fakeChat()}
	if err := format.WriteChat(ctx, &bytes.Buffer{}, "yaml", src, "c1"); !errors.As(err, &uf) || len(src.reads) != 0 {
		t.Errorf("WriteChat: got %v after reads %v, want an *UnknownFormatError and no read", err, src.reads)
	}
}
