package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/store"
)

// impGood is a small valid export, one record a line, so that a problem's line and column
// are easy to tell: every test of TestImportPositions changes it a little.
const impGood = "testdata/cli/import/good.export.json"

// TestImportPositions checks that every kind of bad import file is refused with exit code
// 2, FILE:LINE:COL at the offending value (the key of an unknown field; 1:1 for the whole
// file) and a message saying what is wrong, that nothing is printed and that nothing is
// written: the database files are as they were, byte for byte, and a database that did not
// exist is not created.
func TestImportPositions(t *testing.T) {
	good := expReadFile(t, impGood)
	// edit returns the good export with old replaced by new; old must be there once.
	edit := func(old, new string) string {
		t.Helper()
		if n := strings.Count(good, old); n != 1 {
			t.Fatalf("%q is in the good export %d times, want once", old, n)
		}
		return strings.Replace(good, old, new, 1)
	}
	lines := strings.SplitAfter(good, "\n")
	const u1 = `    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "héllo wörld"}], "created_at": "2026-01-01T00:00:00Z"},`
	tests := []struct {
		name, content string
		want          string // stderr, with the file's path as FILE
	}{
		// The file as a whole, and its syntax.
		{"empty", "", "FILE:1:1: the file is empty; want a ctxlab chat export or an OpenAI messages array"},
		{"only white space", " \n\t\n", "FILE:1:1: the file is empty; want a ctxlab chat export or an OpenAI messages array"},
		{"not JSON", "ctxlab", "FILE:1:1: invalid character 'c' looking for beginning of value"},
		{"syntax error", edit(`"version": 1,`, `"version": 1,,`), "FILE:3:16: invalid character ',' looking for beginning of object key string"},
		{"syntax error after non-ASCII", edit(`"text": "héllo wörld"}`, `"text": "héllo wörld" x}`),
			"FILE:6:83: invalid character 'x' after object key:value pair"},
		{"truncated", strings.Join(lines[:7], ""), "FILE:8:1: unexpected end of the file (truncated?)"},
		{"truncated in a line", good[:strings.Index(good, `"parent_id": "u1"`)+5], "FILE:7:23: unexpected end of the file (truncated?)"},
		{"trailing data", good + "{}\n", "FILE:22:1: invalid character '{' after top-level value"},
		{"neither export nor OpenAI", `{"model": "gpt-4o"}`,
			`FILE:1:1: neither a ctxlab chat export (no "format") nor an OpenAI request (no "messages")`},
		{"byte order mark", "\xef\xbb\xbf" + `{"format": "ctxlab-chat", "version": 1, "bogus": 1}`,
			`FILE:1:41: unknown field "bogus" in the export (known fields: format, version, chat, messages, branches, checkpoints, turns)`},

		// Format and version.
		{"other format", edit(`"format": "ctxlab-chat"`, `"format": "chatgpt"`), `FILE:2:13: not a ctxlab chat export (format "chatgpt", want "ctxlab-chat")`},
		{"format a number", edit(`"format": "ctxlab-chat"`, `"format": 7`), `FILE:2:13: not a ctxlab chat export (format 7, want "ctxlab-chat")`},
		{"newer version", edit(`"version": 1,`, `"version": 2,`), "FILE:3:14: export version 2 is newer than this ctxlab (1); upgrade ctxlab"},
		{"newer version, unknown fields", edit(`"version": 1,`, `"future": {}, "version": 2,`),
			"FILE:3:28: export version 2 is newer than this ctxlab (1); upgrade ctxlab"},
		{"version 0", edit(`"version": 1,`, `"version": 0,`), "FILE:3:14: export version 0: want 1 to 1"},
		{"version a string", edit(`"version": 1,`, `"version": "1",`), "FILE:3:14: export version: want an integer from 1 to 1, not a string"},
		{"no version", edit("  \"version\": 1,\n", ""), `FILE:1:1: no export "version" (want 1)`},

		// Fields and types.
		{"unknown field", edit(`"version": 1,`, `"version": 1, "extra": true,`),
			`FILE:3:17: unknown field "extra" in the export (known fields: format, version, chat, messages, branches, checkpoints, turns)`},
		{"unknown field of the chat", edit(`"title": "Import test"`, `"titel": "Import test"`),
			`FILE:4:27: unknown field "titel" in chat; did you mean title?`},
		{"unknown field of a part", edit(`"text": "hi"`, `"txt": "hi"`),
			`FILE:7:85: unknown field "txt" in messages[1].parts[0]; did you mean text?`},
		{"unknown field of a turn's request", edit(`"system_prompt": ""`, `"system_prompt": "", "temprature": 1`),
			`FILE:19:206: unknown field "temprature" in turns[0].request; did you mean temperature?`},
		{"wrong type", edit(`"turn": 1`, `"turn": "one"`), "FILE:19:64: turns[0].turn: want an integer, not a string"},
		{"not an integer", edit(`"turn": 1`, `"turn": 1.5`), "FILE:19:64: turns[0].turn: want an integer, not the number 1.5"},
		{"integer out of range", edit(`"turn": 1`, `"turn": 99999999999999999999`), "FILE:19:64: turns[0].turn: the number 99999999999999999999 is out of range"},
		{"an object for an array", edit(`"parts": [{"type": "text", "text": "more"}]`, `"parts": {"type": "text"}`),
			"FILE:8:62: messages[2].parts: want an array, not an object"},
		{"a string for an object", edit(`"chat_usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}`, `"chat_usage": "none"`),
			"FILE:19:220: turns[0].request.chat_usage: want an object, not a string"},
		{"bad time after non-ASCII", edit(u1, strings.Replace(u1, "2026-01-01T00:00:00Z", "yesterday", 1)),
			`FILE:6:100: messages[0].created_at: want a time like "2006-01-02T15:04:05Z" (RFC 3339), not "yesterday"`},
		{"time a number", edit(`"at": "2026-01-01T00:00:00Z"`, `"at": 0`),
			`FILE:19:128: turns[0].at: want a time like "2006-01-02T15:04:05Z" (RFC 3339), not a number`},

		// The chat's consistency.
		{"branch head not a message", edit(`"head": "u2"`, `"head": "ghost"`),
			`FILE:12:30: branch "main": head "ghost" is not a message of the chat`},
		{"unknown active branch", edit(`"active_branch": "main"`, `"active_branch": "trunk"`),
			`FILE:4:97: active branch "trunk" is not a branch of the chat`},
		{"duplicate branch", edit(`"name": "main-v2"`, `"name": "main"`), `FILE:13:14: branch "main" twice`},
		{"unknown parent branch", edit(`"parent": "main"`, `"parent": "trunk"`),
			`FILE:13:49: branch "main-v2": parent branch "trunk" is not another branch of the chat`},
		{"empty branch name", edit(`"name": "main-v2"`, `"name": ""`), "FILE:13:14: empty branch name"},
		{"duplicate message id", edit(`{"id": "a2"`, `{"id": "a1"`), `FILE:9:12: message "a1" twice`},
		{"missing message id", edit(`{"id": "u2", `, `{`), "FILE:8:5: empty message id"},
		{"unknown parent", edit(`"parent_id": "a1"`, `"parent_id": "ghost"`),
			`FILE:8:31: message "u2": parent "ghost" is not a message of the chat`},
		{"parent cycle", edit(`{"id": "u1", `, `{"id": "u1", "parent_id": "u2", `),
			`FILE:6:31: message "u1": its ancestors form a cycle`},
		{"unknown role", edit(`"role": "assistant", "parts": [{"type": "text", "text": "hi"}]`, `"role": "robot", "parts": [{"type": "text", "text": "hi"}]`),
			`FILE:7:45: message "a1": unknown role "robot"`},
		{"unknown part type", edit(`{"type": "text", "text": "again"}`, `{"type": "image", "text": "again"}`),
			`FILE:9:77: message "a2": part 0: unknown part type "image"`},
		{"reminder span out of range", edit(`"text": "more"}]`, `"text": "more"}], "reminders": [{"id": "r", "part_index": 0, "start": 2, "end": 90, "mode": "inline"}]`),
			`FILE:8:160: message "u2": reminder "r": span [2,90) of part 0 out of range`},
		{"control character in an id", edit(`"id": "imp-1", "title"`, `"id": "imp\u001b1", "title"`),
			`FILE:4:18: chat id "imp\x1b1": control character`},
		{"no chat", edit(`"chat": {"id": "imp-1", "title": "Import test", "metadata": {"tier": "pro"}, "active_branch": "main", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:03Z"}`, `"chat": null`),
			"FILE:4:11: empty chat id"},
		{"checkpoint of no message", edit(`"message_id": "a1"`, `"message_id": "ghost"`),
			`FILE:16:37: checkpoint "start": message "ghost" is not a message of the chat`},
		{"turn of another chat", edit(`"chat_id": "imp-1"`, `"chat_id": "imp-2"`), `FILE:19:29: turn "t1": chat id "imp-2", want "imp-1"`},
		{"turn on no branch", edit(`"branch": "main", "turn"`, `"branch": "trunk", "turn"`),
			`FILE:19:48: turn "t1": branch "trunk" is not a branch of the chat`},
		{"turn of no message", edit(`"assistant_message_id": "a1"`, `"assistant_message_id": "ghost"`),
			`FILE:19:116: turn "t1": message "ghost" is not a message of the chat`},
		{"negative turn number", edit(`"turn": 1`, `"turn": -1`), `FILE:19:64: turn "t1": negative number -1`},

		// The chat is one ctxlab could have made.
		{"title with a control character", edit(`"title": "Import test"`, `"title": "Import\u0000test"`),
			`FILE:4:36: chat "imp-1": title "Import\x00test": control character`},
		{"system message in a path", edit(`{"id": "u2", "parent_id": "a1", "role": "user"`, `{"id": "u2", "parent_id": "a1", "role": "system"`),
			`FILE:8:45: message "u2": a chat holds user and assistant messages, not system messages ` +
				`(the system prompt is recorded with each turn, tool calls and their results in the assistant message)`},
		{"tool message", edit(`{"id": "a2", "parent_id": "u1", "role": "assistant"`, `{"id": "a2", "parent_id": "u1", "role": "tool"`),
			`FILE:9:45: message "a2": a chat holds user and assistant messages, not tool messages ` +
				`(the system prompt is recorded with each turn, tool calls and their results in the assistant message)`},
		{"message without parts", edit(`"parts": [{"type": "text", "text": "again"}]`, `"parts": []`), `FILE:9:67: message "a2": no parts`},
		{"head on an answered user message", edit(`"head": "u2"`, `"head": "u1"`),
			`FILE:12:30: branch "main": head "u1" is a user message that has a reply (a branch ends at a reply, or at a user message that has none)`},
		{"checkpoint on an answered user message", edit(`"message_id": "a1"`, `"message_id": "u1"`),
			`FILE:16:37: checkpoint "start": message "u1" is a user message that has a reply (a branch ends at a reply, or at a user message that has none)`},
		{"turn messages swapped", edit(`"user_message_id": "u1", "assistant_message_id": "a1"`, `"user_message_id": "a1", "assistant_message_id": "u1"`),
			`FILE:19:86: turn "t1": user message "a1" is an assistant message`},
		{"turn reply is a user message", edit(`"assistant_message_id": "a1"`, `"assistant_message_id": "u2"`),
			`FILE:19:116: turn "t1": assistant message "u2" is a user message`},
		{"turn reply to another message", edit(`"turn": 1, "user_message_id": "u1"`, `"turn": 2, "user_message_id": "u2"`),
			`FILE:19:116: turn "t1": assistant message "a1" does not answer user message "u2" (its parent is "u1")`},
		{"turn number not its path's", edit(`"turn": 1`, `"turn": 2`), `FILE:19:64: turn "t1": number 2, want 1 (the user messages on the path to "u1")`},
		{"turn without user message", edit(`"user_message_id": "u1"`, `"user_message_id": ""`), `FILE:19:86: turn "t1": no user message`},
		{"turn without reply nor error", edit(`"assistant_message_id": "a1"`, `"assistant_message_id": ""`),
			`FILE:19:116: turn "t1": no assistant message and no error (only a turn that failed has no reply)`},
		{"two turns on one reply", edit("\"latency\": 0}\n", "\"latency\": 0},\n"+
			`    {"id": "t2", "chat_id": "imp-1", "branch": "main", "turn": 1, "user_message_id": "u1", "assistant_message_id": "a1", "at": "2026-01-01T00:00:00Z", "request": {"model": "m", "system_prompt": ""}, "estimated": {}, "ttft": 0, "latency": 0}`+"\n"),
			`FILE:20:116: turn "t2": message "a1" is already the reply of turn "t1"`},

		// Usage and latency: counts no sum can overflow.
		{"negative usage", edit(`"estimated": {"prompt_tokens": 5`, `"estimated": {"prompt_tokens": -5`),
			`FILE:19:317: turn "t1": estimated.prompt_tokens -5 is out of range (want 0 to 1000000000000 tokens)`},
		{"usage that overflows", edit(`"latency": 0}`, `"latency": 0, "reported": {"prompt_tokens": 9223372036854775807, "completion_tokens": 1, "total_tokens": 0}}`),
			`FILE:19:419: turn "t1": reported.prompt_tokens 9223372036854775807 is out of range (want 0 to 1000000000000 tokens)`},
		{"chat usage too large", edit(`"chat_usage": {"prompt_tokens": 0`, `"chat_usage": {"prompt_tokens": 1000000000001`),
			`FILE:19:238: turn "t1": request.chat_usage.prompt_tokens 1000000000001 is out of range (want 0 to 1000000000000 tokens)`},
		{"negative max_tokens", edit(`"system_prompt": ""`, `"system_prompt": "", "max_tokens": -1`),
			`FILE:19:220: turn "t1": request.max_tokens -1 is out of range (want 0 to 1000000000000 tokens)`},
		{"negative latency", edit(`"latency": 0}`, `"latency": -1}`),
			`FILE:19:386: turn "t1": latency -1 is out of range (want 0 to 86400000000000 ns, 24h0m0s)`},
		{"time to first token over a day", edit(`"ttft": 0`, `"ttft": 86400000000001`),
			`FILE:19:372: turn "t1": ttft 86400000000001 is out of range (want 0 to 86400000000000 ns, 24h0m0s)`},
		{"negative usage of a response", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish_reason": "stop", "usage": {"prompt_tokens": 3, "completion_tokens": -1, "total_tokens": 2}, "estimated_prompt_tokens": 5, "ttft": 0, "latency": 0}]}`),
			`FILE:19:480: turn "t1": responses[0].usage.completion_tokens -1 is out of range (want 0 to 1000000000000 tokens)`},
		{"estimate of a response too large", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish_reason": "stop", "usage": null, "estimated_prompt_tokens": 1000000000001, "ttft": 0, "latency": 0}]}`),
			`FILE:19:471: turn "t1": responses[0].estimated_prompt_tokens 1000000000001 is out of range (want 0 to 1000000000000 tokens)`},
		{"response over a day", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish_reason": "stop", "usage": null, "estimated_prompt_tokens": 5, "ttft": 0, "latency": 0}, {"finish_reason": "length", "usage": null, "estimated_prompt_tokens": 5, "ttft": 0, "latency": 86400000000001}]}`),
			`FILE:19:595: turn "t1": responses[1].latency 86400000000001 is out of range (want 0 to 86400000000000 ns, 24h0m0s)`},
		{"negative time to first token of a response", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish_reason": "stop", "usage": null, "estimated_prompt_tokens": 5, "ttft": -2, "latency": 0}]}`),
			`FILE:19:482: turn "t1": responses[0].ttft -2 is out of range (want 0 to 86400000000000 ns, 24h0m0s)`},
		{"finish reason of a response a number", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish_reason": 1}]}`),
			`FILE:19:421: turns[0].responses[0].finish_reason: want a string, not the number 1`},
		{"unknown field of a response", edit(`"latency": 0}`, `"latency": 0, "responses": [{"finish": "stop"}]}`),
			`FILE:19:404: unknown field "finish" in turns[0].responses[0]; did you mean finish_reason?`},
		{"context digest too short", edit(`"latency": 0}`, `"latency": 0, "context_digest": "5d0b8ab6"}`),
			`FILE:19:407: turn "t1": context_digest has 8 bytes; want 64 lower-case hexadecimal digits (the SHA-256 of the context file the turn was sent with), or "" for a turn sent with no context file`},
		{"context digest not hexadecimal", edit(`"latency": 0}`, `"latency": 0, "context_digest": "`+strings.Repeat("ab", 31)+`xy"}`),
			`FILE:19:407: turn "t1": context_digest holds "x" at byte 63; want 64 lower-case hexadecimal digits (the SHA-256 of the context file the turn was sent with), or "" for a turn sent with no context file`},
		{"context digest a number", edit(`"latency": 0}`, `"latency": 0, "context_digest": 12}`),
			`FILE:19:407: turns[0].context_digest: want a string, not the number 12`},

		// Decisions: a list of decisions as the engine records them.
		{"decisions not a list", edit(`"latency": 0}`, `"latency": 0, "decisions": "notalist"}`),
			"FILE:19:402: turns[0].decisions: want an array, not a string"},
		{"decision id a number", edit(`"latency": 0}`, `"latency": 0, "decisions": [{"id": 1}]}`),
			"FILE:19:410: turns[0].decisions[0].id: want a string, not the number 1"},
		{"decision with an unknown field", edit(`"latency": 0}`, `"latency": 0, "decisions": [{"id": "x", "source": "reminder", "firedd": true}]}`),
			`FILE:19:437: unknown field "firedd" in turns[0].decisions[0]; did you mean fired?`},
		{"decision trace of the wrong type", edit(`"latency": 0}`, `"latency": 0, "decisions": [{"id": "x", "source": "reminder", "trace": {"expr": "a", "children": [{"value": "yes"}]}}]}`),
			"FILE:19:483: turns[0].decisions[0].trace.children[0].value: want a boolean, not a string"},
		{"decision without id", edit(`"latency": 0}`, `"latency": 0, "decisions": [{"source": "reminder"}]}`),
			`FILE:19:403: turn "t1": decision 0: empty id`},
		{"decision of no source", edit(`"latency": 0}`, `"latency": 0, "decisions": [{"id": "x", "source": "rule"}]}`),
			`FILE:19:425: turn "t1": decision "x": source "rule", want "reminder" or "instruction"`},

		// OpenAI messages arrays.
		{"openai unknown role", "[\n  {\"role\": \"wizard\", \"content\": \"a\"}\n]",
			`FILE:2:12: messages[0]: unknown role "wizard" (want system, developer, user, assistant or tool)`},
		{"openai no role", "[\n  {\"content\": \"a\"}\n]", "FILE:2:3: messages[0]: message has no role"},
		{"openai role a number", `{"messages": [{"role": 12}]}`, "FILE:1:24: messages[0]: role: want a string, not number"},
		{"openai content a number", `[{"role": "user", "content": 12}]`,
			"FILE:1:30: messages[0]: content: want a string, an array of text parts or null, not a number"},
		{"openai image part", "[{\"role\": \"user\",\n  \"content\": [{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"image_url\", \"image_url\": {\"url\": \"x\"}}]}]",
			`FILE:2:55: messages[0]: content[1]: part type "image_url" is not supported (only text parts can be imported)`},
		{"openai system message later", "[{\"role\": \"user\", \"content\": \"a\"},\n {\"role\": \"system\", \"content\": \"b\"}]",
			`FILE:2:11: messages[1]: system message after the start: only a leading system or developer message can be imported (it becomes the chat's system_prompt)`},
		{"openai developer message later", "[{\"role\": \"developer\", \"content\": \"a\"},\n {\"role\": \"developer\", \"content\": \"b\"}]",
			`FILE:2:11: messages[1]: developer message after the start: only a leading system or developer message can be imported (it becomes the chat's system_prompt)`},
		{"openai tool answers no call", "[\n  {\"role\": \"user\", \"content\": \"a\"},\n  {\"role\": \"tool\", \"content\": \"d\", \"tool_call_id\": \"x\"}\n]",
			`FILE:3:52: messages[1]: tool message with tool_call_id "x" answers no call`},
		{"openai tool message without id", "[{\"role\": \"user\", \"content\": \"a\"},\n {\"role\": \"tool\", \"content\": \"d\"}]",
			"FILE:2:2: messages[1]: tool message has no tool_call_id"},
		{"openai unanswered call", `[{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": [` +
			`{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},` +
			` {"role": "tool", "tool_call_id": "c1", "content": "ok"}]`,
			`FILE:1:160: messages[1]: tool call "c2" has no tool message answering it`},
		{"openai bad arguments", `[{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]}]`,
			`FILE:1:110: messages[0]: tool_calls[0]: arguments are not JSON: invalid character 'o' looking for beginning of object key string`},
		{"openai call without name", `[{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]`,
			`FILE:1:83: messages[0]: tool_calls[0]: no function name`},
		{"openai call used twice", `[{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}, {"id": "c", "function": {"name": "f", "arguments": "{}"}}]}]`,
			`FILE:1:105: messages[0]: tool_calls[1]: id "c" used twice`},
		{"openai function_call", `[{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}]`,
			`FILE:1:24: messages[0]: the legacy "function_call" is not supported; use "tool_calls"`},
		{"openai messages not an array", `{"model": "m", "messages": 5}`, `FILE:1:28: "messages" is not an array`},
		{"openai empty array", "[]", "FILE:1:1: no messages to import"},
		{"openai truncated", "[{\"role\": \"user\", \"content\": \"a\"},\n{\"role\": \"assi", "FILE:2:15: unexpected end of the file (truncated?)"},
		{"openai trailing data", `[{"role": "user", "content": "a"}] x`, "FILE:1:36: invalid character 'x' after top-level value"},
	}

	isolateCtxlabEnv(t)
	db := expScriptDB(t)
	dir := t.TempDir()
	absent := filepath.Join(dir, "absent.db")
	// The good export imports (into a database of its own), so every change below is what
	// makes its file bad.
	if got := mustRunCtxlab(t, "import", impGood, "--db", filepath.Join(t.TempDir(), "good.db")); got != "imp-1\n" {
		t.Fatalf("the good export: got %q, want imp-1", got)
	}
	before, files := expDBState(t, db), expDirState(t, filepath.Dir(db))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			expWriteFile(t, file, tt.content)
			for _, target := range []string{db, absent} {
				r := runCtxlab(t, "import", file, "--db", target)
				if r.code != exitInvalid {
					t.Errorf("got exit %d, want %d", r.code, exitInvalid)
				}
				if got := strings.TrimSuffix(strings.ReplaceAll(r.stderr, file, "FILE"), "\n"); got != tt.want {
					t.Errorf("got stderr\n\t%s\nwant\n\t%s", got, tt.want)
				}
				if r.stdout != "" {
					t.Errorf("got stdout %q, want nothing", r.stdout)
				}
			}
			if after := expDirState(t, filepath.Dir(db)); after != files {
				t.Errorf("the database files changed:\n%s\nwant\n%s", after, files)
			}
			if after := expDBState(t, db); after != before {
				t.Error("the database changed")
			}
			if _, err := os.Stat(absent); !os.IsNotExist(err) {
				t.Errorf("a refused import created the database %s (stat: %v)", absent, err)
				os.Remove(absent)
			}
		})
	}
}

