package predicates

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

const (
	streaming = chat.ToolInputStreaming
	inputOK   = chat.ToolInputAvailable
	outputOK  = chat.ToolOutputAvailable
	failed    = chat.ToolOutputError
)

func TestToolPredicates(t *testing.T) {
	msg := assistant(
		text("running"),
		toolIO("run_sql", outputOK, `{"query": "select 1"}`, `[{"count": 42}]`, ""),
		toolIO("bash", failed, `{"cmd":"ls"}`, "", "permission denied"),
		tool("bash_exec", streaming),
		tool("grep", inputOK),
	)
	c := &WhenContext{Turn: 3, LastAssistantMessage: msg}
	none := turn(1)
	textOnly := &WhenContext{Turn: 2, LastAssistantMessage: assistant(text("hi"))}
	runEval(t, []evalCase{
		{"called", "toolCalled('run_sql')", c, true, `found "run_sql" (output-available)`, false},
		{"called failed counts", "toolCalled('bash')", c, true, `found "bash" (output-error)`, false},
		{"called input-available counts", "toolCalled('grep')", c, true, `found "grep" (input-available)`, false},
		{"streaming not completed", "toolCalled('bash_exec')", c, false, "no completed call of 'bash_exec' among 4 tool parts", false},
		{"called regex", "toolCalled(/^RUN_/i)", c, true, `found "run_sql" (output-available)`, false},
		{"called exact not prefix", "toolCalled('run')", c, false, "", false},
		{"called no message", "toolCalled('x')", none, false, "no assistant message", false},
		{"called text only", "toolCalled('x')", textOnly, false, "no completed call of 'x' among 0 tool parts", false},
		{"failed", "toolFailed('bash')", c, true, `"bash" failed: "permission denied"`, false},
		{"failed regex", "toolFailed(/^bash/)", c, true, "", false},
		{"failed not", "toolFailed('run_sql')", c, false, "no failed call of 'run_sql' among 4 tool parts", false},
		{"any", "anyToolCalled()", c, true, "3 completed tool calls", false},
		{"any none", "anyToolCalled()", textOnly, false, "no completed tool call", false},
		{"any only streaming", "anyToolCalled()", &WhenContext{LastAssistantMessage: assistant(tool("x", streaming))}, false, "", false},
		{"call name", "toolCall(name='bash')", c, true, `tool part 2 "bash" (output-error) matched`, false},
		{"call state", "toolCall(state='input-streaming')", c, true, `tool part 3 "bash_exec" (input-streaming) matched`, false},
		{"call no state excludes streaming", "toolCall(name='bash_exec')", c, false, "none of 4 tool parts matched", false},
		{"call input exact json", `toolCall(input='{"query":"select 1"}')`, c, true, "", false},
		{"call input spacing", `toolCall(input='{ "query" : "select 1" }')`, c, true, "", false},
		{"call input regex", `toolCall(name=/sql/, input=/select \d/)`, c, true, "", false},
		{"call input miss", `toolCall(input='{"query":"select 2"}')`, c, false, "", false},
		{"call output", `toolCall(output=/"count": 42/)`, c, true, "", false},
		{"call output exact", `toolCall(output='[{"count": 42}]')`, c, true, "", false},
		{"call output needs output-available", `toolCall(name='bash', output=/.*/)`, c, false, "", false},
		{"call errorText", `toolCall(errorText=/denied/)`, c, true, `tool part 2 "bash" (output-error) matched`, false},
		{"call errorText exact", `toolCall(errorText='permission denied', state='output-error')`, c, true, "", false},
		{"call errorText miss", `toolCall(errorText='denied')`, c, false, "", false},
		{"call any", "toolCall()", c, true, `tool part 1 "run_sql" (output-available) matched`, false},
		{"call none", "toolCall()", none, false, "no assistant message", false},
		{"count", "toolCallCount(/./, gte=3)", c, true, "count 3 >= 3", false},
		{"count eq", "toolCallCount('bash', eq=1)", c, true, "count 1 == 1", false},
		{"count default", "toolCallCount('grep')", c, true, "count 1 >= 1", false},
		{"count miss", "toolCallCount('bash_exec')", c, false, "count 0 < 1", false},
		{"count lte", "toolCallCount('x', lte=0)", none, true, "count 0 <= 0", false},
	})
}

