//go:build linux

package evloop

import (
	"context"
	"testing"
	"time"
)

// Three branches each sleeping 60ms on one loop finish together, not one
// after another, and All returns only once every one has.
func TestAllRunsBranchesAtOnce(t *testing.T) {
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var done [3]bool
	var took time.Duration
	allDone := false
	g.Go(context.Background(), 0, func(ctx context.Context) {
		l := g.Loop(0)
		t0 := time.Now()
		fns := make([]func(), len(done))
		for i := range fns {
			fns[i] = func() { done[i] = l.SleepUntil(ctx, time.Now().Add(60*time.Millisecond)) }
		}
		l.All(fns...)
		took = time.Since(t0)
		allDone = done[0] && done[1] && done[2]
	})
	g.Run()
	if !allDone {
		t.Fatalf("All returned before its branches had all slept: %v", done)
	}
	if took < 60*time.Millisecond || took > 150*time.Millisecond {
		t.Fatalf("three 60ms branches took %v: not at once", took)
	}
}

// A parallel block's branches run on the loop's spare helpers: blocks one
// after another make no new tasks, and each branch runs on a task of its
// own.
func TestAllReusesHelpers(t *testing.T) {
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	tasks := map[*task]int{}
	var caller *task
	g.Go(context.Background(), 0, func(context.Context) {
		caller = l.current
		for range 5 {
			seen := map[*task]bool{}
			branch := func() { seen[l.current] = true; tasks[l.current]++ }
			l.All(branch, branch, branch)
			if len(seen) != 3 || seen[caller] {
				t.Errorf("three branches ran on %d tasks apart (the caller's among them: %v)", len(seen), seen[caller])
			}
		}
	})
	g.Run()
	if len(tasks) != 3 {
		t.Fatalf("five blocks of three branches ran on %d tasks, want the same 3", len(tasks))
	}
}
