package yamlx

import (
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// scanText finds the first byte of data that YAML does not allow in a stream (YAML 1.2,
// 5.1: printable Unicode characters only): a byte that is not UTF-8, a NUL or another
// control character but tab, line feed and carriage return (DEL and the C1 controls
// but NEL included), U+FFFE or U+FFFF. It returns its line and column (in code points,
// an invalid byte counting as one) and the problem, or an empty msg when there is none.
// Without it such bytes were read as U+FFFD, silently, into the prompt sent.
func scanText(data []byte) (line, col int, msg string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, fmt.Sprintf("invalid UTF-8 (byte 0x%02x): a YAML file is UTF-8 text", data[i])
		case r == 0:
			return line, col, "a NUL byte: a YAML file is text"
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r' || r == 0x85:
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0xfffe || r == 0xffff:
			return line, col, fmt.Sprintf("control character U+%04X: a YAML file holds printable characters only", r)
		}
		i += size
		col++
	}
	return 0, 0, ""
}

// plainTags are the explicit tags a file may use: the standard tags of plain values, which
// say what an untagged value would be (`!!str 123` is the string "123").
var plainTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true,
	"!!seq": true, "!!map": true}

// checkTags returns the first node of the tree n with an explicit tag other than the
// plainTags (`!!python/object`, `!!binary`, `!!set`, `!custom`), which ctxlab does not
// read and would otherwise take as a plain value, silently. Aliases are not followed:
// their anchors are in the tree.
func checkTags(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil
	}
	if n.Style&yaml.TaggedStyle != 0 && !plainTags[n.Tag] {
		return n
	}
	for _, c := range n.Content {
		if bad := checkTags(c); bad != nil {
			return bad
		}
	}
	return nil
}

// tagError is the message for a node checkTags returns.
func tagError(n *yaml.Node) string {
	return fmt.Sprintf("YAML tag %s is not accepted: only the tags of plain values (!!str, !!int, !!float, !!bool, !!null, !!seq, !!map) are", n.Tag)
}
