package tokens

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// corpus builds a deterministic prompt-like text of about n bytes: markdown prose, Go code,
// JSON, XML-ish tags, CJK and accented text, lists and blank lines.
func corpus(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields(`the a model prompt context reminder user assistant tool system
		token budget fired rule customer order invoice report query table column value must
		never should always when because however Validate dates before booking Stay concise
		don't it's we're they'll JSON YAML SQL HTTP API café naïve résumé Zürich São Paulo`)
	cjk := []string{"お誕生日おめでとう", "東京都", "数据库", "사용자", "привет мир"}
	var b strings.Builder
	word := func() string { return words[r.IntN(len(words))] }
	for b.Len() < n {
		switch r.IntN(7) {
		case 0, 1, 2: // a paragraph
			k := 20 + r.IntN(60)
			for i := range k {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word())
				switch r.IntN(15) {
				case 0:
					b.WriteByte(',')
				case 1:
					b.WriteString(".")
				case 2:
					fmt.Fprintf(&b, " %d", r.IntN(100000))
				}
			}
			b.WriteString(".\n\n")
		case 3: // code
			fmt.Fprintf(&b, "```go\nfunc %s%d(x int) (int, error) {\n\tif x > %d {\n\t\treturn 0, fmt.Errorf(\"too big: %%d\", x)\n\t}\n\t// %s %s\n\treturn x * 2, nil\n}\n```\n\n",
				word(), r.IntN(100), r.IntN(1000), word(), word())
		case 4: // JSON
			fmt.Fprintf(&b, `{"id": %d, "name": "%s %s", "tags": ["%s", "%s"], "price": %d.%02d, "ok": true}`+"\n",
				r.IntN(1e6), word(), word(), word(), word(), r.IntN(1000), r.IntN(100))
		case 5: // tags and lists
			fmt.Fprintf(&b, "<system-reminder>\n  - %s %s\n  - %s: %s\n</system-reminder>\n", word(), word(), word(), word())
		case 6: // other scripts
			fmt.Fprintf(&b, "%s %s、%s。\n", cjk[r.IntN(len(cjk))], word(), cjk[r.IntN(len(cjk))])
		}
	}
	return b.String()
}
