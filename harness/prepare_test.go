package harness

import (
	"context"
	"testing"
	"time"
)

func TestWaitUntilIsInterruptible(t *testing.T) {
	if err := waitUntil(context.Background(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatalf("past time: %v", err)
	}
	t0 := time.Now()
	if err := waitUntil(context.Background(), t0.Add(50*time.Millisecond)); err != nil || time.Since(t0) < 50*time.Millisecond {
		t.Fatalf("waited %v, %v", time.Since(t0), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 = time.Now()
	if err := waitUntil(ctx, t0.Add(time.Hour)); err == nil || time.Since(t0) > 5*time.Second {
		t.Fatalf("interrupt: %v after %v", err, time.Since(t0))
	}
}
