package chat

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<tag a=\"b\">&amp;</tag>", "tab\tnl\ncr\r\x00\x1f", "é東京\u2028\u2029", "bad \xff utf8", `back\slash`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("AppendJSONString(%q) = %s: not JSON: %v", s, got, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s (encoding/json)", s, got, w)
		}
	})
}

// TestAppendJSONStringEightBytes puts each byte that needs a look at every offset of a
// long ASCII text, across the eight-byte steps of AppendJSONString.
func TestAppendJSONStringEightBytes(t *testing.T) {
	base := "abcdefghijklmnopqrstuvwxyz0123"
	for _, sp := range []string{"\"", "\\", "\x00", "\x1f", "\n", "\x7f", "é", "\xff", "\u2028"} {
		for i := 0; i <= len(base); i++ {
			s := base[:i] + sp + base[i:]
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			if got, w := AppendJSONString(nil, s), bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
				t.Errorf("AppendJSONString(%q) = %s, want %s", s, got, w)
			}
		}
	}
}