// TestImportTakesWhatCtxlabMakes checks that every shape of chat ctxlab makes is imported,
// and that export, import, export gives the same JSON: the chats of every script (edits,
// regenerated replies, checkpoints restored, rewinds, scripted tool calls), live turns
// answered by a test server (a tool round, replies cut short in their text and in a tool
// call), and OpenAI arrays (a leading developer message, tool calls, a request body ending
// with its user message, user messages in a row, control characters), one
// of them continued.
func TestImportTakesWhatCtxlabMakes(t *testing.T) {
	liveEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "ctxlab.db")
	chats := runAllScripts(t, db) + runLiveShapes(t, db) + importOpenAIShapes(t, dir, db)

	d, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := d.ListChats(context.Background(), store.ListOptions{})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != chats {
		t.Errorf("got %d chats, want %d", len(list), chats)
	}
	fresh := filepath.Join(dir, "fresh.db")
	for _, c := range list {
		first := mustRunCtxlab(t, "export", c.ID, "--db", db)
		file := filepath.Join(dir, "export.json")
		expWriteFile(t, file, first)
		if r := runCtxlab(t, "import", file, "--db", fresh); r.code != 0 {
			t.Errorf("chat %s (%s): import: exit %d, stderr %s", c.ID, c.Title, r.code, r.stderr)
			continue
		}
		if second := mustRunCtxlab(t, "export", c.ID, "--db", fresh); second != first {
			t.Errorf("chat %s (%s): export, import, export differs:\n--- first\n%s\n--- second\n%s", c.ID, c.Title, first, second)
		}
	}
}

