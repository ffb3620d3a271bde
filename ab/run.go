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
	// Restart, when set, stops the server behind the target and starts
	// it afresh, and returns the fresh server's target (Experiment.Restart).
	Restart func(ctx context.Context) (Target, error)
}

// Measure runs one measurement of side's target and returns its figures:
// at least Requests, Throughput, the percentiles and ErrorRate. Seconds
// and GenCPU, when left zero, are filled by the runner; ServerCPU and
// ServerCPUPerRequest always are, from the target's CPU source. A warm-up
// measurement (warmup true) is discarded: it may be shorter. A sliced
// round's measurements get their side's Slices; others get nil.
type Measure func(ctx context.Context, side Side, t Target, warmup bool, s *Slices) (Figures, error)

// Slices are one side's share of a sliced round: slice i, of Length, is
// the side's when On[i]. Start must be called as the measured window
// opens, before its clock starts: it returns once the other side's has
// opened too (or ctx has ended), so that both count slices from the same
// instant.
type Slices struct {
	Length time.Duration
	On     []bool
	Start  func()
}

// Active is how long the side is loaded: its slices together.
func (s *Slices) Active() time.Duration {
	n := 0
	for _, on := range s.On {
		if on {
			n++
		}
	}
	return time.Duration(n) * s.Length
}

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
	// Pairs > 0 slices each round (unless Duet): A and B take turns in
	// slices of Slice, 2·Pairs slices in all, each pair of turns in an
	// order drawn anew, so that the round's ratio compares the two sides
	// over the same moments of the machine, whose speed wanders from one
	// second to the next. The round's Order is its first pair's.
	Slice time.Duration
	Pairs int
	// Restart starts each round after the first on fresh servers, for
	// the targets that can be restarted, in the round's order: two starts
	// of one server differ by a few percent (memory layout, caches, where
	// the kernel puts it), which would otherwise be read as a difference
	// between A and B. Abedi and Brecht's trials each run afresh too.
	Restart bool
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
		e.Gated = DefaultGated(e.A.CPU != nil && e.B.CPU != nil)
	}
	seq, err := abstat.NewSequential(e.Plan, e.Gated)
	if err != nil {
		return nil, err
	}
	if e.Seed == 0 {
		e.Seed = rand.Uint64() | 1
	}
	res := &Result{Seed: e.Seed, Settings: Settings{
		Plan: seq.Plan(), Gated: e.Gated, AlarmAlpha: seq.AlarmAlpha(), BudgetSeconds: e.Budget.Seconds(), Warmup: !e.NoWarmup, Duet: e.Duet,
		Restarted: e.Restart && (e.A.Restart != nil || e.B.Restart != nil),
		A:         e.A.where(), B: e.B.where(),
	}}
	if e.Pairs > 0 && !e.Duet {
		res.Settings.SliceSeconds = e.Slice.Seconds()
	}
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
		if e.Budget > 0 && n == seq.Plan().MinRounds-1 {
			e.fitBudget(seq, res, n, e.now().Sub(start), longest)
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

// fitBudget refits the plan, before its first look, to the rounds the
// budget holds at the pace of the n rounds so far (elapsed, the longest
// of them longest): a round starts only while the longest would still
// end within the budget, so after n rounds about (Budget − longest) /
// pace more fit, and the plan takes one fewer for a slower stretch later.
func (e Experiment) fitBudget(seq *abstat.Sequential, res *Result, n int, elapsed, longest time.Duration) {
	pace := elapsed / time.Duration(n)
	if pace <= 0 {
		return
	}
	fit := n + int((e.Budget-elapsed-longest)/pace)
	before := seq.Plan().MaxRounds
	if fit >= before || seq.Refit(fit) != nil {
		return
	}
	res.Settings.Plan = seq.Plan()
	res.Settings.AskedRounds = before
	res.Settings.CannotAlarm = seq.Blind()
}

func allDecided(vs []abstat.Result, gated []abstat.Metric) bool {
	r := Result{Verdicts: vs, Settings: Settings{Gated: gated}}
	return !r.Inconclusive()
}

// round measures both sides once, in an order drawn from rng, first
// restarting their servers (into e's targets) when e asks for that.
func (e *Experiment) round(ctx context.Context, rng *rand.Rand, n int) (Round, error) {
	r := Round{Index: n, Order: [2]Side{A, B}}
	if rng.IntN(2) == 1 {
		r.Order = [2]Side{B, A}
	}
	if e.Restart && n > 1 {
		for _, side := range r.Order {
			t := &e.A
			if side == B {
				t = &e.B
			}
			if t.Restart == nil {
				continue
			}
			fresh, err := t.Restart(ctx)
			if err != nil {
				return r, fmt.Errorf("%s: restart: %w", side, err)
			}
			*t = fresh
		}
	}
	switch {
	case e.Duet:
		return e.together(ctx, r, [2]*Slices{})
	case e.Pairs > 0:
		return e.together(ctx, r, e.slices(rng, r.Order[0]))
	}
	for _, side := range r.Order {
		f, err := e.measure(ctx, side, e.target(side), nil)
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

func (e Experiment) target(side Side) Target {
	if side == B {
		return e.B
	}
	return e.A
}

// slices draws a round's turns: A's and B's Slices, the first pair in
// the order first, each later pair in an order of its own.
func (e Experiment) slices(rng *rand.Rand, first Side) [2]*Slices {
	a := &Slices{Length: e.Slice, On: make([]bool, 2*e.Pairs)}
	b := &Slices{Length: e.Slice, On: make([]bool, 2*e.Pairs)}
	for k := range e.Pairs {
		aFirst := first == A
		if k > 0 {
			aFirst = rng.IntN(2) == 0
		}
		a.On[2*k], a.On[2*k+1] = aFirst, !aFirst
		b.On[2*k], b.On[2*k+1] = !aFirst, aFirst
	}
	return [2]*Slices{a, b}
}

// measure warms side up, then measures it with the server's CPU time and
// this process's around the measurement.
func (e Experiment) measure(ctx context.Context, side Side, t Target, s *Slices) (Figures, error) {
	if !e.NoWarmup {
		if _, err := e.Measure(ctx, side, t, true, nil); err != nil {
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
	f, err := e.Measure(ctx, side, t, false, s)
	if err != nil {
		return f, err
	}
	if f.Seconds == 0 {
		f.Seconds = e.now().Sub(began).Seconds()
		if s != nil {
			f.Seconds = s.Active().Seconds()
		}
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

// together measures both sides of r at once, each started in r's order:
// a duet when slices are nil, else each in its own slices, their clocks
// started together. A side that fails stops the other.
func (e Experiment) together(ctx context.Context, r Round, slices [2]*Slices) (Round, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if slices[0] != nil {
		start := startTogether(ctx, 2)
		slices[0].Start, slices[1].Start = start, start
	}
	var errs [2]error
	var figs [2]Figures
	var wg sync.WaitGroup
	for i, side := range r.Order {
		s := slices[0]
		if side == B {
			s = slices[1]
		}
		wg.Go(func() {
			figs[i], errs[i] = e.measure(ctx, side, e.target(side), s)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// The first failure, not the other side's stop that it caused.
	if i := firstCause(errs); i >= 0 {
		return r, fmt.Errorf("%s: %w", r.Order[i], errs[i])
	}
	for i, side := range r.Order {
		if side == A {
			r.A = figs[i]
		} else {
			r.B = figs[i]
		}
	}
	return r, nil
}

// firstCause is the index of the error to report: one that is not a
// cancellation if there is one, else the first; -1 without errors.
func firstCause(errs [2]error) int {
	first := -1
	for i, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// startTogether is a start line for n measurements: each call returns
// once all n have called, or ctx has ended.
func startTogether(ctx context.Context, n int) func() {
	var mu sync.Mutex
	all := make(chan struct{})
	return func() {
		mu.Lock()
		if n--; n == 0 {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
		}
	}
}

// DefaultGated are the metrics gated unless told otherwise: throughput and
// p50, and the server's CPU per request when both sides' can be read.
func DefaultGated(cpu bool) []abstat.Metric {
	g := []abstat.Metric{abstat.Throughput, abstat.P50}
	if cpu {
		g = append(g, abstat.ServerCPUPerRequest)
	}
	return g
}
