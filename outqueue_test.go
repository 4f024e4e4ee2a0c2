package main

import (
	"slices"
	"sync/atomic"
	"testing"
)

// TestOutQueue checks that queued writes run in order, all of them by wait, and that a
// synchronous queue and a queue waited for run each write at once.
func TestOutQueue(t *testing.T) {
	for _, async := range []bool{true, false} {
		q := newOutQueue(async)
		var got []int
		var ran atomic.Int32
		for i := range 200 {
			q.do(func() {
				got = append(got, i)
				ran.Add(1)
			})
			if !async && ran.Load() != int32(i+1) {
				t.Fatalf("synchronous queue: write %d did not run at once", i)
			}
		}
		q.wait()
		if want := 200; len(got) != want || !slices.IsSorted(got) {
			t.Errorf("async %v: ran %d writes, in order %v; want %d in order", async, len(got), slices.IsSorted(got), want)
		}
		q.wait() // a second wait returns at once
		q.do(func() { got = append(got, -1) })
		if got[len(got)-1] != -1 {
			t.Errorf("async %v: a write queued after wait did not run at once", async)
		}
	}
}
