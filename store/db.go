// Package store persists ctxlab chats in SQLite (modernc.org/sqlite) as a message graph:
// messages with parent ids, named branches with heads, checkpoints, and turn records with
// the request sent, the decisions and the usage.
//
// History is append-only. A step of a chat (new messages, the turn records that go with
// them, the move of a branch head) is written by Commit in one transaction, and the head
// moves by compare-and-swap, so two processes writing the same chat never lose a turn: the
// second gets ErrConflict and nothing of its step is written.
//
// Ids of messages, turns, branches and checkpoints are scoped by chat: the same message id
// may exist in two chats (a chat imported twice under two chat ids). Times are stored in
// UTC with nanoseconds and come back in UTC. A chat's updated time is the clock of its last
// step (the latest message or turn time of a Commit), or DB.Now for the operations that
// carry no time (CreateBranch, SetActiveBranch, SetCheckpoint).
//
// A turn's decision list is stored packed: the pieces that turns repeat (predicate
// expressions, reminder texts) are kept once, in a table shared by all chats, and every
// read returns the list byte for byte as it was committed (pieces.go).
//
// Reads that need one consistent view (Load, PathTurns, ExportChat) run in one read
// transaction; under WAL they never wait for writers. Turn records load in parts (Detail):
// the light record is what a branch switch needs, requests and decisions are loaded only
// to show or replay a turn. A branch switch between branches that share a prefix reads
// only the tail that differs (PathTail).
//
// The store is data access only: ExportChat and ImportChat read and write a whole chat as
// a chat.Archive; the file formats (the JSON export, its whole-chat checks, Markdown,
// OpenAI) are package format's, which reads and writes through them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/diag"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// busyTimeout is how long a connection waits for another one's write lock (a variable for
// tests).
var busyTimeout = 5 * time.Second

// Memory is the path of a private in-memory database, gone when it is closed.
const Memory = ":memory:"

// DB is an open ctxlab database. It is safe for concurrent use; several DB values (or
// processes) may have the same file open.
type DB struct {
	db   *sql.DB
	path string
	// stmts holds the statements of a commit, prepared once.
	stmts stmtCache
	// pieces holds the pieces of decision lists stored once (pieces.go).
	pieces pieceCache
	// ahead holds the decision lists prepared for commits to come (prepare.go).
	ahead preparedLists
	// fts caches the search index's progress (fts.go).
	fts ftsIndexed
	// ckpt runs the checkpoints of a database on a file (checkpoint.go).
	ckpt checkpointer
	// readOnly is set on a database opened read-only (openReader): it is never written.
	readOnly bool

	// Now returns the current time, used for created and updated times the caller did not
	// give. It defaults to time.Now; tests replace it.
	Now func() time.Time
}

// querier is satisfied by *sql.DB, *sql.Tx and *sql.Conn, so the helpers of this package
// work inside or outside a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Open opens (creating it if needed) the database at path and brings its schema up to date.
// Memory (":memory:") opens a private in-memory database. A database whose schema is newer
// than this build, or a file that is not a ctxlab database, gives an error wrapping
// ErrSchema and is left as it was.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open database: %w", invalidf("empty path"))
	}
	if err := precheck(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	dsn, err := dsnFor(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, dbErr(context.Background(), err, "open"))
	}
	if path == Memory {
		// Each connection to :memory: is its own empty database: keep exactly one, forever.
		sdb.SetMaxOpenConns(1)
		sdb.SetMaxIdleConns(1)
	} else {
		// WAL lets readers run beside the writer; writers queue on BEGIN IMMEDIATE.
		n := max(4, runtime.NumCPU())
		sdb.SetMaxOpenConns(n)
		sdb.SetMaxIdleConns(n)
	}
	sdb.SetConnMaxLifetime(0)
	sdb.SetConnMaxIdleTime(0)
	d := &DB{db: sdb, path: path, Now: time.Now, ahead: preparedLists{seed: maphash.MakeSeed()}}
	d.ckpt.on = path != Memory
	// A connection switching a new file to WAL needs an exclusive lock, and SQLite reports
	// SQLITE_BUSY at once, without the busy timeout, while another process opens the same
	// new file: retry until the timeout.
	deadline := time.Now().Add(busyTimeout)
	err = d.migrate(context.Background(), len(migrations))
	for errors.Is(err, ErrBusy) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		err = d.migrate(context.Background(), len(migrations))
	}
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return d, nil
}

// ErrNoDatabase reports that a path holds no ctxlab database yet: no file, or a file with
// no schema in it (empty, as `touch` makes one).
var ErrNoDatabase = errors.New("no ctxlab database")

