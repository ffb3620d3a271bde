//go:build linux

package evloop

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestAfterHoldsNoTask: a thousand tasks each hand the rest of their work
// to After and end. While they wait no goroutine of theirs is left (a
// probe task counts them), each call runs on a new task no earlier than
// its time with ok true, and Run returns only once all have run.
func TestAfterHoldsNoTask(t *testing.T) {
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	const waiters = 1000
	base := runtime.NumGoroutine()
	ctx := context.Background()
	t0 := time.Now()
	at := t0.Add(150 * time.Millisecond)
	var ran, early, notOK, sameTask int
	waiting := -1
	for range waiters {
		g.Go(ctx, 0, func(ctx context.Context) {
			first := l.current
			l.After(ctx, at, func(ok bool) {
				ran++
				if time.Now().Before(at) {
					early++
				}
				if !ok {
					notOK++
				}
				if l.current == first {
					sameTask++
				}
			})
		})
	}
	g.Go(ctx, 0, func(ctx context.Context) {
		l.SleepUntil(ctx, t0.Add(75*time.Millisecond))
		waiting = runtime.NumGoroutine() - base
	})
	g.Run()
	if ran != waiters || early != 0 || notOK != 0 || sameTask != 0 {
		t.Fatalf("%d of %d calls ran, %d early, %d not ok, %d on their caller's task", ran, waiters, early, notOK, sameTask)
	}
	// The loop's goroutine and the probe's own task, not a thousand.
	if waiting < 0 || waiting > 10 {
		t.Fatalf("%d goroutines more than before while %d calls waited", waiting, waiters)
	}
	if l.alive != 0 || len(l.sleep) != 0 {
		t.Fatalf("%d tasks, %d sleepers left after the run", l.alive, len(l.sleep))
	}
}

// TestAfterWhenDone: calls due far off run at once with ok false when the
// group's done channel closes, and one whose context ended says so too.
func TestAfterWhenDone(t *testing.T) {
	done := make(chan struct{})
	g, err := NewGroup(1, done)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	var ran, ok int
	for range 10 {
		g.Go(context.Background(), 0, func(ctx context.Context) {
			l.After(ctx, time.Now().Add(time.Hour), func(whole bool) {
				ran++
				if whole {
					ok++
				}
			})
		})
	}
	time.AfterFunc(20*time.Millisecond, func() { close(done) })
	t0 := time.Now()
	g.Run()
	if took := time.Since(t0); ran != 10 || ok != 0 || took > 5*time.Second {
		t.Fatalf("%d calls ran, %d said ok, after %v", ran, ok, took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g2, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	said := true
	g2.Go(ctx, 0, func(ctx context.Context) {
		g2.Loop(0).After(ctx, time.Now().Add(time.Millisecond), func(whole bool) { said = whole })
	})
	g2.Run()
	if said {
		t.Fatal("a call whose context had ended said ok")
	}
}
