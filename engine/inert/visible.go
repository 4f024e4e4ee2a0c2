package inert

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible is Text made honest about what it holds: besides what Text removes, every
// character a terminal draws as nothing, or that reorders the text around it, is written
// as a mark, ⟨U+202E⟩, where it could mislead. These are Unicode's default-ignorable
// characters:
//
//   - always: the bidi controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
//     U+2069), which make U+202E then txt.exe read as exe.txt; the zero-width space
//     U+200B, the word joiner and invisible operators (U+2060 to U+206F), U+FEFF, the soft
//     hyphen U+00AD, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), U+17B4, U+17B5,
//     the annotation characters U+FFF9 to U+FFFB, the format characters of shorthand and
//     music, and the unassigned default-ignorable characters;
//   - unless they do their job: the joiners U+200C and U+200D, kept after a letter or mark
//     of a script that joins its letters (Arabic, Persian, Syriac, N'Ko, Mongolian, and
//     the scripts of India and South-East Asia: क्‍ष, می‌خواهم), and U+200D after an emoji
//     (👨‍💻); a variation selector (U+FE00 to U+FE0F, U+E0100 to U+E01EF, Mongolian's)
//     right after a letter, digit, punctuation or symbol (❤️, 1️⃣, one selector, not a run);
//     the tag characters of a subdivision flag (🏴 then at most 6 lower-case letters or
//     digits and the cancel tag); the combining grapheme joiner U+034F after a letter or
//     a mark.
//
// So a joiner between two Latin letters (pay⟨U+200D⟩pal), a zero-width space, a run of
// selectors or tags hiding text, a joiner that starts a line: each is shown. Every rule
// looks back only, at the characters before within the same cluster: Hold says where a
// stream may be cut. Text without any of these characters, or in which each does its
// job, is returned as it is, without copying.
func Visible(s string) string {
	switch text, hid := scan(s); {
	case text:
		return show(Text(s))
	case hid:
		return show(s)
	}
	return s
}

// VisibleLine is Line made visible as Visible makes text (for titles, names, ids and
// error messages shown on a single line).
func VisibleLine(s string) string {
	if plain(s, true) && !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return show(Line(s))
}

// Hold returns where the end of s that Visible may still write otherwise starts, when
// more text follows: its last character that is neither a combining mark nor one that
// Visible decides by what comes before it. A writer of a stream that arrives in pieces
// makes s[:Hold(s)] visible and keeps the rest for the next piece, so that each piece is
// shown as the whole text would be.
func Hold(s string) int {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if !unicode.IsMark(r) && !hidden(r) {
			return i
		}
	}
	return 0
}

// show writes, in s (valid UTF-8 without control characters), each hidden character that
// does not do its job as a mark. It copies s only from the first mark on. The rules are
// followed from the last ordinary character before each hidden one (see Hold): the text
// between costs a scan of its bytes.
func show(s string) string {
	var b strings.Builder
	c := lookback{tags: -1}
	done, p := 0, 0 // s[:done] is in b, once b is used; c is what the rules saw up to p
	for {
		i := nextHidden(s, p)
		if i < 0 {
			break
		}
		if j := Hold(s[p:i]); j > 0 { // after an ordinary character, what came before is forgotten
			p += j
		}
		for _, r := range s[p:i] {
			c.next(r)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		p = i + size
		if c.keeps(r) {
			c.next(r)
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[done:i])
		writeMark(&b, r)
		done, c = p, lookback{tags: -1}
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// scan reports, in one pass, whether s holds anything Text removes (text) and any hidden
// character (hid).
func scan(s string) (text, hid bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ' ' <= c && c < 0x7f {
			continue
		}
		if c < 0x80 {
			if c != '\n' && c != '\t' {
				text = true
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size <= 1 || control(r):
				text = true
			case hiddenLead[c] && hidden(r):
				hid = true
			}
			i += size - 1
		}
		if text && hid {
			break
		}
	}
	return text, hid
}

// hiddenLead marks the bytes that start the UTF-8 encoding of a hidden character.
var hiddenLead = [256]bool{0xC2: true, 0xCD: true, 0xD8: true, 0xE1: true, 0xE2: true, 0xE3: true, 0xEF: true, 0xF0: true, 0xF3: true}

// nextHidden returns the index of the first hidden character of s (valid UTF-8) at or
// after from, or -1.
func nextHidden(s string, from int) int {
	for i := from; i < len(s); i++ {
		if !hiddenLead[s[i]] {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); hidden(r) {
			return i
		}
	}
	return -1
}

// writeMark writes r as it is shown: ⟨U+202E⟩, ⟨U+E0041⟩.
func writeMark(b *strings.Builder, r rune) {
	const hex = "0123456789ABCDEF"
	b.WriteString("⟨U+")
	n := 4
	if r > 0xFFFF {
		n = 5
	}
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xF])
	}
	b.WriteString("⟩")
}

// maxTags is the number of tag letters a subdivision flag takes at most: a region (2)
// and a subdivision (up to 3), with one to spare.
const maxTags = 6

// lookback is what Visible's rules see of the text before a character: the character
// just before (0 at the start, or after a mark), the last one that is not a combining
// mark, and the tag letters kept since a 🏴 (-1: not in a flag's tags).
type lookback struct {
	prev, base rune
	tags       int
}