// OpenExisting opens the ctxlab database at path for a reader, which must not create one:
// a file that does not exist, or a file with no schema yet (an empty file, or a SQLite
// database with no table), gives an error wrapping ErrNoDatabase and is left as it was,
// where Open would write a new schema into it. A file that is not a SQLite database is
// refused (ErrSchema) with what it is. When the process may write the file and its
// directory, it is Open: an older schema is brought up to date, a newer one refused.
// Otherwise (a read-only directory or file) the database is opened read-only, and
// nothing is written or made beside it: see openReader.
func OpenExisting(path string) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open database: %w", invalidf("empty path"))
	}
	if path == Memory {
		return Open(path)
	}
	if err := precheckExisting(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if !canWrite(path) {
		d, err := openReader(path)
		if err != nil {
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		return d, nil
	}
	return Open(path)
}

// precheckExisting reports a path that holds no ctxlab database (ErrNoDatabase), or no
// database at all, reading an existing file read-only. It leaves the schema's checks to
// the open when the file cannot be written (a look at it would make the files of a log
// beside it, which could then not be removed).
func precheckExisting(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: the file does not exist", ErrNoDatabase)
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return invalidf("%s, not a database file", diag.FileKind(fi.Mode()))
	}
	if empty, err := sniff(path, fi); err != nil {
		return err
	} else if empty {
		return fmt.Errorf("%w: the file is empty", ErrNoDatabase)
	}
	if !canWrite(path) {
		return nil
	}
	sdb, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer sdb.Close()
	ctx := context.Background()
	if err := checkSchema(ctx, sdb); errors.Is(err, errNeedsRecovery) {
		return nil // a database a process was killed writing: see precheck
	} else if err != nil {
		return err
	}
	v, err := schemaVersion(ctx, sdb)
	if err != nil {
		return err
	}
	if v == 0 { // checkSchema found no table either
		return fmt.Errorf("%w: the file holds no schema yet", ErrNoDatabase)
	}
	return nil
}

// precheck looks at an existing file read-only, before the connection settings (WAL) of
// Open change it: a file that is not a SQLite database, a database that is not ctxlab's,
// or one with a newer schema, is refused untouched.
func precheck(path string) error {
	if path == Memory {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil // a new file, or an error Open reports better
	}
	if !fi.Mode().IsRegular() { // a named pipe would block the open for ever
		return invalidf("%s, not a database file", diag.FileKind(fi.Mode()))
	}
	if empty, err := sniff(path, fi); err != nil || empty {
		return err // an empty file is where Open makes a new database
	}
	if !canWrite(path) { // before SQLite makes the log's files beside it, for good
		return &storeError{msg: "the file or its folder is read-only, and this command writes " +
			"(the commands that only read, such as chats, replay and export, open it read-only)"}
	}
	sdb, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer sdb.Close()
	if err := checkSchema(context.Background(), sdb); !errors.Is(err, errNeedsRecovery) {
		return err
	}
	// A process was killed while it wrote: the file is a database in WAL mode, whose log
	// the read-write open recovers before migrate checks its schema.
	return nil
}

// openReadOnly opens an existing database file read-only, on one connection, for a look
// that must not change it.
func openReadOnly(path string) (*sql.DB, error) {
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	sdb, err := sql.Open("sqlite", uri+fmt.Sprintf("?mode=ro&_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()))
	if err != nil {
		return nil, dbErr(context.Background(), err, "open")
	}
	sdb.SetMaxOpenConns(1)
	return sdb, nil
}

// fileURI returns the SQLite URI of a file path, without parameters.
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p), nil
}

// dsnFor returns the driver DSN for path: busy timeout, WAL, foreign keys, BEGIN
// IMMEDIATE for write transactions, and synchronous NORMAL. In WAL mode NORMAL writes each
// commit to the log before the commit returns, and syncs the log at each checkpoint: a
// turn reported saved survives the end of its process however it ends (kill -9, a panic,
// the terminal closed), and nothing is ever corrupted. Only a power loss or an operating
// system crash may take back the last commits before it, whole. FULL would also sync the
// log at every commit: a tenth of a scripted turn's time, for a guarantee a workbench of
// chats does not need (and that SQLite's own recommendation for WAL does not make).
// SQLite checkpoints by itself only past walLimit pages: a DB checkpoints on a goroutine of
// its own (checkpoint.go). The parent directory of a file is created if missing.
func dsnFor(path string) (string, error) {
	params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_txlock=immediate", busyTimeout.Milliseconds())
	if path == Memory {
		return Memory + "?" + params, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	uri, err := fileURI(path)
	if err != nil {
		return "", err
	}
	return uri + "?" + params + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-8000)" +
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", walLimit), nil
}

// Close closes the database.
func (d *DB) Close() error {
	d.ckpt.wait()
	d.closeStmts()
	if err := d.db.Close(); err != nil {
		return dbErr(context.Background(), err, "close database")
	}
	return nil
}

// File returns the path the database was opened with.
func (d *DB) File() string { return d.path }

func (d *DB) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

// read runs fn in a read-only transaction: one consistent snapshot of the database.
func (d *DB) read(ctx context.Context, fn func(q querier) error) error {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return dbErr(ctx, err, "begin read")
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return dbErr(ctx, tx.Commit(), "end read")
}

// write runs fn in a write transaction (BEGIN IMMEDIATE, so it waits for other writers up
// to the busy timeout) and commits it if fn succeeds. Nothing of fn is visible if it fails.
func (d *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	d.ckpt.beforeWrite(ctx, d.db)
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return dbErr(ctx, err, "begin write")
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return dbErr(ctx, err, "commit")
	}
	d.ckpt.committed(d.db)
	return nil
}

// timeLayout is the stored form of times: UTC, fixed width, so text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func encTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func decTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// nullStr maps "" to NULL.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullDigest is a turn's context digest as its column holds it: NULL when not known.
func nullDigest(d *string) any {
	if d == nil {
		return nil
	}
	return *d
}
