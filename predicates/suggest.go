package predicates

import "time"

// msDuration converts whole milliseconds to a Duration.
func msDuration(ms float64) time.Duration {
	return time.Duration(ms) * time.Millisecond
}
