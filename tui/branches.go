package tui

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// treeBranch is a branch placed in the tree, with the guides drawn before its name and
// before its detail line.
type treeBranch struct {
	chat.BranchInfo
	guide  string // "", "├ ", "└ ", after "│ " or "  " for each ancestor level
	detail string // the guides of the line under the name: down to its children, if any
}

// branchOrder returns the branches as the Branches tab lists them: each under the branch
// it was made from, siblings by creation time then name. A branch whose parent the list
// does not hold is a root.
func branchOrder(list []chat.BranchInfo) []treeBranch {
	known := make(map[string]bool, len(list))
	for _, b := range list {
		known[b.Name] = true
	}
	children := map[string][]chat.BranchInfo{}
	for _, b := range list {
		parent := b.Parent
		if !known[parent] || parent == b.Name {
			parent = ""
		}
		children[parent] = append(children[parent], b)
	}
	for _, c := range children {
		slices.SortFunc(c, func(a, b chat.BranchInfo) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Name, b.Name))
		})
	}
	out := make([]treeBranch, 0, len(list))
	seen := make(map[string]bool, len(list))
	var walk func(parent, prefix string, root bool)
	walk = func(parent, prefix string, root bool) {
		kids := children[parent]
		for i, b := range kids {
			if seen[b.Name] {
				continue
			}
			seen[b.Name] = true
			last := i == len(kids)-1
			guide, more := "", ""
			if !root {
				guide, more = prefix+"├ ", prefix+"│ "
				if last {
					guide, more = prefix+"└ ", prefix+"  "
				}
			}
			detail := more + "  "
			if hasChildren(children[b.Name], seen) {
				detail = more + "│ "
			}
			out = append(out, treeBranch{BranchInfo: b, guide: guide, detail: detail})
			walk(b.Name, more, false)
		}
	}
	walk("", "", true)
	for _, b := range list { // a cycle of parents: shown at the end, as roots
		if !seen[b.Name] {
			seen[b.Name] = true
			detail := "  "
			if hasChildren(children[b.Name], seen) {
				detail = "│ "
			}
			out = append(out, treeBranch{BranchInfo: b, detail: detail})
			walk(b.Name, "", false)
		}
	}
	return out
}

// renderBranches renders the Branches tab: the branch tree, each branch with where it was
// made from, its turns and messages, the active one marked; each branch an item.
func (in *inspector) renderBranches(bb *builder) {
	c := &in.chat
	if len(c.Branches) == 0 {
		bb.head(themes.Muted, "no branches yet: the chat is saved with its first turn")
		return
	}
	bb.headSegs(seg{themes.Text, strconv.Itoa(len(c.Branches)) + " branches"},
		seg{themes.Muted, " · active " + inert.Line(c.Active)})
	for i, b := range branchOrder(c.Branches) {
		bb.item(i)
		mark, role := "  ", themes.Text
		if b.Name == c.Active {
			mark, role = "* ", themes.Selected
		}
		bb.segs(2, seg{role, mark}, seg{themes.Border, b.guide}, seg{role, inert.Line(b.Name)})
		detail := plural(b.Turns, "turn") + " · " + plural(b.Messages, "message")
		if b.Parent != "" {
			detail = "from " + inert.Line(b.Parent) + " · " + detail
		}
		guides := "    " + b.detail
		for _, l := range wrapIndented(detail, runeCount(guides), 0, bb.width) {
			g := guides
			if runeCount(l.pad) < runeCount(g) { // too narrow for the guides: none
				g = l.pad
			}
			bb.add(bb.th.Render(themes.Border, g) + bb.th.Render(themes.Muted, l.text))
		}
	}
	bb.item(-1)
}

// plural writes n and a noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// hasChildren reports whether a branch has children not yet placed in the tree.
func hasChildren(kids []chat.BranchInfo, seen map[string]bool) bool {
	for _, k := range kids {
		if !seen[k.Name] {
			return true
		}
	}
	return false
}
