package tui

import (
	"cmp"
	"slices"
	"strconv"
	"unicode/utf8"

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
			if hasUnplacedChildren(children[b.Name], seen) {
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
			if hasUnplacedChildren(children[b.Name], seen) {
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
func (in *inspector) renderBranches(bb *tabBuilder) {
	c := &in.chat
	if len(c.Branches) == 0 {
		bb.head(themes.Muted, "no branches yet: the chat is saved with its first turn")
		return
	}
	bb.headSegs(tabSeg{themes.Text, countNounES(len(c.Branches), "branch")},
		tabSeg{themes.Muted, " · active " + inert.DisplayLine(c.Active)})
	for i, b := range branchOrder(c.Branches) {
		bb.item(i)
		firedMark, role := "  ", themes.Text
		if b.Name == c.Active {
			firedMark, role = "* ", themes.Selected
		}
		bb.segs(2, tabSeg{role, firedMark}, tabSeg{themes.Border, b.guide}, tabSeg{role, inert.DisplayLine(b.Name)})
		detail := countNoun(b.Turns, "turn") + " · " + countNoun(b.Messages, "message")
		if b.Parent != "" {
			detail = "from " + inert.DisplayLine(b.Parent) + " · " + detail
		}
		guides := "    " + b.detail
		for _, l := range wrapHanging(detail, utf8.RuneCountInString(guides), 0, bb.width) {
			g := guides
			if utf8.RuneCountInString(l.pad) < utf8.RuneCountInString(g) { // too narrow for the guides: none
				g = l.pad
			}
			bb.add(bb.paint(themes.Border, g) + bb.paint(themes.Muted, l.text))
		}
	}
	in.renderCheckpoints(bb, len(c.Branches))
	bb.item(-1)
}

// renderCheckpoints lists the chat's checkpoints under the branches, items from first on
// (enter restores one: a new branch at it).
func (in *inspector) renderCheckpoints(bb *tabBuilder, first int) {
	cps := in.chat.Checkpoints
	if len(cps) == 0 {
		return
	}
	bb.item(-1)
	bb.blank()
	bb.segs(0, tabSeg{themes.Text, countNoun(len(cps), "checkpoint")}, tabSeg{themes.Muted, " · enter restores one on a new branch"})
	for i, cp := range cps {
		bb.item(first + i)
		bb.segs(2, tabSeg{themes.Text, "◆ "}, tabSeg{themes.Text, inert.DisplayLine(cp.Name)})
	}
}

// countNoun writes n and a noun, with an s unless n is 1.
func countNoun(n int, noun string) string {
	return strconv.Itoa(n) + " " + nounFor(n, noun)
}

// nounFor is noun for n of it: singular for 1, else plural (with s).
func nounFor(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// hasUnplacedChildren reports whether a branch has children not yet placed in the tree.
func hasUnplacedChildren(kids []chat.BranchInfo, seen map[string]bool) bool {
	for _, k := range kids {
		if !seen[k.Name] {
			return true
		}
	}
	return false
}

// countNounES is countNoun for a noun whose plural takes -es (branch, branches).
func countNounES(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "es"
}