// runAllScripts runs every script of testdata that needs no model into db, and returns the
// number of chats they make.
func runAllScripts(t *testing.T, db string) int {
	t.Helper()
	scripts, err := filepath.Glob("testdata/*/*.script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	chats := 0
	for _, s := range scripts {
		if !strings.HasPrefix(s, "testdata/live/") { // those want a model
			mustRunCtxlab(t, "run", s, "--db", db)
			chats++
		}
	}
	return chats
}

// runLiveShapes makes one chat of live turns in db, against a test server: a tool round
// (a call answered, one failing), a reply cut short in its text, one cut in a tool call.
func runLiveShapes(t *testing.T, db string) int {
	t.Helper()
	const (
		calls = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` +
			`{"index":0,"id":"call_1","type":"function","function":{"name":"run_sql","arguments":"{\"query\": \"select 1\"}"}},` +
			`{"index":1,"id":"call_2","type":"function","function":{"name":"export_csv","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`
		cutCall = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` +
			`{"index":0,"id":"call_3","type":"function","function":{"name":"run_sql","arguments":"{\"query\": \"sel"}}]},"finish_reason":null}]}`
		usage = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":2,"total_tokens":92}}`
	)
	srv := startHTTPModel(t, func(w http.ResponseWriter, _ *http.Request, body map[string]any, _ <-chan struct{}) {
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		text, _ := last["content"].(string)
		sseStart(w)
		switch {
		case last["role"] == "user" && strings.Contains(text, "report"):
			sseLine(w, calls)
			sseLine(w, usage)
		case strings.Contains(text, "story"):
			sseLine(w, sseText("Once upon ", ""))
			sseLine(w, `{oops`)
			return
		case strings.Contains(text, "cut call"):
			sseLine(w, cutCall)
			sseLine(w, `{oops`)
			return
		default:
			sseLine(w, sseText("Done.", "stop"))
			sseLine(w, usage)
		}
		sseLine(w, "[DONE]")
	})
	for _, s := range []string{"testdata/cli/import/live.script.yaml", "testdata/cli/import/live-cut-call.script.yaml"} {
		if r := runCtxlab(t, "run", s, "--base-url", srv.url, "--db", db); r.code != exitFailure || !strings.Contains(r.stderr, "malformed stream") {
			t.Fatalf("%s: exit %d, stderr %q; want 1 and the reply cut short", s, r.code, r.stderr)
		}
	}
	live := savedChat(t, db, "import-live")
	var states []string
	for _, m := range live.Messages {
		for _, p := range m.ToolParts() {
			states = append(states, fmt.Sprintf("%s %v", p.State, m.Interrupted))
		}
	}
	if got, want := strings.Join(states, ", "), "output-available false, output-error false, input-streaming true"; got != want {
		t.Fatalf("the live chat's tool calls: got %s, want %s", got, want)
	}
	if r := live.Turns[1].Reported; r == nil || r.TotalTokens != 184 {
		t.Fatalf("the tool round's reported usage: got %+v, want the sum of its two requests'", r)
	}
	return 1
}

