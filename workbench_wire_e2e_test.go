package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// topLevel returns the keys of a JSON object in their order, with each one's value as
// compact JSON.
func topLevel(t *testing.T, raw []byte) ([]string, map[string]string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	vals := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			t.Fatal(err)
		}
		keys, vals[k] = append(keys, k), b.String()
	}
	return keys, vals
}

// keyLineRe matches a line of the Request tab that holds a key of the request's object:
// indented two spaces, then the key and the start of its value.
var keyLineRe = regexp.MustCompile(`^  "([a-z_]+)": (.*?),?\s*$`)

// shownKeys pages through the focused Request tab from its top and returns the request's
// keys as the tab shows them, in order, with the first line of each one's value, and the
// pinned lines.
func shownKeys(t *testing.T, p *pane) (keys []string, vals map[string]string, head string) {
	t.Helper()
	p.keys("Home")
	vals = map[string]string{}
	for range 40 {
		screen := waitUntil(t, p, "the Request tab drawn", e2eTimeout, func(s string) bool {
			return strings.Contains(inspectorColumn(s), "[Request]")
		})
		in := inspectorColumn(screen)
		if head == "" {
			head, _, _ = strings.Cut(in, "────")
		}
		for _, l := range strings.Split(in, "\n") {
			if m := keyLineRe.FindStringSubmatch(l); m != nil {
				if _, seen := vals[m[1]]; !seen {
					keys, vals[m[1]] = append(keys, m[1]), m[2]
				}
			}
		}
		if !strings.Contains(in, "more lines") {
			return keys, vals, head
		}
		p.keys("PageDown")
		waitUntil(t, p, "the page turned", e2eTimeout, func(s string) bool { return inspectorColumn(s) != in })
	}
	t.Fatal("the Request tab never reached its end")
	return nil, nil, ""
}

// TestWorkbenchTmuxRequestOnTheWire runs the real binary in tmux against aimock: a turn
// whose tool loop sent two requests. For each, the Request tab says it shows the body sent
// and shows the keys aimock recorded for it (GET /__aimock/journal), in order, stream and
// stream_options included, with their values; and y copies a body equal to the one aimock
// recorded, without the API key.
func TestWorkbenchTmuxRequestOnTheWire(t *testing.T) {
	s := setupE2E(t)
	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)
	send(t, p, "what is the weather in kelvin?")
	waitFor(t, p, "Paris is at 293 kelvin", e2eTimeout)
	waitIdle(t, p)
	journal := s.srv.Journal(t, "/chat/completions")
	if len(journal) != 2 {
		t.Fatalf("aimock recorded %d requests, want the tool loop's 2", len(journal))
	}

	p.keys("Tab", "3") // the transcript, the Request tab
	focusInspector(t, p)
	for k, entry := range journal {
		waitFor(t, p, fmt.Sprintf("request %d/2 of the tool loop", k+1), e2eTimeout)
		var recorded map[string]any
		if err := json.Unmarshal(entry.Body, &recorded); err != nil {
			t.Fatal(err)
		}
		delete(recorded, "_endpointType") // aimock's own
		wantKeys, wantVals := topLevel(t, entry.Body)
		wantKeys = slices.DeleteFunc(wantKeys, func(k string) bool { return k == "_endpointType" })
		if _, ok := recorded["stream_options"]; !ok || recorded["stream"] != true {
			t.Fatalf("request %d: aimock recorded no stream fields: %s", k+1, entry.Body)
		}

		keys, vals, head := shownKeys(t, p)
		if !strings.Contains(strings.Join(strings.Fields(head), " "), "sent: the exact body on the wire") {
			t.Errorf("request %d: the tab does not say it shows the body sent:\n%s", k+1, head)
		}
		if !reflect.DeepEqual(keys, wantKeys) {
			t.Errorf("request %d: the tab shows the keys %v, aimock recorded %v", k+1, keys, wantKeys)
		}
		for _, key := range wantKeys {
			if v := wantVals[key]; !strings.HasPrefix(v, "{") && !strings.HasPrefix(v, "[") && vals[key] != v {
				t.Errorf("request %d: the tab shows %s: %s, aimock recorded %s", k+1, key, vals[key], v)
			}
		}

		p.keys("BTab", "y") // the transcript copies the request the tab shows
		waitForWords(t, p, "copied the request JSON")
		buf := p.run("show-buffer")
		var copied map[string]any
		if err := json.Unmarshal([]byte(buf), &copied); err != nil {
			t.Fatalf("request %d: y copied %q: %v", k+1, buf, err)
		}
		if !reflect.DeepEqual(copied, recorded) {
			t.Errorf("request %d: y copied\n%s\naimock recorded\n%s", k+1, buf, entry.Body)
		}
		if strings.Contains(buf, liveKey) {
			t.Errorf("request %d: the copy holds the API key", k+1)
		}
		p.keys("Tab")
		waitFor(t, p, " inspector · ", e2eTimeout)
		p.keys("t")
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
}
