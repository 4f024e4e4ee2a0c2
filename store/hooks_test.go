package store

import (
	"context"
	"database/sql"
)

// SetShortPath sets the longest path whose turns are looked up by message id, for the
// tests of package store_test, and returns a function that restores it.
func SetShortPath(n int) func() {
	old := shortPath
	shortPath = n
	return func() { shortPath = old }
}

// SetCanWrite makes OpenExisting take every file as writable or not, for the tests of
// package store_test, and returns a function that restores it.
func SetCanWrite(w bool) func() {
	old := canWrite
	canWrite = func(string) bool { return w }
	return func() { canWrite = old }
}

// ReadOnly reports whether d was opened read-only.
func (d *DB) ReadOnly() bool { return d.readOnly }

// MakeAtVersion makes a database at path migrated to exactly schema version v, for the
// tests of package store_test.
func MakeAtVersion(path string, v int) error {
	dsn, err := dsnFor(path)
	if err != nil {
		return err
	}
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer raw.Close()
	if _, err := raw.Exec("PRAGMA user_version = 0"); err != nil { // the file is made
		return err
	}
	return (&DB{db: raw}).migrate(context.Background(), v)
}
