package telemetry

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSenderNeverBlocks: with an endpoint that never answers, offers
// return at once, what finds the queue full is dropped and counted, and
// close gives up after FlushBudget, counting what was left.
func TestSenderNeverBlocks(t *testing.T) {
	defer func(b time.Duration) { FlushBudget = b }(FlushBudget)
	FlushBudget = 200 * time.Millisecond
	s := newSender(func(ctx context.Context, _ int) error { <-ctx.Done(); return ctx.Err() })
	began := time.Now()
	for i := range queueLen + 10 {
		s.offer(i)
	}
	if d := time.Since(began); d > 100*time.Millisecond {
		t.Fatalf("offers took %v", d)
	}
	s.close()
	if d := time.Since(began); d > time.Second {
		t.Fatalf("close took %v with a budget of %v", d, FlushBudget)
	}
	s.offer(0) // after close: ignored, not a panic
	msg := s.problem("batches")
	if s.queued != queueLen+10 || s.dropped+s.failed != queueLen+10 || !strings.Contains(msg, "of 74 batches not delivered") {
		t.Fatalf("queued %d, dropped %d, failed %d: %q", s.queued, s.dropped, s.failed, msg)
	}
}

// TestSenderReportsFailuresOnce: a refusing endpoint is one problem line
// with its first error; a working one is none.
func TestSenderReportsFailuresOnce(t *testing.T) {
	bad := newSender(func(_ context.Context, _ int) error { return errors.New("HTTP 400: out of order") })
	good := newSender(func(_ context.Context, _ int) error { return nil })
	for i := range 3 {
		bad.offer(i)
		good.offer(i)
	}
	bad.close()
	good.close()
	if msg := bad.problem("requests"); !strings.Contains(msg, "3 of 3 requests not delivered") || strings.Count(msg, "out of order") != 1 {
		t.Fatalf("%q", msg)
	}
	if msg := good.problem("requests"); msg != "" {
		t.Fatalf("%q", msg)
	}
}
