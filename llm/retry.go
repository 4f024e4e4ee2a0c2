package llm

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultBackoff waits 500ms, 1s, 2s, … at most 8s.
func defaultBackoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << min(max(attempt, 0), 4)
	return min(d, 8*time.Second)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryWait returns how long to wait before retrying a request that failed with e before
// any token was delivered, or false when it must not be retried: not a transient failure,
// retries used up, or a Retry-After longer than MaxRetryWait.
func (c *Client) retryWait(e *Error, a *attempt, retries int) (time.Duration, bool) {
	if retries >= c.maxRetries || !retryable(e) {
		return 0, false
	}
	if a != nil {
		if d, ok := retryAfter(a.header, c.now()); ok {
			return d, d <= c.maxWait
		}
	}
	return c.backoff(retries), true
}

// retryable reports whether a failure is worth retrying: 429 (except an exhausted quota),
// 5xx (except 501 and 505, which will not change), a refused or reset connection, or a
// stream that broke before its first token.
func retryable(e *Error) bool {
	switch e.Kind {
	case KindStatus:
		if e.Status == http.StatusTooManyRequests {
			return e.code != "insufficient_quota" && !strings.Contains(strings.ToLower(e.Message), "exceeded your current quota")
		}
		return e.Status >= 500 && e.Status != http.StatusNotImplemented && e.Status != http.StatusHTTPVersionNotSupported
	case KindConnect:
		return e.Timeout == 0 && connDropped(e.Err)
	case KindTransport, KindCut:
		return connDropped(e.Err)
	}
	return false
}

// connDropped reports whether err is a refused, reset or prematurely closed connection.
func connDropped(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// retryAfter reads Retry-After-Ms (OpenAI), or Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return seconds(ms / 1000), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) {
			return 0, false
		}
		return seconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// seconds converts s (>= 0) to a duration, capped at a week so huge values cannot overflow.
func seconds(s float64) time.Duration {
	const week = 7 * 24 * time.Hour
	if s >= week.Seconds() {
		return week
	}
	return time.Duration(s * float64(time.Second))
}