// keeps reports whether hidden character r does its job after what c saw.
func (c *lookback) keeps(r rune) bool {
	switch {
	case r == 0x200C || r == 0x200D || r == 0x180E: // joiners, Mongolian vowel separator
		if (unicode.IsLetter(c.prev) || unicode.IsMark(c.prev)) && unicode.IsLetter(c.base) && joins(c.base) {
			return true
		}
		return r == 0x200D && emoji(c.prev)
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r >= 0x180B && r <= 0x180F:
		p := c.prev
		return p != 0 && !hidden(p) && (unicode.IsLetter(p) || unicode.IsNumber(p) || unicode.IsPunct(p) || unicode.IsSymbol(p))
	case r >= 0xE0020 && r <= 0xE007F:
		if r == 0xE007F {
			return c.tags > 0
		}
		return c.tags >= 0 && c.tags < maxTags && (r >= 0xE0030 && r <= 0xE0039 || r >= 0xE0061 && r <= 0xE007A)
	case r == 0x034F: // combining grapheme joiner
		return unicode.IsLetter(c.prev) || unicode.IsMark(c.prev)
	}
	return false
}

// next moves c past r, a character kept.
func (c *lookback) next(r rune) {
	switch {
	case r == 0x1F3F4: // 🏴, which tags make a subdivision flag
		c.tags = 0
	case r >= 0xE0020 && r <= 0xE007E && c.tags >= 0:
		c.tags++
	default:
		c.tags = -1
	}
	c.prev = r
	if !unicode.IsMark(r) {
		c.base = r
	}
}

// emoji reports whether r may come before the joiner of an emoji sequence: a pictograph
// (a symbol beyond ASCII), an emoji modifier (skin tone), the emoji presentation selector
// U+FE0F, or the cancel tag that ends a subdivision flag.
func emoji(r rune) bool {
	return r > 0x7f && unicode.Is(unicode.So, r) || modifier(r) || r == 0xFE0F || r == 0xE007F
}

// joining are the blocks of the scripts whose letters joiners join or keep apart: Arabic
// and its neighbours (Syriac, Thaana, N'Ko, Samaritan, Mandaic, the Arabic extensions and
// presentation forms), Mongolian, Phags-pa, the scripts of India, Sri Lanka, Tibet and
// South-East Asia, and the historic and minority scripts of these families.
var joining = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x0600, 0x08FF, 1}, // Arabic, Syriac, Arabic Supplement, Thaana, NKo, Samaritan, Mandaic, Syriac Supplement, Arabic Extended-B, -A
		{0x0900, 0x0DFF, 1}, // Devanagari to Sinhala
		{0x0F00, 0x109F, 1}, // Tibetan, Myanmar
		{0x1700, 0x18AF, 1}, // Tagalog, Hanunoo, Buhid, Tagbanwa, Khmer, Mongolian
		{0x1900, 0x1AAF, 1}, // Limbu, Tai Le, New Tai Lue, Khmer Symbols, Buginese, Tai Tham
		{0x1B00, 0x1C4F, 1}, // Balinese, Sundanese, Batak, Lepcha
		{0x1CD0, 0x1CFF, 1}, // Vedic Extensions
		{0xA800, 0xA8FF, 1}, // Syloti Nagri, Common Indic Number Forms, Phags-pa, Saurashtra, Devanagari Extended
		{0xA900, 0xAAFF, 1}, // Kayah Li, Rejang, Javanese, Myanmar Extended-B, Cham, Myanmar Extended-A, Tai Viet, Meetei Mayek Extensions
		{0xABC0, 0xABFF, 1}, // Meetei Mayek
		{0xFB50, 0xFDFF, 1}, // Arabic Presentation Forms-A
		{0xFE70, 0xFEFE, 1}, // Arabic Presentation Forms-B
	},
	R32: []unicode.Range32{
		{0x10A00, 0x10A5F, 1}, // Kharoshthi
		{0x10AC0, 0x10AFF, 1}, // Manichaean
		{0x10B80, 0x10BAF, 1}, // Psalter Pahlavi
		{0x10D00, 0x10D3F, 1}, // Hanifi Rohingya
		{0x10EC0, 0x10EFF, 1}, // Arabic Extended-C
		{0x10F30, 0x10FFF, 1}, // Sogdian, Old Uyghur, Chorasmian, Elymaic
		{0x11000, 0x11DFF, 1}, // Brahmi to Masaram Gondi, Gunjala Gondi and the other scripts of India
		{0x11EE0, 0x11F5F, 1}, // Makasar, Kawi
		{0x1E900, 0x1E95F, 1}, // Adlam
	},
}

// joins reports whether r is in a script whose letters joiners join.
func joins(r rune) bool { return unicode.Is(joining, r) }

// hidden reports whether r is a character Visible may show as a mark: Unicode's
// default-ignorable characters (the bidi controls among them) and the annotation
// characters.
func hidden(r rune) bool {
	switch {
	case r < 0x00AD:
		return false
	case r < 0x2000:
		return r == 0x00AD || r == 0x034F || r == 0x061C || r == 0x115F || r == 0x1160 ||
			r == 0x17B4 || r == 0x17B5 || r >= 0x180B && r <= 0x180F
	case r <= 0x206F:
		return r >= 0x200B && r <= 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2060
	case r < 0x3164:
		return false
	case r < 0xFE00:
		return r == 0x3164
	case r <= 0xFFFF:
		return r <= 0xFE0F || r == 0xFEFF || r == 0xFFA0 || r >= 0xFFF0 && r <= 0xFFFB
	case r < 0x1BCA0:
		return false
	case r <= 0x1D17A:
		return r <= 0x1BCA3 || r >= 0x1D173
	}
	return r >= 0xE0000 && r <= 0xE0FFF
}
