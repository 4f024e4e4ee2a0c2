package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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
// regenerate), each with a branch that holds it. Only the branches that leave the
// active path are read, from their heads back to where they leave it: a fork near the
// end costs a few messages per branch.
func (s *Session) Versions(ctx context.Context, n int) ([]Version, int, error) {
	idx, err := s.userTurn(n)
	if err != nil {
		return nil, 0, err
	}
	v := s.view
	user := v.path[idx]
	cur := Version{UserID: user.ID, Branch: v.name, At: user.CreatedAt, Current: true}
	if idx+1 < len(v.path) && v.path[idx+1].Role == chat.RoleAssistant {
		cur.ReplyID, cur.At = v.path[idx+1].ID, v.path[idx+1].CreatedAt
	}
	out := []Version{cur}
	if s.draft {
		return out, 0, nil
	}
	branches, err := s.Branches(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("versions of turn %d: %w", n, err)
	}
	slices.SortFunc(branches, func(a, b chat.BranchInfo) int { return cmp.Compare(a.Name, b.Name) })
	onPath := func(id string) bool { _, ok := v.index[id]; return ok }
	seen := map[[2]string]bool{{cur.UserID, cur.ReplyID}: true}
	for _, b := range branches {
		if b.Name == v.name || b.Head == "" || onPath(b.Head) {
			continue
		}
		tail, _, fork, err := s.e.store.PathWithTurns(ctx, s.chat.ID, b.Head, onPath)
		if err != nil {
			return nil, 0, fmt.Errorf("versions of turn %d: branch %s: %w", n, b.Name, err)
		}
		if len(tail) == 0 {
			continue
		}
		var ver Version
		switch first := &tail[0]; {
		case fork == user.ParentID && first.Role == chat.RoleUser: // an edit
			ver = Version{UserID: first.ID, At: first.CreatedAt}
			if len(tail) > 1 && tail[1].Role == chat.RoleAssistant {
				ver.ReplyID, ver.At = tail[1].ID, tail[1].CreatedAt
			}
		case fork == user.ID && first.Role == chat.RoleAssistant: // a regenerate
			ver = Version{UserID: user.ID, ReplyID: first.ID, At: first.CreatedAt}
		default:
			continue
		}
		key := [2]string{ver.UserID, ver.ReplyID}
		if seen[key] {
			continue
		}
		seen[key] = true
		ver.Branch = b.Name
		out = append(out, ver)
	}
	slices.SortStableFunc(out, func(a, b Version) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.UserID, b.UserID), cmp.Compare(a.ReplyID, b.ReplyID))
	})
	at := slices.IndexFunc(out, func(x Version) bool { return x.Current })
	return out, at, nil
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
