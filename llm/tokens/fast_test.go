package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// fastAlphabet is the material of generated texts: letters of both cases around the
// contractions, digits, punctuation, the tags of reminders, spaces, and a few characters
// fastCount leaves to the encoder.
var fastAlphabet = []string{"a", "b", "Z", "Q", "x", "the", "The", "THE", "don", "'", "'s", "'S", "'t", "'re", "'rE",
	"'ve", "'m", "'ll", "'LL", "'d", "'x", "'r", "'l", "0", "7", "42", "1234567", " ", " ", " ", ".", ",", "?", "!",
	"/", "//", "<", ">", "</", "<system-reminder>", "</system-reminder>", "-", "_", "(", ")", "[", "]", "{", "}", "\"",
	"#", "$", "%", "&", "*", "+", "=", "@", "\\", "^", "`", "|", "~", ";", ":", "\x00", "\x1f", "\x7f",
	"\n", "\n\n", "\r\n", "\r", "\n/", "/\n", "\t", "  ", "é"}

func genFastText(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(30) {
		b.WriteString(fastAlphabet[r.IntN(len(fastAlphabet))])
	}
	return b.String()
}

// TestFastCountExact checks that fastCount counts as the encoder does, for both
// encodings, on generated texts, and that it takes the texts it is meant for.
func TestFastCountExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for _, enc := range []Encoding{O200k, Cl100k} {
		c := New(enc)
		fast := 0
		for range 20000 {
			s := genFastText(r)
			checkFast(t, c, s)
			if simpleASCII(s) {
				fast++
			}
		}
		if fast < 5000 {
			t.Errorf("%s: only %d of 20000 texts counted by fastCount", enc, fast)
		}
		checkFast(t, c, corpusLine)
	}
}

// corpusLine is a message as chats have them.
const corpusLine = "Is it safe to rotate the report while the deployment's DUPLICATE? Ping Emeka (ticket #3539) " +
	"at 09:04, it took 2368 ms; see v8.30.<system-reminder>r001: Cite the forecast source.</system-reminder>"

func checkFast(t *testing.T, c *Counter, s string) {
	t.Helper()
	want := c.countDirectSlow(s)
	got, ok := c.fastCount(s)
	if ok != simpleASCII(s) {
		t.Fatalf("%s %q: fastCount took it %v, want %v", c.Encoding(), s, ok, simpleASCII(s))
	}
	if ok && got != want {
		t.Fatalf("%s %q: got %d tokens, want %d", c.Encoding(), s, got, want)
	}
	if n := c.Count(s); n != want {
		t.Fatalf("%s %q: Count got %d tokens, want %d", c.Encoding(), s, n, want)
	}
}

func FuzzFastCountExact(f *testing.F) {
	f.Add(corpusLine)
	f.Add("don't 'S DON'T a1b2 '' 'll'LL")
	c200, c100 := New(O200k), New(Cl100k)
	f.Fuzz(func(t *testing.T, s string) {
		checkFast(t, c200, s)
		checkFast(t, c100, s)
	})
}

// BenchmarkCountMessage counts chat messages never counted before (each differs by a
// number), as a turn's new messages are: with fastCount ("fast") and with the encoder
// alone ("encoder").
func BenchmarkCountMessage(b *testing.B) {
	c := New(O200k)
	i := 0
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			i++
			if _, ok := c.fastCount(corpusLine + strings.Repeat("x", i%7) + " " + itoa(i)); !ok {
				b.Fatal("not counted by fastCount")
			}
		}
	})
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			i++
			c.countDirectSlow(corpusLine + strings.Repeat("x", i%7) + " " + itoa(i))
		}
	})
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		if i /= 10; i == 0 {
			break
		}
	}
	return string(b[n:])
}
