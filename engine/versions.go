package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Version is one version of a turn: its user message and its reply (an edit makes a
// sibling user message, a regenerate a sibling reply), and a branch whose path holds it.
type Version struct {
	// UserID and ReplyID are the turn's messages in this version (ReplyID "" when the
	// user message has no reply on Branch).
	UserID, ReplyID string
	// Branch is a branch whose path holds the version: the active one for the version
	// shown, else the first (by name) that holds it.
	Branch string
	// At is when the version was made: its reply's time, else its user message's.
	At time.Time
	// Current marks the version on the active branch.
	Current bool
}

// Versions returns the versions of turn n of the active branch, oldest first, and the
// position of the active one among them. A version is another user message with the
// same parent as turn n's (an edit) or another reply to turn n's user message (a
// regenerate), each with a branch that holds it.
func (s *Session) Versions(ctx context.Context, n int) ([]Version, int, error) {
	if _, err := s.userTurn(n); err != nil {
		return nil, 0, err
	}
	all, err := s.AllVersions(ctx)
	if err != nil {
		return nil, 0, err
	}
	vs := all[n]
	if vs == nil {
		vs = []Version{s.currentVersion(n)}
	}
	return vs, slices.IndexFunc(vs, func(x Version) bool { return x.Current }), nil
}

// AllVersions returns the versions (see Versions) of every turn of the active branch that
// has more than one, by turn number. Only the branches that leave the active path are
// read, each from its head back to where it leaves it: a fork near the end of a long chat
// costs a few messages per branch.
func (s *Session) AllVersions(ctx context.Context) (map[int][]Version, error) {
	out := map[int][]Version{}
	if s.draft {
		return out, nil
	}
	v := s.view
	branches, err := s.Branches(ctx)
	if err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	slices.SortFunc(branches, func(a, b chat.BranchInfo) int { return cmp.Compare(a.Name, b.Name) })
	onPath := func(id string) bool { _, ok := v.index[id]; return ok }
	seen := map[[2]string]bool{}
	for _, b := range branches {
		if b.Name == v.name || b.Head == "" || onPath(b.Head) {
			continue
		}
		tail, _, fork, err := s.e.store.PathWithTurns(ctx, s.chat.ID, b.Head, onPath)
		if err != nil {
			return nil, fmt.Errorf("versions: branch %s: %w", b.Name, err)
		}
		if len(tail) == 0 {
			continue
		}
		fi := -1 // the fork's position on the path (-1: the root)
		if fork != "" {
			fi = v.index[fork]
		}
		var ver Version
		var user int // the position on the path of the user message of the turn
		switch first := &tail[0]; {
		case first.Role == chat.RoleUser && fi+1 < len(v.path) && v.path[fi+1].Role == chat.RoleUser: // an edit
			user = fi + 1
			ver = Version{UserID: first.ID, At: first.CreatedAt}
			if len(tail) > 1 && tail[1].Role == chat.RoleAssistant {
				ver.ReplyID, ver.At = tail[1].ID, tail[1].CreatedAt
			}
		case first.Role == chat.RoleAssistant && fi >= 0 && v.path[fi].Role == chat.RoleUser: // a regenerate
			user = fi
			ver = Version{UserID: v.path[fi].ID, ReplyID: first.ID, At: first.CreatedAt}
		default:
			continue
		}
		key := [2]string{ver.UserID, ver.ReplyID}
		if seen[key] {
			continue
		}
		seen[key] = true
		ver.Branch = b.Name
		n := s.turnAt(user)
		if n == 0 {
			continue
		}
		if out[n] == nil {
			cur := s.currentVersion(n)
			seen[[2]string{cur.UserID, cur.ReplyID}] = true
			if cur.UserID == ver.UserID && cur.ReplyID == ver.ReplyID {
				continue
			}
			out[n] = []Version{cur}
		}
		out[n] = append(out[n], ver)
	}
	for _, vs := range out {
		slices.SortStableFunc(vs, func(a, b Version) int {
			return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.UserID, b.UserID), cmp.Compare(a.ReplyID, b.ReplyID))
		})
	}
	return out, nil
}

// turnAt returns the number of the turn whose user message is at position i of the
// active path (0: none).
func (s *Session) turnAt(i int) int {
	v := s.view
	k := sort.Search(len(v.users), func(j int) bool { return v.index[v.users[j].ID] >= i })
	if k < len(v.users) && v.index[v.users[k].ID] == i {
		return k + 1
	}
	return 0
}

// currentVersion is turn n's version on the active branch (n must exist).
func (s *Session) currentVersion(n int) Version {
	v := s.view
	idx := v.index[v.users[n-1].ID]
	user := v.path[idx]
	cur := Version{UserID: user.ID, Branch: v.name, At: user.CreatedAt, Current: true}
	if idx+1 < len(v.path) && v.path[idx+1].Role == chat.RoleAssistant {
		cur.ReplyID, cur.At = v.path[idx+1].ID, v.path[idx+1].CreatedAt
	}
	return cur
}

// CheckpointTurn names turn n's reply (its user message when it has none): restoring it
// makes a branch ending with turn n. The same name is overwritten.
func (s *Session) CheckpointTurn(ctx context.Context, n int, name string) error {
	if err := chat.CheckName("checkpoint name", name); err != nil {
		return err
	}
	idx, err := s.userTurn(n)
	if err != nil {
		return err
	}
	v := s.view
	id := v.path[idx].ID
	if idx+1 < len(v.path) && v.path[idx+1].Role == chat.RoleAssistant {
		id = v.path[idx+1].ID
	}
	return s.e.store.SetCheckpoint(ctx, s.chat.ID, name, id)
}

// RegenerateTurn asks again for turn n's reply, as Regenerate does for the last one: a
// new sibling of its reply on a new branch made from the active one, switched to, which
// ends with the new reply (the turns after n stay on the branch they were on).
func (s *Session) RegenerateTurn(ctx context.Context, n int, r Replier, at time.Time, opts ...SendOption) (*TurnResult, error) {
	idx, err := s.userTurn(n)
	if err != nil {
		return nil, err
	}
	old := s.view
	if idx+1 >= len(old.path) || old.path[idx+1].Role != chat.RoleAssistant {
		return nil, opError(ErrInvalid, "turn %d has no reply to regenerate", n)
	}
	if idx+2 < len(old.path) {
		s.view = old.prefix(old.name, idx+2)
	}
	res, err := s.Regenerate(ctx, r, at, opts...)
	if res == nil && s.view != old && s.view.name == old.name {
		s.view = old
	}
	return res, err
}
