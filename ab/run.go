package ab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/abstat"
)

var nan = math.NaN()

// Target is one side of the experiment: where it answers, and where its
// CPU time can be read (nil when it cannot).
type Target struct {
	URL string
	CPU CPUSource
}

// Measure runs one measurement of side's target and returns its figures:
// at least Requests, Throughput, the percentiles and ErrorRate. Seconds
// and GenCPU, when left zero, are filled by the runner; ServerCPU and
// ServerCPUPerRequest always are, from the target's CPU source. A warm-up
// measurement (warmup true) is discarded: it may be shorter.
type Measure func(ctx context.Context, side Side, t Target, warmup bool) (Figures, error)

// Experiment is an A/B experiment's design.
type Experiment struct {
	A, B    Target
	Measure Measure
	Plan    abstat.Plan
	// Gated are the metrics that must be decided to stop early; by
	// default throughput and p50, and server_cpu_per_request when both
	// sides have a CPU source.
	Gated []abstat.Metric
	// Seed draws the rounds' orders; 0 draws a seed, which the result
	// records, so that any run can be repeated.
	Seed uint64
	// Budget bounds the experiment's time: no round starts that would
	// not end within it (judged by the longest round so far). 0: none.
	Budget   time.Duration
	NoWarmup bool
	// Duet measures A and B at the same time in each round (Bulej et al.,
	// ICPE 2020): both share whatever disturbs the machine meanwhile, so
	// their ratio cancels it, where the machine has the cores for both.
	// The round's order then only says which was started first.
	Duet bool
	// OnRound, when set, is told of each round as it ends.
	OnRound func(Round)

	now func() time.Time // the clock; time.Now unless a test sets it
}

// Run runs rounds until the sequential rule stops it, the plan's last
// look, the budget or ctx's end (the result then says "interrupted", with
// the rounds done judged), and returns the result. A measurement that
// fails ends the experiment with the error and the rounds so far.
func (e Experiment) Run(ctx context.Context) (*Result, error) {
	if e.Measure == nil {
		return nil, errors.New("no Measure")
	}
	if e.now == nil {
		e.now = time.Now
	}
	if len(e.Gated) == 0 {
		e.Gated = []abstat.Metric{abstat.Throughput, abstat.P50}
		if e.A.CPU != nil && e.B.CPU != nil {
			e.Gated = append(e.Gated, abstat.ServerCPUPerRequest)
		}
	}
	seq, err := abstat.NewSequential(e.Plan, e.Gated)
	if err != nil {
		return nil, err
	}
	if e.Seed == 0 {
		e.Seed = rand.Uint64() | 1
	}
	res := &Result{Seed: e.Seed, Settings: Settings{
		Plan: seq.Plan(), Gated: e.Gated, BudgetSeconds: e.Budget.Seconds(), Warmup: !e.NoWarmup, Duet: e.Duet,
		A: e.A.where(), B: e.B.where(),
	}}
	rng := rand.New(rand.NewPCG(e.Seed, e.Seed^0x9e3779b97f4a7c15))
	start := e.now()
	err = e.rounds(ctx, rng, seq, res)
	if res.Stopped != StopDecided && res.Stopped != StopMaxRounds && len(res.Rounds) > 0 {
		seq.Look(paired(res.Rounds), true) // the last look, at once
	}
	res.Verdicts = seq.Verdicts()
	res.Seconds = e.now().Sub(start).Seconds()
	return res, err
}

