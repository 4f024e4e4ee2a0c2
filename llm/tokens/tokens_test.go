package tokens

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine/chat"
)

var (
	o200k  = New(O200k)
	cl100k = New(Cl100k)
)

func TestEncodingFor(t *testing.T) {
	tests := []struct {
		model string
		want  Encoding
	}{
		{"gpt-4o", O200k},
		{"gpt-4o-mini", O200k},
		{"gpt-4o-2024-08-06", O200k},
		{"chatgpt-4o-latest", O200k},
		{"gpt-4.1", O200k},
		{"gpt-4.1-nano", O200k},
		{"gpt-4.5-preview", O200k},
		{"gpt-5", O200k},
		{"gpt-5-mini", O200k},
		{"gpt-5.1", O200k},
		{"o1", O200k},
		{"o1-mini", O200k},
		{"o3-mini", O200k},
		{"o4-mini", O200k},
		{"GPT-4O", O200k},
		{"openai/gpt-4o-mini", O200k},
		{"ft:gpt-4o-mini:acme::abc123", O200k},
		{"gpt-oss:20b", O200k},
		{"gpt-4", Cl100k},
		{"gpt-4-turbo", Cl100k},
		{"gpt-3.5-turbo", Cl100k},
		{"text-embedding-3-small", Cl100k},
		{"llama3", Cl100k},
		{"qwen2.5:7b", Cl100k},
		{"o10-model", Cl100k},
		{"scripted", Cl100k},
		{"", Cl100k},
	}
	for _, tt := range tests {
		if got := EncodingFor(tt.model); got != tt.want {
			t.Errorf("EncodingFor(%q) = %s, want %s", tt.model, got, tt.want)
		}
	}
}

func TestZeroCounter(t *testing.T) {
	var c Counter
	if got := c.Encoding(); got != Cl100k {
		t.Errorf("zero Counter encoding = %s, want cl100k_base", got)
	}
	if got := c.Count("tiktoken is great!"); got != 6 {
		t.Errorf("zero Counter Count = %d, want 6", got)
	}
}

