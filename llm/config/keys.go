package config

import (
	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/yamlx"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// keys reads the keys: section: each action's name to one key or a list of keys,
//
//	keys:
//	  send: ctrl+s
//	  regenerate: [r, ctrl+g]
//
// and checks the rebindings against the workbench's action table (keybind.Check): an
// unknown action, an invalid key, or a key that collides with another action in force at
// the same time is an error at the action's name or at the key.
func keys(r *yamlx.Reader, n *yaml.Node) []keybind.Binding {
	var out []keybind.Binding
	type at struct {
		name *yaml.Node
		keys []*yaml.Node
	}
	var nodes []at
	m, _ := r.Mapping(n, "keys")
	for _, e := range m.List {
		if e.Key.ShortTag() == "!!merge" {
			r.Errorf(e.Key, "keys: action names must be plain names, found %s", yamlx.Describe(e.Key))
			continue
		}
		v := yamlx.Resolve(e.Value)
		var ks []*yaml.Node
		what := "keys: " + e.Key.Value
		switch {
		case yamlx.IsNull(v):
		case v.Kind == yaml.SequenceNode:
			ks = v.Content
		default:
			ks = []*yaml.Node{v}
		}
		b := keybind.Binding{Action: e.Key.Value}
		ok := true
		for _, k := range ks {
			s, good := text(r, k, what)
			ok = ok && good
			b.Keys = append(b.Keys, s)
		}
		if !ok {
			continue
		}
		out = append(out, b)
		nodes = append(nodes, at{e.Key, ks})
	}
	for _, p := range keybind.Check(out) {
		node := nodes[p.Binding].name
		if p.Key >= 0 {
			node = yamlx.Resolve(nodes[p.Binding].keys[p.Key])
		}
		r.Errorf(node, "%s", p.Msg)
	}
	return out
}
