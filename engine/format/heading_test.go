package format

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestDemoteHeadings(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"level 1", "# Title\ntext", "### Title\ntext"},
		{"level 2", "## Sub", "#### Sub"},
		{"level 3", "### Third", "##### Third"},
		{"level 4 to 6", "#### Four", "###### Four"},
		{"level 5 to 6", "##### Five", "###### Five"},
		{"level 6 stays", "###### Six", "###### Six"},
		{"seven is no heading", "####### Seven", "####### Seven"},
		{"a hashtag is no heading", "#hashtag and #another", "#hashtag and #another"},
		{"a hash mid-line", "issue #12 is fixed", "issue #12 is fixed"},
		{"empty heading", "#\n##", "###\n####"},
		{"a tab after the hashes", "#\tTabbed", "###\tTabbed"},
		{"closing hashes", "## Title ##", "#### Title ##"},
		{"three spaces", "   # Indented", "   ### Indented"},
		{"four spaces: code", "    # code", "    # code"},
		{"a tab: code", "\t# code", "\t# code"},
		{"four spaces after a paragraph", "text\n    # more text", "text\n    # more text"},
		{"CRLF", "# Title\r\nmore\r\n", "### Title\r\nmore\r\n"},
		{"backtick fence", "```go\n# not a heading\n```\n# Heading", "```go\n# not a heading\n```\n### Heading"},
		{"tilde fence", "~~~\n# not\n---\n~~~\n# Heading", "~~~\n# not\n---\n~~~\n### Heading"},
		{"tilde fence, backticks inside", "~~~\n```\n# not\n~~~\n# Heading", "~~~\n```\n# not\n~~~\n### Heading"},
		{"nested fences", "````md\n```\n# not\n```\n# still not\n````\n# Heading",
			"````md\n```\n# not\n```\n# still not\n````\n### Heading"},
		{"a longer closing fence", "```\n# not\n`````\n# Heading", "```\n# not\n`````\n### Heading"},
		{"a fence never closed", "```\n# not\nText\n===", "```\n# not\nText\n==="},
		{"a fence closed with text after it is not closed", "```\n# not\n``` x\n# still not", "```\n# not\n``` x\n# still not"},
		{"backticks in the info string: no fence", "``` a`b\n# Heading", "``` a`b\n### Heading"},
		{"setext level 1", "Title\n=====\ntext", "### Title\ntext"},
		{"setext level 2", "Sub\n---", "#### Sub"},
		{"setext of two lines", "one\n  two\n===", "### one two"},
		{"setext, one dash", "Sub\n-", "#### Sub"},
		{"setext with trailing blanks", "Sub\n---  ", "#### Sub"},
		{"four spaces before the underline", "Title\n    ===", "Title\n    ==="},
		{"a thematic break after a blank", "text\n\n---\nmore", "text\n\n---\nmore"},
		{"a thematic break first", "---\ntext", "---\ntext"},
		{"spaced dashes after a paragraph", "text\n- - -", "text\n- - -"},
		{"equals alone", "===\ntext", "===\ntext"},
		{"a list item then dashes", "- item\n---", "- item\n---"},
		{"a list item, lazy line, equals", "1. item\nmore\n===", "1. item\nmore\n==="},
		{"a heading after a list", "- item\n# Heading", "- item\n### Heading"},
		{"a heading in a list item is left", "- # In a list", "- # In a list"},
		{"indented code, then equals", "\n    code\n===", "\n    code\n==="},
		{"block quote", "> # Quoted\n> text", "> ### Quoted\n> text"},
		{"block quote setext", "> Title\n> ===", "> ### Title"},
		{"nested block quote", ">> ## Deep", ">> #### Deep"},
		{"a fence in a block quote ends with it", "> ```\n> # not\n# Heading", "> ```\n> # not\n### Heading"},
		{"a fence across quote and no quote", "```\n> # not\n```", "```\n> # not\n```"},
		{"no heading at all", "plain text\nwith lines", "plain text\nwith lines"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := demoteHeadings(tt.in); got != tt.want {
				t.Errorf("demoteHeadings(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// outlineRe matches a level 1 or 2 ATX heading, or a setext underline.
var outlineRe = regexp.MustCompile(`^ {0,3}(#{1,2}([ \t]|$)|=+[ \t]*$|-+[ \t]*$)`)

// TestMarkdownOutline: headings in a system prompt, a user message, a reminder and a reply
// stay below the transcript's own: its only headings of level 1 and 2 are the title, the
// system prompt's and the turns'.
func TestMarkdownOutline(t *testing.T) {
	reply := "# Answer\n\nIntro.\n\nDetails\n-------\n\n```md\n# a comment in code\n```\n\n###### Fine print"
	reminder := tagged("## Role\nBe brief.")
	u := chat.Message{ID: "u1", Role: chat.RoleUser, CreatedAt: t0,
		Parts:     []chat.Part{chat.TextPart("Question\n========\nwhy?" + reminder)},
		Reminders: []chat.ReminderSpan{{ID: "role", Part: 0, Start: len("Question\n========\nwhy?"), End: len("Question\n========\nwhy?") + len(reminder)}}}
	a := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, CreatedAt: t0, Parts: []chat.Part{chat.TextPart(reply)}}
	in := Input{Chat: chat.Chat{ID: "c", Title: "Headings", ActiveBranch: "main",
		Metadata: map[string]any{MetaSystemPrompt: "## Role\nYou are terse.\n\n## Hint\nBe kind."}},
		Messages: ptrs([]chat.Message{u, a}),
		Turns:    []chat.Turn{{ID: "t1", Number: 1, UserMessageID: "u1", AssistantMessageID: "a1", FinishReason: "stop"}}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, in); err != nil {
		t.Fatal(err)
	}
	var outline []string
	inFence := false
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if !inFence && outlineRe.MatchString(l) {
			outline = append(outline, l)
		}
	}
	want := []string{"# Headings", "## System prompt", "## Turn 1 · 2026-03-27 14:30:00 UTC"}
	if strings.Join(outline, "\n") != strings.Join(want, "\n") {
		t.Errorf("the transcript's outline:\n%s\nwant:\n%s", strings.Join(outline, "\n"), strings.Join(want, "\n"))
	}
	golden(t, "headings.md", b.Bytes())
}
