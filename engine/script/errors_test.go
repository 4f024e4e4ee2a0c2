package script

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// errorCases are scripts with the exact errors they must produce, in file order.
var errorCases = []struct {
	name string
	yaml string
	want []string
}{
	{
		name: "empty script",
		yaml: ``,
		want: []string{`s.yaml:1:1: the script is empty; it needs turns`},
	},
	{
		name: "no turns",
		yaml: `context: ./a.ctx.yaml
`,
		want: []string{`s.yaml:1:1: the script needs turns`},
	},
	{
		name: "empty turns",
		yaml: `context: ./a.ctx.yaml
turns: []
`,
		want: []string{`s.yaml:2:8: the script needs turns: turns is empty`},
	},
	{
		name: "turns not a list",
		yaml: `turns: {user: hi}
`,
		want: []string{`s.yaml:1:8: turns must be a list, found a mapping`},
	},
	{
		name: "script is a list",
		yaml: `- user: hi
`,
		want: []string{`s.yaml:1:1: the script must be a mapping, found a list`},
	},
	{
		name: "unknown top-level key",
		yaml: `context: x
turn:
  - user: hi
`,
		want: []string{
			`s.yaml:1:1: the script needs turns`,
			`s.yaml:2:1: unknown key "turn" in the script; did you mean turns?`,
		},
	},
	{
		name: "unknown step key",
		yaml: `turns:
  - user: hi
    asistant: hello
`,
		want: []string{`s.yaml:3:5: unknown key "asistant" in a user step; did you mean assistant?`},
	},
	{
		name: "unknown key beside checkpoint",
		yaml: `turns:
  - checkpoint: a
    at: 2026-03-27T14:30:00Z
`,
		want: []string{`s.yaml:3:5: unknown key "at" in a checkpoint step (allowed: checkpoint)`},
	},
	{
		name: "unknown assistant key",
		yaml: `turns:
  - user: hi
    assistant: {txt: hello}
`,
		want: []string{`s.yaml:3:17: unknown key "txt" in assistant; did you mean text?`},
	},
	{
		name: "unknown tool call key",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: t, output: x, result: y}
`,
		want: []string{`s.yaml:5:32: unknown key "result" in tool call (known keys: error, input, name, output)`},
	},
	{
		name: "unknown usage key",
		yaml: `turns:
  - user: hi
    assistant: hello
    usage: {prompt: 3}
`,
		want: []string{`s.yaml:4:13: unknown key "prompt" in usage; did you mean prompt_tokens?`},
	},
	{
		name: "unknown locale key",
		yaml: `turns:
  - user: hi
    locale: {lang: en}
`,
		want: []string{`s.yaml:3:14: unknown key "lang" in locale; did you mean language?`},
	},
	{
		name: "unknown chat key",
		yaml: `chat: {id: a, name: b}
turns:
  - user: hi
`,
		want: []string{`s.yaml:1:15: unknown key "name" in chat (known keys: id, metadata, title)`},
	},
	{
		name: "unknown edit key",
		yaml: `turns:
  - edit: {turn: 1, user: x, text: y}
`,
		want: []string{`s.yaml:2:30: unknown key "text" in edit (known keys: assistant, at, locale, turn, usage, user)`},
	},
	{
		name: "unknown rewind key",
		yaml: `turns:
  - rewind: {turn: 1, branch: main}
`,
		want: []string{`s.yaml:2:23: unknown key "branch" in rewind (known keys: turn)`},
	},
	{
		name: "unknown regenerate key",
		yaml: `turns:
  - regenerate: {asistant: x}
`,
		want: []string{`s.yaml:2:18: unknown key "asistant" in regenerate; did you mean assistant?`},
	},
	{
		name: "two kinds",
		yaml: `turns:
  - user: hi
    checkpoint: a
`,
		want: []string{`s.yaml:2:5: a turn takes one of user, edit, regenerate, checkpoint, restore, switch, rewind, found user and checkpoint`},
	},
	{
		name: "no kind",
		yaml: `turns:
  - assistant: hello
`,
		want: []string{`s.yaml:2:5: a turn needs one of user, edit, regenerate, checkpoint, restore, switch, rewind`},
	},
	{
		name: "no kind unknown key",
		yaml: `turns:
  - usr: hi
`,
		want: []string{`s.yaml:2:5: unknown key "usr" in a turn step; did you mean user?`},
	},
	{
		name: "step not a mapping",
		yaml: `turns:
  - hello
`,
		want: []string{`s.yaml:2:5: a turn must be a mapping, found a string`},
	},
	{
		name: "user null",
		yaml: `turns:
  - user:
`,
		want: []string{`s.yaml:2:5: user must be a string, found null`},
	},
	{
		name: "user list",
		yaml: `turns:
  - user: [a]
`,
		want: []string{`s.yaml:2:11: user must be a string, found a list`},
	},
	{
		name: "checkpoint without name",
		yaml: `turns:
  - checkpoint:
`,
		want: []string{`s.yaml:2:5: checkpoint needs a name`},
	},
	{
		name: "checkpoint empty name",
		yaml: `turns:
  - checkpoint: ""
`,
		want: []string{`s.yaml:2:17: checkpoint needs a name`},
	},
	{
		name: "restore without name",
		yaml: `turns:
  - restore:
`,
		want: []string{`s.yaml:2:5: restore needs a name`},
	},
	{
		name: "switch list",
		yaml: `turns:
  - switch: [a]
`,
		want: []string{`s.yaml:2:13: switch must be a string, found a list`},
	},
	{
		name: "edit null",
		yaml: `turns:
  - edit:
`,
		want: []string{`s.yaml:2:5: edit needs {turn: N, user: TEXT}`},
	},
	{
		name: "edit without turn",
		yaml: `turns:
  - edit: {user: x}
`,
		want: []string{`s.yaml:2:11: edit needs a turn number (turn: N)`},
	},
	{
		name: "edit without user",
		yaml: `turns:
  - edit: {turn: 1}
`,
		want: []string{`s.yaml:2:11: edit needs the new user text (user: …)`},
	},
	{
		name: "edit turn 0",
		yaml: `turns:
  - edit: {turn: 0, user: x}
`,
		want: []string{`s.yaml:2:18: edit turn must be 1 or more, found 0`},
	},
	{
		name: "edit turn string",
		yaml: `turns:
  - edit: {turn: one, user: x}
`,
		want: []string{`s.yaml:2:18: edit turn must be an integer, found a string`},
	},
	{
		name: "edit at inside and beside",
		yaml: `turns:
  - edit: {turn: 1, user: x, at: 2026-03-27T14:30:00Z}
    at: 2026-03-27T14:31:00Z
`,
		want: []string{`s.yaml:3:9: at is given both inside edit and beside it`},
	},
	{
		name: "rewind null",
		yaml: `turns:
  - rewind:
`,
		want: []string{`s.yaml:2:5: rewind needs {turn: N}`},
	},
	{
		name: "rewind turn -1",
		yaml: `turns:
  - rewind: {turn: -1}
`,
		want: []string{`s.yaml:2:20: rewind turn must be 1 or more, found -1`},
	},
	{
		name: "rewind not a mapping",
		yaml: `turns:
  - rewind: 2
`,
		want: []string{`s.yaml:2:13: rewind must be a mapping, found an integer`},
	},
	{
		name: "bad at",
		yaml: `turns:
  - user: hi
    at: yesterday
`,
		want: []string{`s.yaml:3:9: at: "yesterday" is not an RFC 3339 time like 2026-03-27T14:30:00Z`},
	},
	{
		name: "bad at number",
		yaml: `turns:
  - user: hi
    at: 12
`,
		want: []string{`s.yaml:3:9: at: "12" is not an RFC 3339 time like 2026-03-27T14:30:00Z`},
	},
	{
		name: "at in edit bad",
		yaml: `turns:
  - edit: {turn: 1, user: x, at: soon}
`,
		want: []string{`s.yaml:2:34: at: "soon" is not an RFC 3339 time like 2026-03-27T14:30:00Z`},
	},
	{
		name: "tool without output or error",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: run_sql, input: {query: select 1}}
`,
		want: []string{`s.yaml:5:11: tool call "run_sql" needs an output or an error`},
	},
	{
		name: "tool with both",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: run_sql, output: x, error: y}
