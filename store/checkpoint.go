package store

import (
	"context"
	"database/sql"
	"sync"
)

// Checkpoints. SQLite copies the write-ahead log back into the database file (a
// checkpoint) when a commit leaves 1,000 pages or more in the log, in that commit: 6-8 ms
// every 50 turns of a script, most of it two fsyncs, on the goroutine that commits. A DB
// on a file does it on a goroutine of its own instead: every ckptEvery commits it starts a
// passive checkpoint there, which copies what the log holds then while commits go on.
//
// The log is reused from its start only when all of it has been copied at the moment a
// write begins, which never happens while commits keep coming: so the first write after a
// checkpoint finished copies what was appended meanwhile (a few turns, 2-3 ms), and the
// log then starts over instead of growing. SQLite's own checkpoint stays on, for a log
// past walLimit pages (a large import, or a checkpoint that could not keep up).

// ckptEvery is how many commits start a checkpoint.
const ckptEvery = 50

// walLimit is SQLite's own checkpoint threshold (wal_autocheckpoint), in pages.
const walLimit = 10000

// checkpointer runs a DB's checkpoints (see above). Its zero value does nothing: Open
// turns it on for a file.
type checkpointer struct {
	on bool

	mu      sync.Mutex
	commits int  // since the last checkpoint started
	running bool // a checkpoint is running
	catchUp bool // one finished: the next write copies the rest first
	wg      sync.WaitGroup
}

// beforeWrite copies, when a checkpoint finished since the last write, what was appended
// to the log meanwhile, so that the write starts the log over. A failure (another process
// checkpointing, say) only leaves that to the next checkpoint.
func (c *checkpointer) beforeWrite(ctx context.Context, db *sql.DB) {
	if !c.on {
		return
	}
	c.mu.Lock()
	catchUp := c.catchUp
	c.catchUp = false
	c.mu.Unlock()
	if catchUp {
		checkpoint(ctx, db)
	}
}

// committed counts a commit, and starts a checkpoint every ckptEvery of them unless one is
// running.
func (c *checkpointer) committed(db *sql.DB) {
	if !c.on {
		return
	}
	c.mu.Lock()
	c.commits++
	start := !c.running && c.commits >= ckptEvery
	if start {
		c.running, c.commits = true, 0
		c.wg.Add(1)
	}
	c.mu.Unlock()
	if !start {
		return
	}
	go func() {
		defer c.wg.Done()
		ok := checkpoint(context.Background(), db)
		c.mu.Lock()
		c.running, c.catchUp = false, ok
		c.mu.Unlock()
	}()
}

// wait returns once no checkpoint is running; Close calls it before closing the database.
func (c *checkpointer) wait() { c.wg.Wait() }

// checkpoint runs a passive checkpoint and reports whether it ran.
func checkpoint(ctx context.Context, db *sql.DB) bool {
	var busy, log, copied int
	err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied)
	return err == nil && busy == 0
}
