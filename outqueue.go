package main

// outQueue runs the writes of a command's output on a goroutine of its own, one after the
// other in the order they were queued. `ctxlab run` formats a block of a few KB for every
// turn (the decisions, the reply, the tokens): on a queue, that work overlaps the commit
// of the next turn instead of delaying it. A queued write must only read what no one
// changes after it is queued.
//
// The queue holds no write waiting: do waits until the goroutine has taken the write
// before. Output thus never falls more than one turn behind the database: a process
// killed at any moment has saved every turn it printed, and at most two it did not.
type outQueue struct {
	jobs chan func()
	done chan struct{}
}

// newOutQueue starts a queue; with async false it runs each write at once instead (the
// streaming output of a terminal, which prints as the engine calls it).
func newOutQueue(async bool) *outQueue {
	if !async {
		return &outQueue{}
	}
	q := &outQueue{jobs: make(chan func()), done: make(chan struct{})}
	go func() {
		defer close(q.done)
		for f := range q.jobs {
			f()
		}
	}()
	return q
}

// do queues f, or runs it at once on a synchronous queue.
func (q *outQueue) do(f func()) {
	if q.jobs == nil {
		f()
		return
	}
	q.jobs <- f
}

// wait returns once every write queued has run. Writes queued after it run at once.
func (q *outQueue) wait() {
	if q.jobs == nil {
		return
	}
	close(q.jobs)
	<-q.done
	q.jobs = nil
}
