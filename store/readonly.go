package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"time"
)

// Reading a database that cannot be written. A connection to a database in WAL mode keeps
// two files beside it, PATH-wal and PATH-shm, which the last read-write connection removes
// when it closes. A reader that may not write the directory cannot make them, and one that
// may not write the file cannot remove them: SQLite's read-write open then fails ("database
// is read-only") or leaves them behind. So a reader that cannot write both (OpenExisting)
// opens the file read-only: immutable when no log is beside it (all of the database is in
// the file, and nothing is created), else read-only on the log that is there (mode=ro).

// canWrite reports whether this process may write the file at path and the directory that
// holds it (a variable for tests).
var canWrite = writable

// openReader opens the existing ctxlab database at path read-only (see above): it never
// writes the file nor makes a file beside it. A database a process was killed writing
// (a log to recover), or made by an older ctxlab (a schema to bring up to date), needs a
// read-write open: that is an error here.
func openReader(path string) (*DB, error) {
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	mode := "immutable=1" // no log: the file holds every commit
	if _, err := os.Stat(path + "-wal"); err == nil {
		mode = "mode=ro" // read what the log holds too, as the other readers do
	}
	sdb, err := sql.Open("sqlite", uri+"?"+mode+fmt.Sprintf("&_pragma=busy_timeout(%d)&_pragma=temp_store(2)", busyTimeout.Milliseconds()))
	if err != nil {
		return nil, dbErr(context.Background(), err, "open")
	}
	n := 4
	sdb.SetMaxOpenConns(n)
	sdb.SetMaxIdleConns(n)
	sdb.SetConnMaxLifetime(0)
	sdb.SetConnMaxIdleTime(0)
	ctx := context.Background()
	fail := func(err error) (*DB, error) {
		sdb.Close()
		return nil, err
	}
	if err := checkSchema(ctx, sdb); errors.Is(err, errNeedsRecovery) {
		return fail(&storeError{msg: "a process was killed while it wrote the database, and its log must be recovered " +
			"by a command that can write the file and its folder (ctxlab chats, as a user who can)", kind: errNeedsRecovery})
	} else if err != nil {
		return fail(err)
	}
	v, err := schemaVersion(ctx, sdb)
	switch {
	case err != nil:
		return fail(err)
	case v == 0:
		return fail(fmt.Errorf("%w: the file holds no schema yet", ErrNoDatabase))
	case v < len(migrations):
		return fail(&storeError{msg: fmt.Sprintf("the database was made by an older ctxlab (schema version %d, this one writes %d): "+
			"bring it up to date with a command that can write the file and its folder (ctxlab chats, as a user who can)", v, len(migrations)),
			kind: ErrSchema})
	}
	return &DB{db: sdb, path: path, Now: time.Now, ahead: preparedLists{seed: maphash.MakeSeed()}, readOnly: true}, nil
}