// rounds runs the rounds and sets res.Stopped.
func (e Experiment) rounds(ctx context.Context, rng *rand.Rand, seq *abstat.Sequential, res *Result) error {
	start := e.now()
	var longest time.Duration
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			res.Stopped = StopInterrupted
			return nil
		}
		if e.Budget > 0 && n > 1 && e.now().Sub(start)+longest > e.Budget {
			res.Stopped = StopBudget
			return nil
		}
		began := e.now()
		r, err := e.round(ctx, rng, n)
		if err != nil {
			if ctx.Err() != nil {
				res.Stopped = StopInterrupted
				return nil
			}
			res.Stopped = StopFailed
			return fmt.Errorf("round %d: %w", n, err)
		}
		longest = max(longest, e.now().Sub(began))
		res.Rounds = append(res.Rounds, r)
		if e.OnRound != nil {
			e.OnRound(r)
		}
		if seq.Due(n) && seq.Look(paired(res.Rounds), false) {
			res.Stopped = StopMaxRounds
			if allDecided(seq.Verdicts(), e.Gated) {
				res.Stopped = StopDecided
			}
			return nil
		}
	}
}

func allDecided(vs []abstat.Result, gated []abstat.Metric) bool {
	r := Result{Verdicts: vs, Settings: Settings{Gated: gated}}
	return !r.Inconclusive()
}

// round measures both sides once, in an order drawn from rng.
func (e Experiment) round(ctx context.Context, rng *rand.Rand, n int) (Round, error) {
	r := Round{Index: n, Order: [2]Side{A, B}}
	if rng.IntN(2) == 1 {
		r.Order = [2]Side{B, A}
	}
	if e.Duet {
		return e.duet(ctx, r)
	}
	for _, side := range r.Order {
		t := e.A
		if side == B {
			t = e.B
		}
		f, err := e.measure(ctx, side, t)
		if err != nil {
			return r, fmt.Errorf("%s: %w", side, err)
		}
		if side == A {
			r.A = f
		} else {
			r.B = f
		}
	}
	return r, nil
}

// measure warms side up, then measures it with the server's CPU time and
// this process's around the measurement.
func (e Experiment) measure(ctx context.Context, side Side, t Target) (Figures, error) {
	if !e.NoWarmup {
		if _, err := e.Measure(ctx, side, t, true); err != nil {
			return Figures{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	cpu0 := nan
	if t.CPU != nil {
		c, err := t.CPU.CPUSeconds(ctx)
		if err != nil {
			return Figures{}, fmt.Errorf("server CPU (%s): %w", t.CPU.Where(), err)
		}
		cpu0 = c
	}
	gen0, began := selfCPU(), e.now()
	f, err := e.Measure(ctx, side, t, false)
	if err != nil {
		return f, err
	}
	if f.Seconds == 0 {
		f.Seconds = e.now().Sub(began).Seconds()
	}
	if gen := selfCPU() - gen0; f.GenCPU == 0 && !math.IsNaN(gen) {
		f.GenCPU = gen
	}
	f.ServerCPU, f.ServerCPUPerRequest = nil, nil
	if t.CPU != nil {
		c, err := t.CPU.CPUSeconds(ctx)
		if err != nil {
			return f, fmt.Errorf("server CPU (%s): %w", t.CPU.Where(), err)
		}
		used := c - cpu0
		f.ServerCPU = &used
		if f.Requests > 0 {
			per := used / float64(f.Requests)
			f.ServerCPUPerRequest = &per
		}
	}
	return f, nil
}

// where describes a target for the settings.
func (t Target) where() string {
	s := t.URL
	if t.CPU != nil {
		s += " (CPU: " + t.CPU.Where() + ")"
	}
	return s
}

// duet measures both sides of r at once, each started in r's order.
func (e Experiment) duet(ctx context.Context, r Round) (Round, error) {
	var errs [2]error
	var figs [2]Figures
	var wg sync.WaitGroup
	for i, side := range r.Order {
		t := e.A
		if side == B {
			t = e.B
		}
		wg.Go(func() { figs[i], errs[i] = e.measure(ctx, side, t) })
	}
	wg.Wait()
	for i, side := range r.Order {
		if errs[i] != nil {
			return r, fmt.Errorf("%s: %w", side, errs[i])
		}
		if side == A {
			r.A = figs[i]
		} else {
			r.B = figs[i]
		}
	}
	return r, nil
}
