package ctxwait

import (
	"context"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	if !For(context.Background(), time.Millisecond) {
		t.Error("a wait of 1 ms under a live context reported false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if For(ctx, time.Hour) {
		t.Error("a wait under an ended context reported true")
	}
	if time.Since(start) > time.Minute {
		t.Error("a wait under an ended context did not return at once")
	}
}
