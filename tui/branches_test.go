package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestBranchOrder(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 27, 14, m, 0, 0, time.UTC) }
	b := func(name, parent string, m int) chat.BranchInfo {
		return chat.BranchInfo{Branch: chat.Branch{Name: name, Parent: parent, CreatedAt: at(m)}}
	}
	tests := []struct {
		name string
		in   []chat.BranchInfo
		want string // guide+name per branch, then | and the detail guides
	}{
		{name: "one", in: []chat.BranchInfo{b("main", "", 0)}, want: "main|  "},
		{name: "children by creation time, then name", in: []chat.BranchInfo{b("z", "main", 1), b("main", "", 0), b("b", "main", 2), b("a", "main", 2)},
			want: "main|│ ,├ z|│   ,├ a|│   ,└ b|    "},
		{name: "grandchildren keep the guide of their parent's siblings",
			in:   []chat.BranchInfo{b("main", "", 0), b("v2", "main", 1), b("v2-v2", "v2", 2), b("v3", "main", 3)},
			want: "main|│ ,├ v2|│ │ ,│ └ v2-v2|│     ,└ v3|    "},
		{name: "a parent not in the list: a root", in: []chat.BranchInfo{b("main", "", 0), b("orphan", "gone", 1)},
			want: "main|  ,orphan|  "},
		{name: "a cycle of parents is listed, once each", in: []chat.BranchInfo{b("a", "b", 0), b("b", "a", 1)},
			want: "a|│ ,└ b|    "},
		{name: "its own parent", in: []chat.BranchInfo{b("main", "main", 0)}, want: "main|  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tb := range branchOrder(tt.in) {
				got = append(got, tb.guide+tb.Name+"|"+tb.detail)
			}
			if g := strings.Join(got, ","); g != tt.want {
				t.Errorf("got  %q\nwant %q", g, tt.want)
			}
		})
	}
}

func TestCountNounES(t *testing.T) {
	for n, want := range map[int]string{0: "0 branches", 1: "1 branch", 3: "3 branches"} {
		if got := countNounES(n, "branch"); got != want {
			t.Errorf("countNounES(%d) = %q, want %q", n, got, want)
		}
	}
}
