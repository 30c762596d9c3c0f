// Package ctxwait waits a while unless a context ends first: the pause
// between retries, requests and polls that must never outlive a cancelled
// fetch or crawl.
package ctxwait

import (
	"context"
	"time"
)

// For waits d and reports true, or reports false as soon as ctx ends.
func For(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