// importOpenAIShapes imports OpenAI arrays into db, continues the first one with a script
// (its reply regenerated, which records a turn for a reply that had none, then a new
// turn), and returns the number of chats made.
func importOpenAIShapes(t *testing.T, dir, db string) int {
	t.Helper()
	arrays := []struct{ json, title string }{
		{`{"model": "gpt-4o", "messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "count"},` +
			` {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_sql", "arguments": "{}"}}]},` +
			` {"role": "tool", "tool_call_id": "c1", "content": "42"}, {"role": "assistant", "content": "42."}, {"role": "user", "content": "and now?"}]}`, "count"},
		// (An array that starts with a reply, or holds two in a row, is refused: issue 12
		// item 7, TestProbeImportShapes.)
		{`[{"role": "user", "content": "a"}, {"role": "user", "content": "b"},` +
			` {"role": "assistant", "content": "c"}]`, "a"},
		{`[{"role": "user", "content": "\u001b[1mbold\u0000 text"}]`, "[1mbold text"},
	}
	var ids []string
	for i, a := range arrays {
		file := filepath.Join(dir, fmt.Sprintf("openai-%d.json", i))
		expWriteFile(t, file, a.json)
		id := strings.TrimSpace(mustRunCtxlab(t, "import", file, "--db", db))
		if got := savedChat(t, db, id).Chat.Title; got != a.title {
			t.Errorf("array %d: got title %q, want %q", i, got, a.title)
		}
		ids = append(ids, id)
	}
	// A request body ends with the question it asks: replayed as a turn with no reply.
	if out := mustRunCtxlab(t, "replay", ids[0], "--db", db); !strings.Contains(out, "user:            and now?\n  fired:           none\n  assistant:       (no reply)") ||
		!strings.Contains(out, "── 2 turns replayed") {
		t.Errorf("replay of an array ending with a question: got\n%s\nwant its last turn with no reply", out)
	}
	ctxFile, err := filepath.Abs("testdata/cli/export.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "continue.script.yaml")
	expWriteFile(t, script, fmt.Sprintf("context: %s\nchat: {id: %s}\nturns:\n"+
		"  - regenerate: {assistant: Forty-two.}\n  - user: still there?\n    assistant: Yes.\n", ctxFile, ids[0]))
	mustRunCtxlab(t, "run", script, "--db", db)
	if turns := savedChat(t, db, ids[0]).Turns; len(turns) != 2 || turns[0].Number != 1 || turns[1].Number != 2 {
		t.Fatalf("the continued chat: got turns %+v, want turns 1 and 2", turns)
	}
	return len(arrays)
}