func TestParseEncoding(t *testing.T) {
	tests := []struct {
		in      string
		want    Encoding
		wantErr bool
	}{
		{"o200k", O200k, false},
		{"O200K_BASE", O200k, false},
		{"cl100k", Cl100k, false},
		{" cl100k_base ", Cl100k, false},
		{"p50k", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := ParseEncoding(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseEncoding(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestForModel(t *testing.T) {
	tests := []struct {
		model, override string
		want            Encoding
		wantErr         bool
	}{
		{"gpt-4o", "", O200k, false},
		{"llama3", "", Cl100k, false},
		{"llama3", "o200k", O200k, false},
		{"gpt-4o", "cl100k", Cl100k, false},
		{"gpt-4o", "bogus", "", true},
	}
	for _, tt := range tests {
		c, err := ForModel(tt.model, tt.override)
		if (err != nil) != tt.wantErr {
			t.Errorf("ForModel(%q, %q) error = %v, want error %v", tt.model, tt.override, err, tt.wantErr)
			continue
		}
		if err == nil && c.Encoding() != tt.want {
			t.Errorf("ForModel(%q, %q) = %s, want %s", tt.model, tt.override, c.Encoding(), tt.want)
		}
	}
}

// Counts published in OpenAI's cookbook "How to count tokens with tiktoken".
func TestCountCookbookStrings(t *testing.T) {
	tests := []struct {
		text          string
		cl100k, o200k int
	}{
		{"", 0, 0},
		{"tiktoken is great!", 6, 6},
		{"antidisestablishmentarianism", 6, 6},
		{"2 + 2 = 4", 7, 7},
		{"お誕生日おめでとう", 9, 8},
	}
	for _, tt := range tests {
		if got := cl100k.Count(tt.text); got != tt.cl100k {
			t.Errorf("cl100k Count(%q) = %d, want %d", tt.text, got, tt.cl100k)
		}
		if got := o200k.Count(tt.text); got != tt.o200k {
			t.Errorf("o200k Count(%q) = %d, want %d", tt.text, got, tt.o200k)
		}
	}
}

// The cookbook's example conversation: 129 prompt tokens on gpt-4 (cl100k), 124 on gpt-4o
// (o200k), as reported by the OpenAI API.
func TestCountCookbookMessages(t *testing.T) {
	msgs := []struct{ role, name, content string }{
		{"system", "", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{"system", "example_user", "New synergies will help drive top-line growth."},
		{"system", "example_assistant", "Things working well together will increase revenue."},
		{"system", "example_user", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{"system", "example_assistant", "Let's talk later when we're less busy about how to do better."},
		{"user", "", "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	for _, tt := range []struct {
		c    *Counter
		want int
	}{{cl100k, 129}, {o200k, 124}} {
		got := replyPrime
		for _, m := range msgs {
			got += tt.c.countNamed(m.role, m.name, m.content)
		}
		if got != tt.want {
			t.Errorf("%s: cookbook conversation = %d tokens, want %d", tt.c.Encoding(), got, tt.want)
		}
	}
}

// The cookbook's tools example: 105 prompt tokens on gpt-4 (cl100k), 101 on gpt-4o (o200k).
func TestCountRequestCookbookTools(t *testing.T) {
	req := chat.Request{
		Model: "gpt-4o",
		Messages: []chat.WireMessage{
			{Role: chat.RoleSystem, Content: "You are a helpful assistant that can answer to questions about the weather."},
			{Role: chat.RoleUser, Content: "What's the weather like in San Francisco?"},
		},
		Tools: []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{
			Name:        "get_current_weather",
			Description: "Get the current weather in a given location",
			Parameters: json.RawMessage(`{"type": "object", "properties": {
				"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
				"unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
				"required": ["location"]}`),
		}}},
	}
	for _, tt := range []struct {
		c    *Counter
		want int
	}{{cl100k, 105}, {o200k, 101}} {
		b := tt.c.CountRequest(req)
		if b.Total != tt.want {
			t.Errorf("%s: CountRequest total = %d, want %d (breakdown %+v)", tt.c.Encoding(), b.Total, tt.want, b)
		}
		if sum := b.System + b.History + b.Tools + b.Framing; sum != b.Total {
			t.Errorf("%s: parts sum to %d, total %d", tt.c.Encoding(), sum, b.Total)
		}
		msgs := 0
		for _, n := range b.Messages {
			msgs += n
		}
		if msgs+replyPrime+b.Tools != b.Total {
			t.Errorf("%s: messages %v + priming + tools %d != total %d", tt.c.Encoding(), b.Messages, b.Tools, b.Total)
		}
	}
}

func TestCountRequestBreakdown(t *testing.T) {
	c := o200k
	req := chat.Request{Messages: []chat.WireMessage{
		{Role: chat.RoleSystem, Content: "You are terse."},
		{Role: chat.RoleUser, Parts: []chat.ContentPart{{Type: "text", Text: "hello"}, {Type: "text", Text: "<system-reminder>Be brief.</system-reminder>"}}},
		{Role: chat.RoleAssistant, ToolCalls: []chat.WireToolCall{{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}}}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: `[{"n": 1}]`},
		{Role: chat.RoleAssistant, Content: "One."},
	}}
	b := c.CountRequest(req)
	wantSystem := c.Count("You are terse.")
	wantHistory := c.Count("hello") + c.Count("<system-reminder>Be brief.</system-reminder>") +
		perToolCall + c.Count("run_sql") + c.Count(`{"query":"select 1"}`) +
		c.Count(`[{"n": 1}]`) + c.Count("One.")
	wantFraming := 5*perMessage + c.Count("system") + c.Count("user") + 2*c.Count("assistant") + c.Count("tool") + replyPrime
	if b.System != wantSystem || b.History != wantHistory || b.Framing != wantFraming || b.Tools != 0 {
		t.Errorf("breakdown = %+v, want system %d history %d framing %d tools 0", b, wantSystem, wantHistory, wantFraming)
	}
	if got, want := c.CountMessages(req.Messages)+replyPrime, b.Total; got != want {
		t.Errorf("CountMessages + priming = %d, want %d", got, want)
	}
	if got, want := c.CountMessage(req.Messages[4]), b.Messages[4]; got != want {
		t.Errorf("CountMessage(last) = %d, want %d", got, want)
	}
	// The same request cut into Head, Shared and Messages (as the engine builds them) counts
	// the same.
	for h := 0; h <= len(req.Messages); h++ {
		for s := h; s <= len(req.Messages); s++ {
			cut := req
			cut.Head, cut.Shared, cut.Messages = req.Messages[:h:h], req.Messages[h:s:s], req.Messages[s:]
			if got := c.CountRequest(cut); !reflect.DeepEqual(got, b) {
				t.Errorf("cut at %d, %d: breakdown = %+v, want %+v", h, s, got, b)
			}
		}
	}
	reply := chat.WireMessage{Role: chat.RoleAssistant, Content: "Two lines\nof text."}
	u := c.EstimateUsage(req, reply)
	if u.PromptTokens != b.Total || u.CompletionTokens != c.Count(reply.Content) || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("EstimateUsage = %+v, want prompt %d completion %d", u, b.Total, c.Count(reply.Content))
	}
}

func TestCountToolsNested(t *testing.T) {
	flat := []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "f", Description: "Do it.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}}}
	nested := []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "f", Description: "Do it.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}}}}}}`)}}}
	none := []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "f", Description: "Do it."}}}
	bad := []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "f", Description: "Do it.", Parameters: json.RawMessage(`{`)}}}
	c := o200k
	if got, want := c.CountTools(none), 12+7+c.Count("f:Do it"); got != want {
		t.Errorf("CountTools(no parameters) = %d, want %d", got, want)
	}
	if got, want := c.CountTools(bad), c.CountTools(none); got != want {
		t.Errorf("CountTools(invalid parameters) = %d, want %d", got, want)
	}
	if got, want := c.CountTools(flat), c.CountTools(none)+3+3+c.Count("a:string:"); got != want {
		t.Errorf("CountTools(flat) = %d, want %d", got, want)
	}
	if got, base := c.CountTools(nested), c.CountTools(none)+3+3+c.Count("a:array:"); got <= base {
		t.Errorf("CountTools(nested) = %d, want more than the flat part %d", got, base)
	}
	if got := c.CountTools(nil); got != 0 {
		t.Errorf("CountTools(nil) = %d, want 0", got)
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		est, rep int
		want     Delta
	}{
		{118, 120, Delta{118, 120, 2, 1.7}},
		{130, 120, Delta{130, 120, -10, -8.3}},
		{50, 0, Delta{50, 0, -50, 0}},
	}
	for _, tt := range tests {
		if got := Compare(tt.est, tt.rep); got != tt.want {
			t.Errorf("Compare(%d, %d) = %+v, want %+v", tt.est, tt.rep, got, tt.want)
		}
	}
	b := Breakdown{Total: 118}
	if got := b.Compare(chat.Usage{PromptTokens: 120, CompletionTokens: 9}); got.Diff != 2 {
		t.Errorf("Breakdown.Compare diff = %d, want 2", got.Diff)
	}
	if got := b.Usage(); got.PromptTokens != 118 || got.CompletionTokens != 0 {
		t.Errorf("Breakdown.Usage = %+v, want 118 prompt tokens", got)
	}
}