func TestToolFailedStreak(t *testing.T) {
	fail := func(name string) chat.Part { return toolIO(name, failed, "{}", "", "boom") }
	ok := func(name string) chat.Part { return toolIO(name, outputOK, "{}", "ok", "") }
	c := withReplies(
		assistant(fail("bash")),
		assistant(ok("bash"), fail("bash")),
		assistant(fail("bash"), ok("grep")),
		assistant(text("thinking")),
		assistant(fail("bash"), tool("bash", streaming), fail("grep")),
	)
	runEval(t, []evalCase{
		{"streak across replies", "toolFailedStreak('bash', gte=3)", c, true, "streak 3 >= 3", false},
		{"streak stops at success", "toolFailedStreak('bash', gte=4)", c, false, "streak 3 < 4", false},
		{"streak other tool", "toolFailedStreak('grep', eq=1)", c, true, "streak 1 == 1", false},
		{"streak regex", "toolFailedStreak(/^(bash|grep)$/, eq=2)", c, true, "streak 2 == 2", false},
		{"streak default", "toolFailedStreak('bash')", c, true, "streak 3 >= 1", false},
		{"streak none", "toolFailedStreak('nope')", c, false, "streak 0 < 1", false},
		{"streak no replies", "toolFailedStreak('bash')", turn(1), false, "streak 0 < 1", false},
		{"streak only last message", "toolFailedStreak('bash', eq=2)",
			&WhenContext{LastAssistantMessage: assistant(fail("bash"), fail("bash"))}, true, "streak 2 == 2", false},
	})
	// after a success the streak restarts
	c2 := withReplies(assistant(fail("bash"), fail("bash")), assistant(ok("bash")))
	if r := mustParse(t, "toolFailedStreak('bash')").Eval(c2); r.Value {
		t.Errorf("got %v (%s), want false after a success", r.Value, r.Why)
	}
}

func TestWindows(t *testing.T) {
	r1 := assistant(tool("bash", failed))
	r2 := assistant(text("plain"))
	r3 := assistant(tool("bash", outputOK))
	c := withReplies(r1, r2, r3)
	runEval(t, []evalCase{
		{"within hit newest", "withinLastN(2, toolCalled('bash'))", c, true, "held at reply 1 of last 2 (1 = newest)", false},
		{"within hit older", "withinLastN(3, toolFailed('bash'))", c, true, "held at reply 3 of last 3 (1 = newest)", false},
		{"within outside window", "withinLastN(2, toolFailed('bash'))", c, false, "held for none of the last 2 replies", false},
		{"within n > replies", "withinLastN(10, toolFailed('bash'))", c, true, "held at reply 3 of last 3 (1 = newest)", false},
		{"within n 0", "withinLastN(0, anyToolCalled())", c, false, "n 0 <= 0", false},
		{"within n negative", "withinLastN(-1, anyToolCalled())", c, false, "n -1 <= 0", false},
		{"within no replies", "withinLastN(3, anyToolCalled())", turn(1), false, "no assistant replies", false},
		{"every", "everyOfLastN(2, lastAssistantLength(lte=5))", c, true, "held for all 2 replies", false},
		{"every fails", "everyOfLastN(3, anyToolCalled())", c, false, "failed at reply 2 of last 3 (1 = newest)", false},
		{"every too few", "everyOfLastN(4, lastAssistantLength(gte=0))", c, false, "only 3 replies < 4", false},
		{"every one reply", "everyOfLastN(2, anyToolCalled())", withReplies(r1), false, "only 1 reply < 2", false},
		{"every n 0", "everyOfLastN(0, anyToolCalled())", c, false, "n 0 <= 0", false},
		{"every with not", "everyOfLastN(1, not(anyToolCalled()))", withReplies(r1, r2), true, "held for all 1 replies", false},
	})
	// the window works on a copy: the caller's context is unchanged
	WithinLastN(3, AnyToolCalled()).Eval(c)
	if c.LastAssistantMessage != r3 {
		t.Errorf("got LastAssistantMessage changed by a window, want it unchanged")
	}
	// children are the evaluated replies, newest first
	r := mustParse(t, "everyOfLastN(3, anyToolCalled())").Eval(c)
	if len(r.Children) != 2 || !r.Children[0].Value || r.Children[1].Value {
		t.Errorf("got children %+v, want [true false]", r.Children)
	}
}