`,
		want: []string{`s.yaml:5:45: tool call "run_sql" has both output and error; give one`},
	},
	{
		name: "tool without name",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {output: x}
`,
		want: []string{`s.yaml:5:11: a tool call needs a name`},
	},
	{
		name: "tool input not a mapping",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: t, input: select 1, output: x}
`,
		want: []string{`s.yaml:5:28: tool input must be a mapping, found a string`},
	},
	{
		name: "tool input nan",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: t, input: {n: .nan}, output: x}
`,
		want: []string{`s.yaml:5:32: tool input: ".nan" has no JSON form`},
	},
	{
		name: "tools not a list",
		yaml: `turns:
  - user: hi
    assistant:
      tools: {name: t}
`,
		want: []string{`s.yaml:4:14: assistant tools must be a list, found a mapping`},
	},
	{
		name: "reply without text or tools",
		yaml: `turns:
  - user: hi
    assistant: {}
`,
		want: []string{`s.yaml:3:16: a scripted reply needs text or tools`},
	},
	{
		name: "assistant list",
		yaml: `turns:
  - user: hi
    assistant: [a]
`,
		want: []string{`s.yaml:3:16: assistant must be the reply text or a mapping with text and tools, found a list`},
	},
	{
		name: "usage without assistant",
		yaml: `turns:
  - user: hi
    usage: {prompt_tokens: 3}
`,
		want: []string{`s.yaml:3:12: usage is given without a scripted assistant reply`},
	},
	{
		name: "usage without assistant in edit",
		yaml: `turns:
  - edit: {turn: 1, user: x, usage: {prompt_tokens: 3}}
`,
		want: []string{`s.yaml:2:37: usage is given without a scripted assistant reply`},
	},
	{
		name: "usage without assistant in regenerate",
		yaml: `turns:
  - regenerate: {usage: {prompt_tokens: 3}}
`,
		want: []string{`s.yaml:2:25: usage is given without a scripted assistant reply`},
	},
	{
		name: "usage negative",
		yaml: `turns:
  - user: hi
    assistant: x
    usage: {prompt_tokens: -3}
`,
		want: []string{`s.yaml:4:28: usage prompt_tokens must not be negative`},
	},
	{
		name: "usage string",
		yaml: `turns:
  - user: hi
    assistant: x
    usage: {prompt_tokens: many}
`,
		want: []string{`s.yaml:4:28: usage prompt_tokens must be an integer, found a string`},
	},
	{
		name: "usage not a mapping",
		yaml: `turns:
  - user: hi
    assistant: x
    usage: 3
`,
		want: []string{`s.yaml:4:12: usage must be a mapping, found an integer`},
	},
	{
		name: "locale not a mapping",
		yaml: `turns:
  - user: hi
    locale: en
`,
		want: []string{`s.yaml:3:13: locale must be a mapping, found a string`},
	},
	{
		name: "chat id empty",
		yaml: `chat: {id: ""}
turns:
  - user: hi
`,
		want: []string{`s.yaml:1:12: chat id must not be empty`},
	},
	{
		name: "chat title with a control character",
		yaml: `chat: {title: "bell\a"}
turns:
  - user: hi
`,
		want: []string{`s.yaml:1:15: chat title "bell\a": control character`},
	},
	{
		name: "chat metadata list",
		yaml: `chat: {metadata: [a]}
turns:
  - user: hi
`,
		want: []string{`s.yaml:1:18: chat metadata must be a mapping, found a list`},
	},
	{
		name: "context list",
		yaml: `context: [a]
turns:
  - user: hi
`,
		want: []string{`s.yaml:1:10: context must be a string, found a list`},
	},
	{
		name: "yaml error",
		yaml: `turns:
  - user: [hi
`,
		want: []string{`s.yaml:2:11: invalid YAML: sequence end token ']' not found`},
	},
	{
		name: "several in file order",
		yaml: `chat: {name: x}
turns:
  - user: hi
    asistant: x
  - rewind: {turn: 0}
  - checkpoint:
`,
		want: []string{
			`s.yaml:1:8: unknown key "name" in chat (known keys: id, metadata, title)`,
			`s.yaml:4:5: unknown key "asistant" in a user step; did you mean assistant?`,
			`s.yaml:5:20: rewind turn must be 1 or more, found 0`,
			`s.yaml:6:5: checkpoint needs a name`,
		},
	},
	{
		name: "edit not a mapping",
		yaml: `turns:
  - edit: 3
`,
		want: []string{`s.yaml:2:11: edit must be a mapping, found an integer`},
	},
	{
		name: "regenerate at inside and beside",
		yaml: `turns:
  - regenerate: {assistant: x, at: 2026-03-27T14:30:00Z}
    at: 2026-03-27T14:31:00Z
`,
		want: []string{`s.yaml:3:9: at is given both inside regenerate and beside it`},
	},
	{
		name: "edit locale both",
		yaml: `turns:
  - edit: {turn: 1, user: x, locale: {language: en}}
    locale: {language: fr}
`,
		want: []string{`s.yaml:3:13: locale is given both inside edit and beside it`},
	},
	{
		name: "regenerate locale",
		yaml: `turns:
  - regenerate: {}
    locale: {language: fr}
`,
		want: []string{`s.yaml:3:5: unknown key "locale" in a regenerate step (allowed: regenerate, at, assistant, usage)`},
	},
	{
		name: "tool input list",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - {name: t, input: [1], output: x}
`,
		want: []string{`s.yaml:5:28: tool input must be a mapping, found a list`},
	},
	{
		name: "tool call not a mapping",
		yaml: `turns:
  - user: hi
    assistant:
      tools:
        - run_sql
`,
		want: []string{`s.yaml:5:11: tool call must be a mapping, found a string`},
	},
	{
		name: "empty tools no text",
		yaml: `turns:
  - user: hi
    assistant: {tools: []}
`,
		want: []string{`s.yaml:3:16: a scripted reply needs text or tools`},
	},
	{
		// Issue 12 item 5: a reply of 2,000 tool calls failed at the save ("more than 10000
		// parts"); it is refused at the first call past the limit, before anything runs.
		name: "too many tool calls",
		yaml: "turns:\n  - user: hi\n    assistant:\n      tools:\n" +
			strings.Repeat("        - {name: run_sql, output: ok}\n", 2000),
		want: []string{`s.yaml:261:11: too many tool calls: a reply holds at most 256 tool calls`},
	},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("got no error, want\n%s", strings.Join(tt.want, "\n"))
			}
			if s != nil {
				t.Errorf("got a script with the error, want nil")
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("got errors\n%s\nwant\n%s", got, want)
			}
			var one *diag.Error
			var list diag.List
			switch {
			case len(tt.want) == 1 && !errors.As(err, &one):
				t.Errorf("got %T, want *diag.Error", err)
			case len(tt.want) > 1 && !errors.As(err, &list):
				t.Errorf("got %T, want diag.List", err)
			}
		})
	}
}