// Counting a long text chunk by chunk, in parallel and through the cache, must give the
// count of one encoder call.
func TestCountLongExact(t *testing.T) {
	text := corpus(128 << 10)
	for _, c := range []*Counter{New(O200k), New(Cl100k)} {
		want := c.countDirect(text)
		if got := c.Count(text); got != want {
			t.Errorf("%s: chunked Count = %d, want %d", c.Encoding(), got, want)
		}
		if got := c.Count(text); got != want { // from the cache
			t.Errorf("%s: cached Count = %d, want %d", c.Encoding(), got, want)
		}
		grown := text + "\nOne more line appended at the end of the history."
		if got, want := c.Count(grown), c.countDirect(grown); got != want {
			t.Errorf("%s: Count after append = %d, want %d", c.Encoding(), got, want)
		}
	}
}

func TestSplitChunks(t *testing.T) {
	text := corpus(100 << 10)
	chunks := splitChunks(text, chunkTarget, maxSpaceRun)
	if got := strings.Join(chunks, ""); got != text {
		t.Fatalf("chunks do not join back into the text")
	}
	if len(chunks) < 10 {
		t.Errorf("got %d chunks of a 100 KiB text, want at least 10", len(chunks))
	}
	for i, ch := range chunks[:len(chunks)-1] {
		if len(ch) < chunkTarget {
			t.Errorf("chunk %d has %d bytes, want at least %d", i, len(ch), chunkTarget)
		}
	}
	// Content-defined: a text that grows keeps its earlier chunks.
	grown := splitChunks(text+"\nmore text", chunkTarget, maxSpaceRun)
	for i := range len(chunks) - 1 {
		if grown[i] != chunks[i] {
			t.Fatalf("chunk %d changed when the text grew", i)
		}
	}
	tests := []struct {
		in   string
		want []string
	}{
		{"ab\ncd", []string{"ab\n", "cd"}},
		{"ab\n/cd", []string{"ab\n/cd"}},
		{"ab\n cd", []string{"ab\n cd"}},
		{"ab cd ef", []string{"ab", " cd", " ef"}},
		{"ab  cd", []string{"ab  cd"}},
		{"1 2", []string{"1 2"}},
		{"é x", []string{"é x"}},
		{" \n \n \n x", []string{" \n \n", " \n x"}},
		{"\n\n\n\n\n", []string{"\n\n\n\n\n"}},
	}
	for _, tt := range tests {
		if got := splitChunks(tt.in, 1, 3); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("splitChunks(%q, 1, 3) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Long runs of mixed white space are cut (the encoder is quadratic on them): still exact.
func TestCountSpaceRunExact(t *testing.T) {
	for _, unit := range []string{" \n", "\t\n ", "  \n\n", "\r\n "} {
		text := "start" + strings.Repeat(unit, 3000/len(unit)) + "end\n"
		if n := len(splitChunks(text, chunkTarget, maxSpaceRun)); n < 3 {
			t.Errorf("%q run: %d chunks, want the run cut", unit, n)
		}
		for _, c := range []*Counter{o200k, cl100k} {
			if got, want := c.Count(text), c.countDirect(text); got != want {
				t.Errorf("%s: Count of a %q run = %d, want %d", c.Encoding(), unit, got, want)
			}
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	c := New(O200k)
	long := corpus(40 << 10)
	want := New(O200k).countDirect(long)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			if got := c.Count(long); got != want {
				errs <- fmt.Sprintf("concurrent Count = %d, want %d", got, want)
			}
			if got := c.Count("hello world"); got != 2 {
				errs <- fmt.Sprintf("concurrent Count(hello world) = %d, want 2", got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// FuzzChunksExact checks that cutting at every safe boundary never changes the count.
func FuzzChunksExact(f *testing.F) {
	for _, s := range []string{
		"hello world", "a\nb", "a.\n\nB", "x \n\t y\nz", "it's\nI'LL go", "a\n/b", ".\n/x",
		"foo  bar", "a\r\nb", " \n \n\t\n  \n x", "x\n<a>\n</a>\n<b", "\n<\n<<", "\r\n \r\n y", "a.\n \n/b", "123\n456", "日本\nx", "a\n\u00a0b", "a\x1c\nb", "\xff\nq", "a 'sb",
		corpus(2000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			t.Skip("long white-space runs make the encoder quadratic")
		}
		for _, c := range []*Counter{o200k, cl100k} {
			want := c.countDirect(s)
			got := 0
			chunks := splitChunks(s, 1, 2)
			for _, ch := range chunks {
				got += c.countDirect(ch)
			}
			if got != want {
				t.Errorf("%s: chunked count of %q = %d, want %d (chunks %q)", c.Encoding(), s, got, want, chunks)
			}
			got = 0
			for _, b := range tagBlocks(s) {
				got += c.countDirect(b)
			}
			if got != want {
				t.Errorf("%s: count of %q by tag blocks = %d, want %d (blocks %q)", c.Encoding(), s, got, want, tagBlocks(s))
			}
		}
	})
}

func BenchmarkCount100k(b *testing.B) {
	for _, enc := range []Encoding{O200k, Cl100k} {
		text := corpus(420 << 10)
		n := New(enc).countDirect(text)
		b.Run(string(enc)+"/cold", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			warm := New(enc)
			warm.load()
			for b.Loop() {
				warm.mu.Lock()
				warm.cache, warm.cacheBytes = nil, 0 // every iteration counts from scratch
				warm.mu.Unlock()
				if got := warm.Count(text); got != n {
					b.Fatalf("Count = %d, want %d", got, n)
				}
			}
			b.ReportMetric(float64(n), "tokens")
		})
		b.Run(string(enc)+"/cached", func(b *testing.B) {
			c := New(enc)
			c.Count(text)
			for b.Loop() {
				c.Count(text)
			}
		})
		b.Run(string(enc)+"/single-call", func(b *testing.B) {
			c := New(enc)
			c.load()
			for b.Loop() {
				c.countDirect(text)
			}
		})
	}
}

func BenchmarkCountSpaceRun(b *testing.B) {
	text := strings.Repeat(" \n", 20000)
	c := New(O200k)
	c.load()
	for b.Loop() {
		c.mu.Lock()
		c.cache, c.cacheBytes = nil, 0
		c.mu.Unlock()
		c.Count(text)
	}
}

func BenchmarkCountReminder(b *testing.B) {
	texts := []string{
		"<system-reminder>Stay concise.</system-reminder>",
		"<system-reminder>The user is on the pro tier: offer the export feature when it helps.</system-reminder>",
		"<system-reminder>Validate dates are in the future before booking. Ask for the time zone when the user gives a local time without one.</system-reminder>",
	}
	c := New(O200k)
	c.load()
	b.Run("encoder", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c.countDirect(texts[i%len(texts)])
			i++
		}
	})
	b.Run("memo", func(b *testing.B) { // a text counted before, by any Counter
		i := 0
		for b.Loop() {
			c.Count(texts[i%len(texts)])
			i++
		}
	})
}

// TestCountMemo checks that the memo shared by Counters gives each encoding its own
// counts, for short texts and for texts cut into chunks, and survives being emptied.
func TestCountMemo(t *testing.T) {
	texts := []string{"héllo, wörld", strings.Repeat("Reminder: stay concise.\n", 100), corpus(6 << 10)}
	for round := range 2 {
		for _, enc := range []Encoding{O200k, Cl100k, O200k} {
			for _, s := range texts {
				want := New(enc).countDirect(s)
				if got := New(enc).Count(s); got != want {
					t.Errorf("round %d, %s: Count(%d bytes) = %d, want %d", round, enc, len(s), got, want)
				}
			}
		}
		for i := range memos { // empty the memos, as a full one is
			memos[i].mu.Lock()
			memos[i].m, memos[i].bytes = nil, 0
			memos[i].mu.Unlock()
		}
	}
}

// TestTagBlocks checks where tagBlocks cuts, and that counting by blocks (through the
// memo) gives the count of the whole text.
func TestTagBlocks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"no tags here", []string{"no tags here"}},
		{"<a>\n<b>", []string{"<a>\n", "<b>"}},
		{"hi\n\n<system-reminder>\nX\n</system-reminder>\n\n<system-reminder>\nY\n</system-reminder>",
			[]string{"hi\n\n", "<system-reminder>\nX\n", "</system-reminder>\n\n", "<system-reminder>\nY\n", "</system-reminder>"}},
		{"\n<x", []string{"\n", "<x"}},
		{"a\n<", []string{"a\n", "<"}},
	} {
		if got := tagBlocks(c.in); !slices.Equal(got, c.want) {
			t.Errorf("tagBlocks(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	text := "Why is the timesheet partial again?\n\n<system-reminder>\nKeep answers short.\n</system-reminder>\n\n" +
		"<system-reminder>\nName the system, 'Postgres'.\n</system-reminder>\n<x>\n/</x>\n<y>"
	for _, c := range []*Counter{o200k, cl100k} {
		if got, want := c.Count(text), c.countDirect(text); got != want {
			t.Errorf("%s: %d tokens by blocks, want %d", c.Encoding(), got, want)
		}
	}
}

// unbroken is n bytes of text with no safe boundary: base64 of pseudo-random bytes.
func unbroken(n int) string {
	raw := make([]byte, n*3/4+3)
	x := uint64(1)
	for i := range raw {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		raw[i] = byte(x)
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// TestUnbrokenRunsAreCut is issue 22 item 1: a reply of 20 MB with no space took 18.7 s
// and 707 MB, most of it in counting its tokens as one piece (some 40 bytes of memory per
// byte, and more than linear time). A run with no safe boundary is counted in pieces of
// maxUnbroken bytes, cut before a character, and the count stays within a token per cut
// of the encoder's.
func TestUnbrokenRunsAreCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"base64", unbroken(4 << 20)},
		{"one letter", strings.Repeat("x", 4<<20)},
		{"two-byte characters", strings.Repeat("é", 2<<20)},
		{"four-byte characters after one byte", "a" + strings.Repeat("😀", 1<<20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks := splitChunks(tc.text, chunkTarget, maxSpaceRun)
			if strings.Join(chunks, "") != tc.text {
				t.Fatal("the chunks do not make the text")
			}
			for i, ch := range chunks {
				if len(ch) > maxUnbroken+utf8.UTFMax || !utf8.ValidString(ch) {
					t.Fatalf("chunk %d of %d is %d bytes (valid UTF-8 %v), want at most %d, whole characters",
						i, len(chunks), len(ch), utf8.ValidString(ch), maxUnbroken+utf8.UTFMax)
				}
			}
		})
	}
	// The count against the encoder's, over a few cuts.
	text := unbroken(5*maxUnbroken/2) + " and then words"
	for _, c := range []*Counter{o200k, cl100k} {
		got, want := c.Count(text), c.countDirectSlow(text)
		cuts := len(splitChunks(text, chunkTarget, maxSpaceRun)) - 1
		if cuts < 2 || got < want-cuts || got > want+cuts {
			t.Errorf("%s: counted %d in %d cuts, want %d give or take a token per cut", c.Encoding(), got, cuts, want)
		}
	}
}
