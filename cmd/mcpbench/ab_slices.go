package main

import (
	"fmt"
	"time"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/harness"
)

// abDefaultSlice is the turn A and B take by default. On a shared 2-core
// machine the CPU's speed wanders by 10–20% from one tenth of a second to
// the next and from one second to the next alike, so the ratio of two
// sides measured in turns of 100 ms, paired and averaged over a 2 s round,
// varies about half as much as that of two whole 2 s measurements one
// after the other; much shorter turns would be mostly their edges, where
// the last requests of one side overlap the first of the other.
const abDefaultSlice = 100 * time.Millisecond

// slicing is the experiment's turns: their length and how many pairs a
// round has, or none. Turns need a measurement by time (-d) and a closed
// or open loop without a ramp; without them, or with --duet, the default
// measures each side whole, and an explicit --slice is refused.
func (f *abFlags) slicing(fs interface{ Changed(string) bool }, lvl harness.LevelConfig) (time.Duration, int, error) {
	if f.slice == 0 {
		return 0, 0, nil
	}
	why := ""
	switch m := lvl.Model.(type) {
	case harness.ClosedLoop:
		if m.RampUp > 0 {
			why = "a ramp-up"
		}
	case harness.OpenLoop:
		if m.RampUp > 0 {
			why = "a ramp-up"
		}
	default:
		why = "scenario users"
	}
	switch {
	case f.duet:
		why = "--duet (both sides at once)"
	case lvl.Duration == 0:
		why = "-n (turns are measured by time: give -d)"
	case why == "" && lvl.Duration < f.slice:
		return 0, 0, usagef("--slice %s is longer than -d %s: each side needs a turn at least", f.slice, lvl.Duration)
	}
	if why != "" {
		if fs.Changed("slice") {
			return 0, 0, usagef("--slice with %s: give --slice 0", why)
		}
		return 0, 0, nil
	}
	return f.slice, int(lvl.Duration / f.slice), nil
}

// slicedLevel is lvl loaded only in s's turns: the closed loop's workers
// (the open loop's rate) in a step up at each turn's start and down at its
// end, and the series in buckets of one turn.
func slicedLevel(lvl harness.LevelConfig, s *ab.Slices) (harness.LevelConfig, error) {
	steps := func(level float64) harness.Stages {
		var st harness.Stages
		prev := 0.0
		for _, on := range s.On {
			v := 0.0
			if on {
				v = level
			}
			if v != prev {
				st = append(st, harness.LoadStage{Target: v}) // a step
			}
			if n := len(st); n > 0 && st[n-1].Duration > 0 && st[n-1].Target == v {
				st[n-1].Duration += s.Length
			} else {
				st = append(st, harness.LoadStage{Duration: s.Length, Target: v})
			}
			prev = v
		}
		return st
	}
	switch m := lvl.Model.(type) {
	case harness.ClosedLoop:
		lvl.Model = harness.ClosedStages{Stages: steps(float64(m.Concurrency)), MaxRate: m.MaxRate}
	case harness.OpenLoop:
		lvl.Model = harness.RateStages{Stages: steps(m.Rate), MaxInFlight: m.MaxInFlight}
	default:
		return lvl, fmt.Errorf("turns need a closed or open loop, not %T", m)
	}
	lvl.Duration, lvl.Total, lvl.Interval = 0, 0, s.Length
	return lvl, nil
}

// startLine is an Output that holds the measured window's opening until
// the other side's opens too (ab.Slices.Start). It blocks the run that
// calls it, against the Output rule, on purpose and only there: before
// the clock starts, for as long as the other side's set-up takes.
type startLine struct {
	harness.NopOutput
	start func()
}

func (o startLine) Event(e harness.Event) {
	if e.Kind == harness.EventMeasureStart {
		o.start()
	}
}
