package ctxfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// errorCases are context files with the exact errors they must produce, in file order.
// Relative paths resolve against the package folder (the file is "t.ctx.yaml").
var errorCases = []struct {
	name string
	yaml string
	want []string
}{
	{
		name: "unknown top-level key",
		yaml: `version: 1
rendrer: xml
`,
		want: []string{`t.ctx.yaml:2:1: unknown key "rendrer" in the context file; did you mean renderer?`},
	},
	{
		name: "unknown top-level key without suggestion",
		yaml: `zzzzzz: 1
`,
		want: []string{`t.ctx.yaml:1:1: unknown key "zzzzzz" in the context file (known keys: classifiers, explain_reminders, group_fragments, instructions, model, modes, reminder_budget_tokens, reminders, renderer, system, tools, version)`},
	},
	{
		name: "unknown model key",
		yaml: `model: {name: x, temprature: 1}
`,
		want: []string{`t.ctx.yaml:1:18: unknown key "temprature" in model; did you mean temperature?`},
	},
	{
		name: "unknown reminder key",
		yaml: `reminders:
  - id: a
    text: hi
    plcement: inline
`,
		want: []string{`t.ctx.yaml:4:5: unknown key "plcement" in reminder; did you mean placement?`},
	},
	{
		name: "unknown instruction key",
		yaml: `instructions:
  - id: a
    prompt: p
    knd: must
`,
		want: []string{`t.ctx.yaml:4:5: unknown key "knd" in instruction; did you mean kind?`},
	},
	{
		name: "unknown mode key",
		yaml: `modes:
  - name: M
    if: once()
    iff: once()
`,
		want: []string{`t.ctx.yaml:4:5: unknown key "iff" in mode; did you mean if?`},
	},
	{
		name: "unknown tool key",
		yaml: `tools:
  - name: t
    result: r
    params: {}
`,
		want: []string{`t.ctx.yaml:4:5: unknown key "params" in tool; did you mean parameters?`},
	},
	{
		name: "unknown classifier item key",
		yaml: `classifiers:
  topics:
    - {name: a, descr: b}
`,
		want: []string{`t.ctx.yaml:3:17: unknown key "descr" in classifier item; did you mean description?`},
	},
	{
		name: "version string",
		yaml: `version: "1"
`,
		want: []string{`t.ctx.yaml:1:10: version must be an integer, found a string`},
	},
	{
		name: "version 2",
		yaml: `version: 2
`,
		want: []string{`t.ctx.yaml:1:10: unsupported version 2; this ctxlab reads version 1`},
	},
	{
		name: "renderer list",
		yaml: `renderer: [xml]
`,
		want: []string{`t.ctx.yaml:1:11: renderer must be a string, found a list`},
	},
	{
		name: "group_fragments yes",
		yaml: `group_fragments: yes
`,
		want: []string{`t.ctx.yaml:1:18: group_fragments must be true or false, found a string`},
	},
	{
		name: "explain_reminders int",
		yaml: `explain_reminders: 1
`,
		want: []string{`t.ctx.yaml:1:20: explain_reminders must be true or false, found an integer`},
	},
	{
		name: "reminder_budget_tokens string",
		yaml: `reminder_budget_tokens: lots
`,
		want: []string{`t.ctx.yaml:1:25: reminder_budget_tokens must be an integer, found a string`},
	},
	{
		name: "reminder_budget_tokens negative",
		yaml: `reminder_budget_tokens: -5
`,
		want: []string{`t.ctx.yaml:1:25: reminder_budget_tokens must be 0 (no budget) or more, found -5`},
	},
	{
		name: "model string",
		yaml: `model: gpt-4o
`,
		want: []string{`t.ctx.yaml:1:8: model must be a mapping, found a string`},
	},
	{
		name: "model name list",
		yaml: `model: {name: [a]}
`,
		want: []string{`t.ctx.yaml:1:15: model.name must be a string, found a list`},
	},
	{
		name: "model temperature string",
		yaml: `model: {temperature: hot}
`,
		want: []string{`t.ctx.yaml:1:22: model.temperature must be a number, found a string`},
	},
	{
		name: "model temperature out of range",
		yaml: `model: {temperature: 3}
`,
		want: []string{`t.ctx.yaml:1:22: model.temperature must be between 0 and 2, found 3`},
	},
	{
		name: "model top_p out of range",
		yaml: `model: {top_p: 1.5}
`,
		want: []string{`t.ctx.yaml:1:16: model.top_p must be between 0 and 1, found 1.5`},
	},
	{
		name: "model max_tokens float",
		yaml: `model: {max_tokens: 1.5}
`,
		want: []string{`t.ctx.yaml:1:21: model.max_tokens must be an integer, found a number`},
	},
	{
		name: "model max_tokens zero",
		yaml: `model: {max_tokens: 0}
`,
		want: []string{`t.ctx.yaml:1:21: model.max_tokens must be at least 1, found 0`},
	},
	{
		name: "model seed string",
		yaml: `model: {seed: abc}
`,
		want: []string{`t.ctx.yaml:1:15: model.seed must be an integer, found a string`},
	},
	{
		name: "system mapping",
		yaml: `system: {role: x}
`,
		want: []string{`t.ctx.yaml:1:9: system must be a list, found a mapping`},
	},
	{
		name: "classifiers list",
		yaml: `classifiers: [a]
`,
		want: []string{`t.ctx.yaml:1:14: classifiers must be a mapping, found a list`},
	},
	{
		name: "classifier mapping",
		yaml: `classifiers:
  topics: {name: a}
`,
		want: []string{`t.ctx.yaml:2:11: classifier topics must be a list, found a mapping`},
	},
	{
		name: "classifier empty",
		yaml: `classifiers:
  topics: []
`,
		want: []string{`t.ctx.yaml:2:11: classifier "topics" has no items`},
	},
	{
		name: "classifier item string",
		yaml: `classifiers:
  topics:
    - auth
`,
		want: []string{`t.ctx.yaml:3:7: classifier item must be a mapping, found a string`},
	},
	{
		name: "classifier item without name",
		yaml: `classifiers:
  topics:
    - {description: x}
`,
		want: []string{`t.ctx.yaml:3:7: classifier item needs a name`},
	},
	{
		name: "modes mapping",
		yaml: `modes: {name: a}
`,
		want: []string{`t.ctx.yaml:1:8: modes must be a list, found a mapping`},
	},
	{
		name: "mode string",
		yaml: `modes:
  - a
`,
		want: []string{`t.ctx.yaml:2:5: mode must be a mapping, found a string`},
	},
	{
		name: "mode name list",
		yaml: `modes:
  - name: [a]
    if: once()
`,
		want: []string{`t.ctx.yaml:2:11: mode name must be a string, found a list`},
	},
	{
		name: "mode without name",
		yaml: `modes:
  - if: once()
`,
		want: []string{`t.ctx.yaml:2:5: mode needs a name`},
	},
	{
		name: "mode without if",
		yaml: `modes:
  - name: M
`,
		want: []string{`t.ctx.yaml:2:5: mode "M" needs an if condition`},
	},
	{
		name: "instructions string",
		yaml: `instructions: x
`,
		want: []string{`t.ctx.yaml:1:15: instructions must be a list, found a string`},
	},
	{
		name: "instruction prompt mapping",
		yaml: `instructions:
  - id: a
    prompt: {x: 1}
`,
		want: []string{`t.ctx.yaml:3:13: prompt must be a string, found a mapping`},
	},
	{
		name: "instruction enabled string",
		yaml: `instructions:
  - id: a
    prompt: p
    enabled: "no"
`,
		want: []string{`t.ctx.yaml:4:14: enabled must be true or false, found a string`},
	},
	{
		name: "instruction when mapping",
		yaml: `instructions:
  - id: a
    prompt: p
    when: {x: 1}
`,
		want: []string{`t.ctx.yaml:4:11: when must be a string or a list of strings, found a mapping`},
	},
	{
		name: "instruction empty when",
		yaml: `instructions:
  - id: a
    prompt: p
    when: ["!"]
`,
		want: []string{`t.ctx.yaml:4:11: instruction "a" has an empty when condition`},
	},
	{
		name: "instruction empty prompt",
		yaml: `instructions:
  - id: a
    prompt: "  "
`,
		want: []string{`t.ctx.yaml:3:13: instruction "a" has an empty prompt`},
	},
	{
		name: "reminders mapping",
		yaml: `reminders: {id: a}
`,
		want: []string{`t.ctx.yaml:1:12: reminders must be a list, found a mapping`},
	},
	{
		name: "reminder string",
		yaml: `reminders:
  - a
`,
		want: []string{`t.ctx.yaml:2:5: reminder must be a mapping, found a string`},
	},
	{
		name: "reminder text list",
		yaml: `reminders:
  - id: a
    text: [x]
`,
		want: []string{`t.ctx.yaml:3:11: text must be a string, found a list`},
	},
	{
		name: "reminder max_per_chat string",
		yaml: `reminders:
  - id: a
    text: x
    max_per_chat: "2"
`,
		want: []string{`t.ctx.yaml:4:19: max_per_chat must be an integer, found a string`},
	},
	{
		name: "reminder when list",
		yaml: `reminders:
  - id: a
    text: x
    when: [once()]
`,
		want: []string{`t.ctx.yaml:4:11: when must be a string, found a list`},
	},
	{
		name: "reminder enabled int",
		yaml: `reminders:
  - id: a
    text: x
    enabled: 0
`,
		want: []string{`t.ctx.yaml:4:14: enabled must be true or false, found an integer`},
	},
	{
		name: "reminder id mapping",
		yaml: `reminders:
  - id: {a: 1}
    text: x
`,
		want: []string{`t.ctx.yaml:2:9: reminder id must be a string, found a mapping`},
	},
	{
		name: "tools mapping",
		yaml: `tools:
  name: a
`,
		want: []string{`t.ctx.yaml:2:3: tools must be a list, found a mapping`},
	},
	{
		name: "tool parameters list",
		yaml: `tools:
  - name: t
    result: r
    parameters: [a]
`,
		want: []string{`t.ctx.yaml:4:17: tool parameters must be a mapping, found a list`},
	},
	{
		name: "tool description list",
		yaml: `tools:
  - name: t
    result: r
    description: [a]
`,
		want: []string{`t.ctx.yaml:4:18: tool description must be a string, found a list`},
	},
	{
		name: "tool error list",
		yaml: `tools:
  - name: t
    error: [a]
`,
		want: []string{`t.ctx.yaml:3:12: tool error must be a string, found a list`},
	},
	{
		name: "tool result nan",
		yaml: `tools:
  - name: t
    result: {n: .nan}
`,
		want: []string{`t.ctx.yaml:3:17: tool result: ".nan" has no JSON form`},
	},
	{
		name: "root list",
		yaml: `- a
`,
		want: []string{`t.ctx.yaml:1:1: the context file must be a mapping, found a list`},
	},
	{
		name: "root string",
		yaml: `hello
`,
		want: []string{`t.ctx.yaml:1:1: the context file must be a mapping, found a string`},
	},
	{
		name: "duplicate reminder ids",
		yaml: `reminders:
  - id: a
    text: x
  - id: a
    text: y
  - id: a
    text: z
`,
		want: []string{
			`t.ctx.yaml:4:9: duplicate reminder id "a" (first at line 2)`,
			`t.ctx.yaml:6:9: duplicate reminder id "a" (first at line 2)`,
		},
	},
	{
		name: "duplicate builtin",
		yaml: `reminders:
  - builtin: date
  - builtin: temporal
`,
		want: []string{`t.ctx.yaml:3:14: duplicate reminder id "builtin:date" (first at line 2)`},
	},
	{
		name: "duplicate instruction ids",
		yaml: `instructions:
  - id: a
    prompt: x
  - id: a
    prompt: y
`,
		want: []string{`t.ctx.yaml:4:9: duplicate instruction id "a" (first at line 2)`},
	},
	{
		name: "duplicate tool names",
		yaml: `tools:
  - {name: t, result: r}
  - {name: t, result: r}
`,
		want: []string{`t.ctx.yaml:3:12: duplicate tool "t" (first at line 2)`},
	},
	{
		name: "duplicate classifier items",
		yaml: `classifiers:
  topics:
    - {name: a, description: x}
    - {name: a, description: y}
`,
		want: []string{`t.ctx.yaml:4:14: classifier "topics": duplicate item "a" (first at line 3)`},
	},
	{
		name: "duplicate mode names",
		yaml: `modes:
  - {name: M, if: once()}
  - {name: M, if: once()}
`,
		want: []string{`t.ctx.yaml:3:12: duplicate mode "M" (first at line 2)`},
	},
	{
		name: "duplicate top-level key",
		yaml: `version: 1
version: 1
`,
		want: []string{`t.ctx.yaml:2:1: the context file: duplicate key "version" (first at line 1)`},
	},
	{
		name: "duplicate reminder key",
		yaml: `reminders:
  - id: a
    text: x
    text: y
`,
		want: []string{`t.ctx.yaml:4:5: reminder: duplicate key "text" (first at line 3)`},
	},
	{
		name: "duplicate classifier",
		yaml: `classifiers:
  a: [{name: x}]
  a: [{name: y}]
`,
		want: []string{`t.ctx.yaml:3:3: classifiers: duplicate key "a" (first at line 2)`},
	},
	{
		name: "syntax error plain",
		yaml: `reminders:
  - id: a
    text: x
    when: and(once(), )
`,
		want: []string{`t.ctx.yaml:4:23: when: expected argument, found ')'`},
	},
	{
		name: "syntax error single quoted",
		yaml: `reminders:
  - id: a
    text: x
    when: 'contentIncludes([''a'', ''b''] x)'
`,
		want: []string{`t.ctx.yaml:4:43: when: expected ')' or ',' after argument, found 'x'`},
	},
	{
		name: "syntax error double quoted",
		yaml: `reminders:
  - id: a
    text: x
    when: "contentIncludes([\"a\", \"b\"] x)"
`,
		want: []string{`t.ctx.yaml:4:43: when: expected ')' or ',' after argument, found 'x'`},
	},
	{
		name: "syntax error block",
		yaml: `reminders:
  - id: a
    text: x
    when: |
      and(
        once(),
        everyNTurns(3) x
      )
`,
		want: []string{`t.ctx.yaml:7:24: when: expected ')' or ',' after argument, found 'x'`},
	},
	{
		name: "syntax error folded",
		yaml: `reminders:
  - id: a
    text: x
    when: >
      and(once(),
      everyNTurns(3) x)
`,
		want: []string{`t.ctx.yaml:6:22: when: expected ')' or ',' after argument, found 'x'`},
	},
	{
		name: "syntax error end of input",
		yaml: `reminders:
  - id: a
    text: x
    when: and(once()
`,
		want: []string{`t.ctx.yaml:4:21: when: expected ')' or ',' after argument, found end of input`},
	},
	{
		name: "syntax error in mode if",
		yaml: `modes:
  - name: M
    if: contentIncludes(['a'
`,
		want: []string{`t.ctx.yaml:3:29: mode if: expected ']' or ',' after list item, found end of input`},
	},
	{
		name: "syntax error in instruction if list",
		yaml: `instructions:
  - id: a
    prompt: p
    if: [once(), afterTurn(1]
`,
		want: []string{`t.ctx.yaml:4:29: if: expected ')' or ',' after argument, found end of input`},
	},
	{
		name: "unterminated string",
		yaml: `reminders:
  - id: a
    text: x
    when: "contentIncludes(['a)"
`,
		want: []string{`t.ctx.yaml:4:29: when: unterminated string`},
	},
	{
		name: "bad regex",
		yaml: `reminders:
  - id: a
    text: x
    when: contentPattern(/a(/)
`,
		want: []string{"t.ctx.yaml:4:26: when: invalid regex /a(/: error parsing regexp: missing closing ): `a(`"},
	},
	{
		name: "unknown predicate",
		yaml: `reminders:
  - id: a
    text: x
    when: evryNTurns(3)
`,
		want: []string{`t.ctx.yaml:4:11: when: unknown predicate "evryNTurns"; did you mean everyNTurns?`},
	},
	{
		name: "unknown predicate nested",
		yaml: `reminders:
  - id: a
    text: x
    when: and(once(), toolCaled('x'))
`,
		want: []string{`t.ctx.yaml:4:23: when: unknown predicate "toolCaled"; did you mean toolCalled, toolCall or toolFailed?`},
	},
	{
		name: "unknown predicate far from every name",
		yaml: `reminders:
  - id: a
    text: x
    when: and(once(), bogus())
`,
		want: []string{`t.ctx.yaml:4:23: when: unknown predicate "bogus"; nearest known predicates: usageExceeds, not, once`},
	},
	{
		name: "unknown predicate after an escaped line break",
		yaml: `reminders:
  - id: d
    text: a
    when: "and(once(), \
      bogus())"
`,
		want: []string{`t.ctx.yaml:5:7: when: unknown predicate "bogus"; nearest known predicates: usageExceeds, not, once`},
	},
	{
		name: "unknown predicate after a folded line break",
		yaml: `reminders:
  - id: d
    text: a
    when: 'and(once(),

      bogus())'
`,
		want: []string{`t.ctx.yaml:6:7: when: unknown predicate "bogus"; nearest known predicates: usageExceeds, not, once`},
	},
	{
		name: "unknown classifier none",
		yaml: `reminders:
  - id: a
    text: x
    when: classifies('topix')
`,
		want: []string{`t.ctx.yaml:4:22: when: unknown classifier "topix"; no classifiers are defined`},
	},
	{
		name: "unknown classifier",
		yaml: `classifiers:
  topics: [{name: a, description: b}]
reminders:
  - id: a
    text: x
    when: classifies('topix')
`,
		want: []string{`t.ctx.yaml:6:22: when: unknown classifier "topix"; known classifiers: topics`},
	},
	{
		name: "unknown tz in expression",
		yaml: `reminders:
  - id: a
    text: x
    when: dayChanged(tz='Mars/Olympus')
`,
		want: []string{`t.ctx.yaml:4:25: when: unknown time zone "Mars/Olympus"`},
	},
	{
		name: "unknown tz in builtin",
		yaml: `reminders:
  - builtin: date
    tz: Mars/Olympus
`,
		want: []string{`t.ctx.yaml:3:9: unknown time zone "Mars/Olympus"`},
	},
	{
		name: "misspelt tz in expression",
		yaml: `reminders:
  - id: a
    text: x
    when: dayChanged(tz='Europe/Pari')
`,
		want: []string{`t.ctx.yaml:4:25: when: unknown time zone "Europe/Pari"; did you mean Europe/Paris?`},
	},
	{
		name: "misspelt tz in builtin",
		yaml: `reminders:
  - builtin: date
    tz: america/new_york
`,
		want: []string{`t.ctx.yaml:3:9: unknown time zone "america/new_york"; did you mean America/New_York?`},
	},
	{
		name: "the machine's zone in builtin",
		yaml: `reminders:
  - builtin: date
    tz: Local
`,
		want: []string{`t.ctx.yaml:3:9: unknown time zone "Local" (name an IANA zone: the machine's own is not portable)`},
	},
	{
		name: "empty tz in builtin",
		yaml: `reminders:
  - builtin: time
    tz: ""
`,
		want: []string{`t.ctx.yaml:3:9: unknown time zone ""`},
	},
	{
		name: "min_turns_between 1",
		yaml: `reminders:
  - id: a
    text: x
    min_turns_between: 1
`,
		want: []string{`t.ctx.yaml:4:24: min_turns_between: 1 is meaningless (a reminder can fire at most once a turn anyway); use 0 or at least 2`},
	},
	{
		name: "min_turns_between negative",
		yaml: `reminders:
  - id: a
    text: x
    min_turns_between: -2
`,
		want: []string{`t.ctx.yaml:4:24: min_turns_between must be 0 (no spacing) or at least 2, found -2`},
	},
	{
		name: "max_per_chat negative",
		yaml: `reminders:
  - id: a
    text: x
    max_per_chat: -1
`,
		want: []string{`t.ctx.yaml:4:19: max_per_chat must be 0 (unlimited) or more, found -1`},
	},
	{
		name: "countspec eq with bound",
		yaml: `reminders:
  - id: a
    text: x
    when: lastAssistantLength(eq=3, gte=1)
`,
		want: []string{`t.ctx.yaml:4:31: when: lastAssistantLength: eq cannot be combined with gte or lte`},
	},
	{
		name: "countspec no bound",
		yaml: `reminders:
  - id: a
    text: x
    when: lastAssistantLength()
`,
		want: []string{`t.ctx.yaml:4:31: when: lastAssistantLength needs gte=, lte= or eq=`},
	},
	{
		name: "countspec negative",
		yaml: `reminders:
  - id: a
    text: x
    when: lastAssistantLength(gte=-1)
`,
		want: []string{`t.ctx.yaml:4:35: when: lastAssistantLength expects gte >= 0, got -1`},
	},
	{
		name: "countspec negative tool count",
		yaml: `reminders:
  - id: a
    text: x
    when: toolCallCount('x', eq=-1)
`,
		want: []string{`t.ctx.yaml:4:33: when: toolCallCount expects eq >= 0, got -1`},
	},
	{
		name: "everyNTurns 0",
		yaml: `reminders:
  - id: a
    text: x
    when: everyNTurns(0)
`,
		want: []string{`t.ctx.yaml:4:23: when: everyNTurns expects n >= 1, got 0`},
	},
	{
		name: "everyNTurns negative",
		yaml: `reminders:
  - id: a
    text: x
    when: everyNTurns(-3)
`,
		want: []string{`t.ctx.yaml:4:23: when: everyNTurns expects n >= 1, got -3`},
	},
	{
		name: "missing fragment file",
		yaml: `system:
  - fragment: {name: schema, file: ./nope.sql}
`,
		want: []string{`t.ctx.yaml:2:36: ./nope.sql: no such file`},
	},
	{
		name: "missing skills folder",
		yaml: `system:
  - skills: ./noskills
`,
		want: []string{`t.ctx.yaml:2:13: ./noskills: no such directory`},
	},
	{
		name: "missing reminder fragment file",
		yaml: `reminders:
  - id: a
    fragment: {fragment: {name: s, file: ./nope.sql}}
`,
		want: []string{`t.ctx.yaml:3:42: ./nope.sql: no such file`},
	},
	{
		name: "two skills folders",
		yaml: `system:
  - skills: ./testdata/spec/skills
  - skills: ./testdata/spec/skills
`,
		want: []string{`t.ctx.yaml:3:5: only one skills folder is allowed`},
	},
	{
		name: "skills without folder",
		yaml: `reminders:
  - builtin: skills
`,
		want: []string{`t.ctx.yaml:2:14: builtin: skills needs a skills folder in system (- skills: ./skills)`},
	},
	{
		name: "tz on skills",
		yaml: `system:
  - skills: ./testdata/spec/skills
reminders:
  - builtin: skills
    tz: UTC
`,
		want: []string{`t.ctx.yaml:5:9: tz does not apply to builtin: skills`},
	},
	{
		name: "top_n on date",
		yaml: `reminders:
  - builtin: date
    top_n: 3
`,
		want: []string{`t.ctx.yaml:3:12: top_n does not apply to builtin: date`},
	},
	{
		name: "hemisphere on locale",
		yaml: `reminders:
  - builtin: locale
    hemisphere: south
`,
		want: []string{`t.ctx.yaml:3:17: hemisphere does not apply to builtin: locale`},
	},
	{
		name: "threshold on temporal",
		yaml: `reminders:
  - builtin: temporal
    threshold: 1
`,
		want: []string{`t.ctx.yaml:3:16: threshold does not apply to builtin: temporal`},
	},
	{
		name: "id on builtin",
		yaml: `reminders:
  - builtin: date
    id: x
`,
		want: []string{`t.ctx.yaml:3:9: builtin reminders are named builtin:date; id is not allowed`},
	},
	{
		name: "unknown builtin",
		yaml: `reminders:
  - builtin: dat
`,
		want: []string{`t.ctx.yaml:2:14: unknown builtin "dat"; use one of date, time, month, year, season, locale, temporal, skills; did you mean date?`},
	},
	{
		name: "bad hemisphere",
		yaml: `reminders:
  - builtin: season
    hemisphere: west
`,
		want: []string{`t.ctx.yaml:3:17: hemisphere must be north or south, found "west"`},
	},
	{
		name: "top_n zero",
		yaml: `system:
  - skills: ./testdata/spec/skills
reminders:
  - builtin: skills
    top_n: 0
`,
		want: []string{`t.ctx.yaml:5:12: top_n must be at least 1, found 0`},
	},
	{
		name: "threshold string",
		yaml: `system:
  - skills: ./testdata/spec/skills
reminders:
  - builtin: skills
    threshold: high
`,
		want: []string{`t.ctx.yaml:5:16: threshold must be a number, found a string`},
	},
	{
		name: "tz on a text reminder",
		yaml: `reminders:
  - id: a
    text: x
    tz: UTC
`,
		want: []string{`t.ctx.yaml:4:9: tz only applies to builtin reminders`},
	},
	{
		name: "no text source",
		yaml: `reminders:
  - id: a
`,
		want: []string{`t.ctx.yaml:2:5: a reminder needs one of text, fragment, template or builtin`},
	},
	{
		name: "two text sources",
		yaml: `reminders:
  - id: a
    text: x
    template: y
`,
		want: []string{`t.ctx.yaml:4:5: a reminder takes one of text, fragment, template or builtin, found text and template`},
	},
	{
		name: "text and fragment",
		yaml: `reminders:
  - id: a
    text: x
    fragment: {hint: y}
`,
		want: []string{`t.ctx.yaml:4:5: a reminder takes one of text, fragment, template or builtin, found text and fragment`},
	},
	{
		name: "builtin and text",
		yaml: `reminders:
  - builtin: date
    text: x
`,
		want: []string{`t.ctx.yaml:3:5: a reminder takes one of text, fragment, template or builtin, found builtin and text`},
	},
	{
		name: "empty text",
		yaml: `reminders:
  - id: a
    text: "  "
`,
		want: []string{`t.ctx.yaml:3:11: reminder "a" has empty text`},
	},
	{
		name: "null text is no source",
		yaml: `reminders:
  - id: a
    text:
`,
		want: []string{`t.ctx.yaml:2:5: a reminder needs one of text, fragment, template or builtin`},
	},
	{
		name: "reminder without id",
		yaml: `reminders:
  - text: x
`,
		want: []string{`t.ctx.yaml:2:5: reminder needs an id`},
	},
	{
		name: "empty id",
		yaml: `reminders:
  - id: ""
    text: x
`,
		want: []string{`t.ctx.yaml:2:9: reminder id must not be empty`},
	},
	{
		name: "template syntax error",
		yaml: `reminders:
  - id: a
    template: "turn {{.Turn"
`,
		want: []string{`t.ctx.yaml:3:21: template: unclosed action`},
	},
	{
		name: "template unknown field",
		yaml: `reminders:
  - id: a
    template: "turn {{.Nope}} x"
`,
		want: []string{`t.ctx.yaml:3:23: template: unknown field .Nope (fields: .Turn, .Content, .Branch, .MessageCount, .Elapsed, .LastMessageAt, .Usage, .Now)`},
	},
	{
		name: "template unknown field block",
		yaml: `reminders:
  - id: a
    template: |
      line one
      turn {{.Nope}}
`,
		want: []string{`t.ctx.yaml:5:14: template: unknown field .Nope (fields: .Turn, .Content, .Branch, .MessageCount, .Elapsed, .LastMessageAt, .Usage, .Now)`},
	},
	{
		name: "template unknown field in Usage",
		yaml: `reminders:
  - id: a
    template: "{{.Usage.Nope}}"
`,
		want: []string{`t.ctx.yaml:3:24: template: at <.Usage.Nope>: can't evaluate field Nope in type chat.Usage`},
	},
	{
		name: "template unknown function",
		yaml: `reminders:
  - id: a
    template: "x {{nofunc .Turn}}"
`,
		want: []string{`t.ctx.yaml:3:20: template: function "nofunc" not defined`},
	},
	{
		name: "template unexpected end",
		yaml: `reminders:
  - id: a
    template: "{{if .Turn}}x"
`,
		want: []string{`t.ctx.yaml:3:29: template: unexpected EOF`},
	},
	{
		name: "template id with colon",
		yaml: `reminders:
  - id: a:1
    template: "{{.Nope}}"
`,
		want: []string{`t.ctx.yaml:3:18: template: unknown field .Nope (fields: .Turn, .Content, .Branch, .MessageCount, .Elapsed, .LastMessageAt, .Usage, .Now)`},
	},
	{
		name: "fragment reminder bad kind",
		yaml: `reminders:
  - id: a
    fragment: {hnt: x}
`,
		want: []string{`t.ctx.yaml:3:16: unknown fragment kind "hnt"; did you mean hint?`},
	},
	{
		name: "fragment reminder with empty data",
		yaml: `reminders:
  - id: a
    fragment: {fragment: {name: x, data: {a: "", b: []}}}
`,
		want: []string{`t.ctx.yaml:3:15: fragment renders to empty text`},
	},
	{
		name: "persona unknown field",
		yaml: `system:
  - persona: {name: F, role: R, objectve: O}
`,
		want: []string{`t.ctx.yaml:2:33: unknown field "objectve" in persona; did you mean objective?`},
	},
	{
		name: "unknown placement",
		yaml: `reminders:
  - id: a
    text: x
    placement: inlin
`,
		want: []string{`t.ctx.yaml:4:16: unknown placement "inlin"; use inline, part, system or run-start; did you mean inline?`},
	},
	{
		name: "unknown tier",
		yaml: `reminders:
  - id: a
    text: x
    tier: safty
`,
		want: []string{`t.ctx.yaml:4:11: unknown tier "safty"; use safety or guidance; did you mean safety?`},
	},
	{
		name: "unknown kind",
		yaml: `instructions:
  - id: a
    prompt: x
    kind: mustt
`,
		want: []string{`t.ctx.yaml:4:11: unknown instruction kind "mustt"; use must, never or should; did you mean must?`},
	},
	{
		name: "unknown mode none declared",
		yaml: `instructions:
  - id: a
    prompt: x
    mode: Bookin
`,
		want: []string{`t.ctx.yaml:4:11: unknown mode "Bookin"; no modes are declared`},
	},
	{
		name: "unknown mode",
		yaml: `modes: [{name: Booking, if: once()}]
instructions:
  - id: a
    prompt: x
    mode: Bookin
`,
		want: []string{`t.ctx.yaml:5:11: unknown mode "Bookin"; did you mean Booking?`},
	},
	{
		name: "unknown renderer",
		yaml: `renderer: tomll
`,
		want: []string{`t.ctx.yaml:1:11: unknown renderer "tomll"; use one of xml, markdown, toml, toon; did you mean toml?`},
	},
	{
		name: "instruction without prompt",
		yaml: `instructions:
  - id: a
`,
		want: []string{`t.ctx.yaml:2:5: instruction "a" needs a prompt`},
	},
	{
		name: "instruction without id",
		yaml: `instructions:
  - prompt: x
`,
		want: []string{`t.ctx.yaml:2:5: instruction needs an id`},
	},
	{
		name: "tool without result",
		yaml: `tools:
  - name: t
`,
		want: []string{`t.ctx.yaml:2:5: tool "t" needs a canned result or error`},
	},
	{
		name: "tool with both",
		yaml: `tools:
  - name: t
    result: r
    error: e
`,
		want: []string{`t.ctx.yaml:4:12: tool "t" has both result and error; give one`},
	},
	{
		name: "tool bad name",
		yaml: `tools:
  - name: "bad name"
    result: r
`,
		want: []string{`t.ctx.yaml:2:11: tool name "bad name" must be 1 to 64 letters, digits, _ or -`},
	},
	{
		name: "tool name too long",
		yaml: `tools:
  - name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    result: r
`,
		want: []string{`t.ctx.yaml:2:11: tool name "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" must be 1 to 64 letters, digits, _ or -`},
	},
	{
		name: "tool without name",
		yaml: `tools:
  - result: r
`,
		want: []string{`t.ctx.yaml:2:5: tool needs a name`},
	},
	{
		name: "tool parameters not object",
		yaml: `tools:
  - name: t
    result: r
    parameters: {type: string}
`,
		want: []string{`t.ctx.yaml:4:24: tool parameters must be a JSON schema of type object, found type "string"`},
	},
	{
		name: "yaml syntax error",
		yaml: `version: [1
`,
		want: []string{`t.ctx.yaml:1:10: invalid YAML: sequence end token ']' not found`},
	},
	{
		name: "yaml mapping value",
		yaml: `version: 1
renderer: xml
  x: y
`,
		want: []string{`t.ctx.yaml:3:4: invalid YAML: mapping value is not allowed in this context`},
	},
	{
		name: "yaml tab",
		yaml: "reminders:\n  - id: a\n\ttext: x\n",
		want: []string{"t.ctx.yaml:3:1: invalid YAML: found character '\t' that cannot start any token"},
	},
	{
		name: "yaml second document",
		yaml: `version: 1
---
version: 1
`,
		want: []string{`t.ctx.yaml:2:1: expected one YAML document, found a second one`},
	},
	{
		name: "several in file order",
		yaml: `tools:
  - name: t
reminders:
  - id: a
    text: x
    tier: safty
rendrer: xml
instructions:
  - id: i
`,
		want: []string{
			`t.ctx.yaml:2:5: tool "t" needs a canned result or error`,
			`t.ctx.yaml:6:11: unknown tier "safty"; use safety or guidance; did you mean safety?`,
			`t.ctx.yaml:7:1: unknown key "rendrer" in the context file; did you mean renderer?`,
			`t.ctx.yaml:9:5: instruction "i" needs a prompt`,
		},
	},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("t.ctx.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("got no error, want\n%s", strings.Join(tt.want, "\n"))
			}
			if f != nil {
				t.Errorf("got a file with the error, want nil")
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
