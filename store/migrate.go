package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// applicationID marks a ctxlab database file (PRAGMA application_id, "ctxl").
const applicationID = 0x6374786c

// migration is one schema step: migrations[i] takes the schema from version i to i+1.
type migration struct {
	name string
	sql  string
}

// migrations are the embedded migrations/NNNN_name.sql files in order; NNNN must run
// 0001, 0002, … without gaps.
var migrations = loadMigrations()

func loadMigrations() []migration {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	out := make([]migration, 0, len(names))
	for i, name := range names {
		base := path.Base(name)
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || n != i+1 {
			panic(fmt.Sprintf("store: migration %s out of sequence (want %04d_*.sql)", base, i+1))
		}
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			panic(err)
		}
		out = append(out, migration{name: base, sql: string(b)})
	}
	return out
}

// SchemaVersion is the schema version this build writes (PRAGMA user_version).
func SchemaVersion() int { return len(migrations) }

// migrate brings the schema to version target (len(migrations) outside tests), all the
// steps in one transaction: a database is upgraded whole or not at all, and a new one is
// created in a single commit (a few ms less than one commit a step, each of which made
// every connection read the schema again). A database newer than this build is refused
// untouched.
func (d *DB) migrate(ctx context.Context, target int) error {
	if err := checkSchema(ctx, d.db); err != nil {
		return err
	}
	v, err := schemaVersion(ctx, d.db)
	if err != nil {
		return err
	}
	if v >= target {
		return nil
	}
	return d.migrateTo(ctx, target)
}

// checkSchema refuses a database with a schema newer than this build, or that holds
// something other than a ctxlab database.
func checkSchema(ctx context.Context, q querier) error {
	v, err := schemaVersion(ctx, q)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return &storeError{
			msg:  fmt.Sprintf("database schema version %d is newer than this ctxlab (%d); upgrade ctxlab", v, len(migrations)),
			kind: ErrSchema,
		}
	}
	var app int64
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return dbErr(ctx, err, "read application id")
	}
	if app != 0 && app != applicationID {
		return &storeError{msg: fmt.Sprintf("not a ctxlab database (application id %#x)", app), kind: ErrSchema}
	}
	if v == 0 {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return dbErr(ctx, err, "read schema")
		}
		if n > 0 {
			// Another process may have created the schema between the two reads.
			if v2, err := schemaVersion(ctx, q); err == nil && v2 > 0 {
				return checkSchema(ctx, q)
			}
			return &storeError{msg: "not a ctxlab database (it has tables but no ctxlab schema version)", kind: ErrSchema}
		}
	}
	return nil
}

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, dbErr(ctx, err, "read schema version")
	}
	return v, nil
}

// migrateTo runs, in one transaction, the migrations from the schema's version (read in
// it: another process may have migrated meanwhile) to target.
func (d *DB) migrateTo(ctx context.Context, target int) error {
	return d.write(ctx, func(tx *sql.Tx) error {
		v, err := schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		for next := v + 1; next <= target; next++ {
			m := migrations[next-1]
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return dbErr(ctx, err, "migration "+m.name)
			}
		}
		if v >= target {
			return nil
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", target)); err != nil {
			return dbErr(ctx, err, fmt.Sprintf("migration to version %d: set version", target))
		}
		return nil
	})
}
