package format

import "strings"

// demoteHeadings moves every Markdown heading of a message two levels down, so that no
// heading of a message can stand beside or above the transcript's own (`# title`, `##
// Turn N`, `## System prompt`): `#` becomes `###`, `##` `####`, `###` `#####`, and `####`
// to `######` all `######`, the last level there is. A setext heading (a paragraph
// underlined with `=` or `-`) becomes an ATX heading of level 3 or 4, its lines joined.
//
// A heading is what CommonMark takes for one: up to three spaces, one to six `#` then a
// space, a tab or the end of the line; or a paragraph's line followed by a line of `=`
// or of `-` alone. Both are found at the start of a line or after block-quote markers
// (`>`). Nothing else changes: `#hashtag` and `####### seven` are not headings, a `---`
// after a blank line is a thematic break, a `---` under a list item ends the list, and
// the lines of fenced code blocks (three or more backticks or tildes, closed by a fence of
// the same character at least as long, or by the end of the text or the block quote) and
// of indented code blocks (four spaces or a tab, where no paragraph is open) are left as
// they are. Headings inside list items are left too.
func demoteHeadings(text string) string {
	if !strings.ContainsAny(text, "#=-") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines))
	var (
		fenceChar  byte // the open fence's character (0: no fence is open)
		fenceLen   int
		fenceDepth int // the block-quote depth the fence was opened at
		// para is the index in out of the open paragraph's first line (-1: none);
		// paraDepth its block-quote depth; listPara says it is a list item's, which a
		// setext underline cannot end.
		para      = -1
		paraDepth int
		listPara  bool
	)
	for _, line := range lines {
		if fenceChar != 0 {
			// Inside the fence, only the block quotes around it are markers: a `>` more is
			// code. A line outside them ends the fence.
			if _, body, depth := quotePrefixN(line, fenceDepth); depth == fenceDepth {
				if closesFence(body, fenceChar, fenceLen) {
					fenceChar = 0
				}
				out = append(out, line)
				continue
			}
			fenceChar = 0
		}
		prefix, body, depth := quotePrefix(line)
		if depth != paraDepth {
			para, listPara = -1, false
		}
		indent, rest := leadingIndent(body)
		switch {
		case strings.TrimSpace(body) == "":
			para, listPara = -1, false
		case indent >= 4 && para < 0 && !listPara: // an indented code block
		case indent >= 4: // a paragraph's continuation
		case fenceOpen(rest) != 0:
			fenceChar, fenceLen, fenceDepth = rest[0], fenceOpen(rest), depth
			para, listPara = -1, false
		case atxLevel(rest) > 0:
			n := atxLevel(rest)
			line = prefix + body[:len(body)-len(rest)] + strings.Repeat("#", min(n+2, 6)) + rest[n:]
			para, listPara = -1, false
		case para >= 0 && !listPara && setextLevel(rest) > 0:
			heading := make([]string, 0, len(out)-para)
			for _, l := range out[para:] {
				_, b, _ := quotePrefix(l)
				heading = append(heading, strings.TrimSpace(b))
			}
			p, _, _ := quotePrefix(out[para])
			line = p + strings.Repeat("#", setextLevel(rest)+2) + " " + strings.Join(heading, " ")
			out = out[:para]
			para = -1
		case thematicBreak(rest):
			para, listPara = -1, false
		case listItem(rest):
			para, listPara, paraDepth = len(out), true, depth
		case para < 0:
			para, paraDepth = len(out), depth
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// quotePrefix splits a line into its block-quote markers (each up to three spaces, `>`
// and one optional space) and the rest, and counts the markers.
func quotePrefix(line string) (prefix, body string, depth int) {
	return quotePrefixN(line, -1)
}

// quotePrefixN is quotePrefix taking at most limit markers (-1: all).
func quotePrefixN(line string, limit int) (prefix, body string, depth int) {
	i := 0
	for depth != limit {
		j := i
		for j < len(line) && j-i < 3 && line[j] == ' ' {
			j++
		}
		if j >= len(line) || line[j] != '>' {
			return line[:i], line[i:], depth
		}
		j++
		if j < len(line) && line[j] == ' ' {
			j++
		}
		i, depth = j, depth+1
	}
	return line[:i], line[i:], depth
}

// leadingIndent returns the width of a line's leading blanks (a tab to the next multiple
// of four) and the line after them.
func leadingIndent(s string) (int, string) {
	w := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, s[i:]
		}
	}
	return w, ""
}

// atxLevel returns the level of an ATX heading's opening sequence at the start of s, 0
// when s does not open one.
func atxLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(s) && s[n] != ' ' && s[n] != '\t' && s[n] != '\r' {
		return 0
	}
	return n
}

// setextLevel returns 1 for a line of `=` alone, 2 for a line of `-` alone (trailing
// blanks allowed), 0 otherwise.
func setextLevel(s string) int {
	s = strings.TrimRight(s, " \t\r")
	if s == "" || strings.Trim(s, string(s[0])) != "" {
		return 0
	}
	switch s[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// fenceOpen returns the length of the code fence s opens (three or more backticks, with no
// backtick after them, or tildes), 0 when it opens none.
func fenceOpen(s string) int {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || s[0] == '`' && strings.Contains(s[n:], "`") {
		return 0
	}
	return n
}

// closesFence reports whether line closes a fence of n characters c: up to three spaces,
// at least n of c, then blanks only.
func closesFence(line string, c byte, n int) bool {
	indent, rest := leadingIndent(line)
	if indent > 3 {
		return false
	}
	k := 0
	for k < len(rest) && rest[k] == c {
		k++
	}
	return k >= n && strings.TrimRight(rest[k:], " \t\r") == ""
}

// thematicBreak reports whether s is a thematic break: three or more `*`, `-` or `_`,
// blanks between them allowed.
func thematicBreak(s string) bool {
	s = strings.TrimRight(s, " \t\r")
	if len(s) < 3 || s[0] != '*' && s[0] != '-' && s[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// listItem reports whether s starts a list item: `-`, `*` or `+`, or one to nine digits
// and `.` or `)`, then a blank or the end of the line.
func listItem(s string) bool {
	i := 0
	switch {
	case s == "":
		return false
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		i = 1
	default:
		for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(s) || s[i] != '.' && s[i] != ')' {
			return false
		}
		i++
	}
	return i == len(s) || s[i] == ' ' || s[i] == '\t'
}
