package sweep

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// Level is one load level of a sweep: a concurrency (closed loop) or, when
// Rate is above zero, an offered rate in requests/s (open loop).
type Level struct {
	Concurrency int
	Rate        float64
}

// Step says which point of a sweep is being measured: its level, and its
// place for a progress line.
type Step struct {
	Level Level
	// N counts the points from 1; Total is how many are planned so far,
	// which grows by one with each refine step.
	N, Total int
}

// Plan is one sweep: the levels to measure, in order, and how to go on.
type Plan struct {
	// Concurrency or Rates lists the levels; give one of them, not both.
	Concurrency []int
	Rates       []float64
	// SLO decides which points are feasible when refining.
	SLO SLO
	// Refine, after the listed levels, bisects between the last feasible
	// and the first infeasible level (NextRefine, NextRefineRate) until
	// the search has nothing left.
	Refine bool
	// Cooldown is a pause before every point but the first, so that the
	// server settles between levels.
	Cooldown time.Duration
}

// MeasureFunc measures one level, st.Level, and returns its point; st also
// says which point it is (N of Total so far), so the caller can show where
// the sweep stands. The caller owns the generator and the connection; the
// sweep only decides the levels.
type MeasureFunc func(ctx context.Context, st Step) (measure.Point, error)

// Run measures the plan's levels in order and then, with Refine, the
// levels the refine search proposes. It returns the points sorted by rate,
// then concurrency. An error from level, a cancelled ctx during a
// cooldown, or a point marked Interrupted ends the sweep and keeps what was
// measured: during the listed levels Run also returns the error; once
// refining, the listed series is complete and Run returns no error.
func Run(ctx context.Context, plan Plan, level MeasureFunc) ([]measure.Point, error) {
	levels, next, err := plan.levels()
	if err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, plan: &plan, measure: level, total: len(levels)}
	for _, l := range levels {
		if more, err := r.step(l); err != nil || !more {
			sortPoints(r.points)
			return r.points, err
		}
	}
	for plan.Refine {
		sortPoints(r.points)
		l, ok := next(r.points)
		if !ok {
			break
		}
		r.total++
		if more, err := r.step(l); err != nil || !more {
			break
		}
	}
	sortPoints(r.points)
	return r.points, nil
}

// levels lists the plan's levels and the refine search that suits them.
func (p *Plan) levels() ([]Level, func([]measure.Point) (Level, bool), error) {
	if len(p.Concurrency) > 0 && len(p.Rates) > 0 {
		return nil, nil, errors.New("sweep: give concurrency levels or rates, not both")
	}
	var levels []Level
	if len(p.Concurrency) > 0 {
		for _, c := range p.Concurrency {
			levels = append(levels, Level{Concurrency: c})
		}
		return levels, func(points []measure.Point) (Level, bool) {
			c, ok := NextRefine(points, p.SLO)
			return Level{Concurrency: c}, ok
		}, nil
	}
	for _, r := range p.Rates {
		levels = append(levels, Level{Rate: r})
	}
	return levels, func(points []measure.Point) (Level, bool) {
		r, ok := NextRefineRate(points, p.SLO, 0)
		return Level{Rate: r}, ok
	}, nil
}

// runner is the state of one Run: the points so far and the count the
// progress line shows.
type runner struct {
	ctx     context.Context
	plan    *Plan
	measure MeasureFunc
	points  []measure.Point
	done    int
	total   int
}

// step measures one level after the cooldown and keeps its point. more is
// false when the point was interrupted, so that the sweep stops there.
func (r *runner) step(l Level) (more bool, err error) {
	if r.done > 0 && r.plan.Cooldown > 0 {
		t := time.NewTimer(r.plan.Cooldown)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
			return false, r.ctx.Err()
		}
	}
	r.done++
	p, err := r.measure(r.ctx, Step{Level: l, N: r.done, Total: r.total})
	if err != nil {
		return false, err
	}
	r.points = append(r.points, p)
	return !p.Interrupted, nil
}

// sortPoints orders points by rate, then concurrency, as the refine search
// and the analysis expect; a closed-loop point counts as rate 0.
func sortPoints(ps []measure.Point) {
	sort.SliceStable(ps, func(i, j int) bool {
		ri, rj := 0.0, 0.0
		if ps[i].Rate != nil {
			ri = *ps[i].Rate
		}
		if ps[j].Rate != nil {
			rj = *ps[j].Rate
		}
		if ri != rj {
			return ri < rj
		}
		return ps[i].Concurrency < ps[j].Concurrency
	})
}
