package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
)

// abortOutput watches a run's settled intervals against the --abort-on
// rules and ends the run when one holds: it cancels the run's context, so
// what was measured is kept and reported as for an interrupt, with the
// reason beside it.
type abortOutput struct {
	harness.NopOutput
	cancel context.CancelFunc
	e      env
	cmd    string

	mu      sync.Mutex
	watch   results.AbortWatch
	aborted *results.Aborted
}

func (a *abortOutput) Interval(iv harness.PointInterval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.aborted != nil {
		return
	}
	f := results.IntervalFigures{EndS: iv.End.Seconds(), LengthS: iv.Length.Seconds(), Requests: iv.Requests, Errors: iv.Errors,
		P50MS: iv.P50MS, P95MS: iv.P95MS, P99MS: iv.P99MS, Max: iv.MaxMS}
	if ab := a.watch.Observe(f); ab != nil {
		a.aborted = ab
		fmt.Fprintf(a.e.stderr, "mcpbench %s: aborting at %.1f s: %s\n", a.cmd, ab.AtS, ab.Reason)
		a.cancel()
	}
}

// mark puts the abort, if there was one, into the report.
func (a *abortOutput) mark(r *results.RunReport) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r.Aborted = a.aborted
}

//END
