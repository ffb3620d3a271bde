//go:build linux

package evloop

import (
	"context"
	"testing"
	"time"
)

// TestDeepRunsOnAHelper: a deep call runs on a task other than its
// caller's, the caller goes on once it has returned, callers of one loop
// wait at once (a hundred 20 ms calls take far less than 2 s), the
// helpers are reused up to the spares a loop keeps, and the loop ends
// with idle helpers left (they are ended, not waited for).
func TestDeepRunsOnAHelper(t *testing.T) {
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	const callers = 100
	var elsewhere, finished int
	helpers := map[*task]bool{}
	t0 := time.Now()
	for range callers {
		g.Go(context.Background(), 0, func(ctx context.Context) {
			for range 2 {
				caller := l.current
				ok := false
				l.Deep(func() {
					helpers[l.current] = true
					if l.current != caller {
						elsewhere++
					}
					ok = l.SleepUntil(ctx, time.Now().Add(20*time.Millisecond))
				})
				if ok && l.current == caller {
					finished++
				}
			}
		})
	}
	g.Run() // returns: the idle helpers do not hold the loop
	took := time.Since(t0)
	if elsewhere != 2*callers || finished != 2*callers {
		t.Fatalf("%d of %d deep calls ran on a helper, %d callers went on after theirs", elsewhere, 2*callers, finished)
	}
	if took > time.Second {
		t.Fatalf("%d callers' two 20 ms calls took %v: not at once", callers, took)
	}
	// The second round reuses the spares the first left.
	if len(helpers) > 2*callers-maxSpareHelpers || len(helpers) < callers {
		t.Fatalf("%d helpers for %d callers in two rounds", len(helpers), callers)
	}
	if len(l.helpers) != 0 || l.alive != 0 {
		t.Fatalf("%d idle helpers, %d tasks left after the run", len(l.helpers), l.alive)
	}
}

// TestDeepHandsOffWithoutPolling: a deep call's helper, and its caller
// when it returns, run in the round that readied them, not after a poll
// that finds nothing (two polls a call, before): fifty calls in a row
// that wait on nothing take at most a poll for every two.
func TestDeepHandsOffWithoutPolling(t *testing.T) {
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	const calls = 50
	done := 0
	g.Go(context.Background(), 0, func(context.Context) {
		for range calls {
			l.Deep(func() { done++ })
		}
	})
	g.Run()
	if done != calls || l.polls > calls/2+1 {
		t.Fatalf("%d of %d deep calls ran, with %d polls", done, calls, l.polls)
	}
}
