package predicates

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestResultTreesGolden pins the Result trees (values, whys, errors) of a representative set
// of expressions on one turn: testdata/results.golden, regenerated with -update.
func TestResultTreesGolden(t *testing.T) {
	c := at("2026-03-27T15:30:00Z", "2026-03-27T13:10:00Z")
	c.Turn = 6
	c.Content = "The deploy failed: reset my password, then retry the SQL"
	c.CurrentMessage = &chat.Message{Role: chat.RoleUser, Locale: &chat.Locale{TimeZone: "Asia/Tokyo"}}
	c.Usage = chat.Usage{TotalTokens: 12000}
	c.FiredOnce = map[string]bool{"welcome": true}
	c.LastAssistantReplies = []*chat.Message{
		assistant(text("first"), toolIO("bash", failed, `{"cmd":"make"}`, "", "exit 2")),
		assistant(text("second reply"), toolIO("bash", failed, `{"cmd":"make test"}`, "", "exit 1")),
		assistant(text("third reply, longer"), toolIO("run_sql", outputOK, `{"query":"select 1"}`, "1", "")),
	}
	c.LastAssistantMessage = c.LastAssistantReplies[2]
	srcs := []string{
		"and(everyNTurns(3), not(once()))",
		"or(once('welcome'), once('recap'))",
		"contentIncludes(['error', 'fail'])",
		"contentPattern(/pass(word)?/i)",
		"contentMatches(['deploy pipeline', 'password reset', 'sql query'], threshold=0.5)",
		"classifies('topics', topN=2)",
		"lastAssistantLength(gte=10, lte=100)",
		"toolCalled(/sql/)",
		"toolCall(name='run_sql', input=/select/)",
		"toolFailedStreak('bash', gte=2)",
		"withinLastN(3, toolFailed('bash'))",
		"everyOfLastN(3, toolFailed('bash'))",
		"usageExceeds(10000)",
		"elapsedExceeds(2h)",
		"dayChanged()",
		"hourChanged(tz='UTC')",
		"seasonChanged(hemisphere='south')",
	}
	var b bytes.Buffer
	for _, src := range srcs {
		r := mustParse(t, src).Eval(c)
		b.WriteString(src + "\n")
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	path := filepath.Join("testdata", "results.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Result trees differ from %s (run with -update after checking):\n%s", path, b.String())
	}
}
