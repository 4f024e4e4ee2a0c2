package chat

import "errors"

// The kinds of error a store returns, shared so the engine can tell them apart without
// knowing the store. Test them with errors.Is.
var (
	// ErrNotFound reports a chat, branch, checkpoint, message or turn that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict reports an id or name already taken, or a branch head that moved since
	// it was read (another writer changed the chat).
	ErrConflict = errors.New("conflict")
	// ErrInvalid reports input a store refuses.
	ErrInvalid = errors.New("invalid")
)

// BranchInfo is a branch with the size of its path.
type BranchInfo struct {
	Branch
	Turns    int // user messages on the branch's path
	Messages int // messages on the branch's path
}
