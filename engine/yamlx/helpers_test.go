package yamlx

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

type yamlNode = yaml.Node

func readString(r *Reader, n *yaml.Node) any { s, _ := r.String(n, "v"); return s }
func readStrings(r *Reader, n *yaml.Node) any {
	s, _ := r.Strings(n, "v")
	return strings.Join(s, "|")
}
func readInt(r *Reader, n *yaml.Node) any   { v, _ := r.Int(n, "v"); return v }
func readFloat(r *Reader, n *yaml.Node) any { v, _ := r.Float(n, "v"); return v }
func readBool(r *Reader, n *yaml.Node) any  { v, _ := r.Bool(n, "v"); return v }
func readSeq(r *Reader, n *yaml.Node) any   { v, _ := r.Sequence(n, "v"); return len(v) }
