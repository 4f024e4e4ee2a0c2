package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The kinds of error the store returns. Test them with errors.Is; the message of the
// returned error names what was concerned (`chat "demo-1": branch "main" head moved`).
// ErrNotFound, ErrConflict and ErrInvalid are those of package chat, so the engine tells
// them apart without knowing the store.
var (
	// ErrNotFound reports a chat, branch, checkpoint, message or turn that does not exist.
	ErrNotFound = chat.ErrNotFound
	// ErrConflict reports an id or name that is already taken, or a branch head that moved
	// since it was read (another process wrote the chat).
	ErrConflict = chat.ErrConflict
	// ErrInvalid reports input the store refuses: an empty id, a bad role, invalid JSON.
	ErrInvalid = chat.ErrInvalid
	// ErrBusy reports that another connection held the write lock for longer than the busy
	// timeout.
	ErrBusy = errors.New("database is busy")
	// ErrSchema reports a database this build cannot use: a newer schema version, or a
	// file that is not a ctxlab database.
	ErrSchema = errors.New("unsupported database schema")
	// ErrCorrupt reports a database whose records contradict each other (a file edited by
	// hand, or damaged): what the store read cannot be right, so it is not used.
	ErrCorrupt = errors.New("database is corrupt")
)

// errNeedsRecovery reports a database whose write-ahead log (or rollback journal) a
// process left behind, killed while it wrote: a read-only connection cannot read it until
// a writer recovers it.
var errNeedsRecovery = errors.New("write-ahead log needs recovery")

// storeError is an error with a complete message and a kind (one of the Err values). It
// never wraps a driver error, so callers cannot depend on driver types.
type storeError struct {
	msg  string
	kind error
}

func (e *storeError) Error() string { return e.msg }
func (e *storeError) Unwrap() error { return e.kind }

func notFoundf(format string, args ...any) error {
	return &storeError{msg: fmt.Sprintf(format, args...), kind: ErrNotFound}
}

// corruptf reports records that contradict each other; the message says that the
// database is corrupt, then what was found.
func corruptf(format string, args ...any) error {
	return &storeError{msg: "the database is corrupt: " + fmt.Sprintf(format, args...), kind: ErrCorrupt}
}

func conflictf(format string, args ...any) error {
	return &storeError{msg: fmt.Sprintf(format, args...), kind: ErrConflict}
}

func invalidf(format string, args ...any) error {
	return &storeError{msg: fmt.Sprintf(format, args...), kind: ErrInvalid}
}

// dbErr maps an error from database/sql or the driver to a store error whose message starts
// with what. Errors the store made itself pass through; a done context gives the context's
// error, wrapped; sql.ErrNoRows gives ErrNotFound.
func dbErr(ctx context.Context, err error, what string) error {
	if err == nil {
		return nil
	}
	var se *storeError
	if errors.As(err, &se) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return notFoundf("%s: not found", what)
	}
	var le *sqlite.Error
	if !errors.As(err, &le) {
		return &storeError{msg: what + ": " + err.Error()}
	}
	code := le.Code()
	switch code & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &storeError{
			msg:  fmt.Sprintf("%s: database is busy: another connection held the lock for more than %v", what, busyTimeout),
			kind: ErrBusy,
		}
	case sqlite3.SQLITE_CONSTRAINT:
		switch code {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return conflictf("%s: already exists", what)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return notFoundf("%s: refers to a record that does not exist", what)
		}
		return invalidf("%s: constraint failed", what)
	case sqlite3.SQLITE_NOTADB:
		return &storeError{msg: what + ": file is not a database", kind: ErrSchema}
	case sqlite3.SQLITE_CORRUPT:
		return &storeError{msg: what + ": database file is corrupt"}
	case sqlite3.SQLITE_FULL:
		return &storeError{msg: what + ": disk full"}
	case sqlite3.SQLITE_READONLY:
		switch code {
		case sqlite3.SQLITE_READONLY_RECOVERY, sqlite3.SQLITE_READONLY_CANTINIT, sqlite3.SQLITE_READONLY_ROLLBACK:
			return &storeError{msg: what + ": the log of a process that ended must be recovered first", kind: errNeedsRecovery}
		}
		return &storeError{msg: what + ": database is read-only"}
	case sqlite3.SQLITE_CANTOPEN:
		return &storeError{msg: what + ": cannot open database file"}
	}
	return &storeError{msg: what + ": sqlite: " + le.Error()}
}
