package harness

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// startModelled serves the bundled server with a modelled capacity and
// returns it with a tools/list setup whose pool holds pool connections.
func startModelled(t *testing.T, cfg target.Config, pool int) (*target.Running, Setup) {
	t.Helper()
	cfg.Tools = 2
	srv, err := target.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	s := Setup{Options: mcp.Options{URL: srv.MCPURL(), PoolSize: pool, Timeout: 10 * time.Second}, Version: "test"}
	s.Load = Requests(workload.Spec{Method: "tools/list"})
	return srv, s
}

// checkSums holds a staged point's stage summaries and series to its
// totals: one summary per stage, and both add up to the point's answers.
func checkSums(t *testing.T, p *measure.Point, stages int) {
	t.Helper()
	if len(p.Stages) != stages {
		t.Fatalf("%d stage summaries for %d stages", len(p.Stages), stages)
	}
	var series, staged, errs int64
	for i := range p.Series.Len() {
		series += p.Series.Requests(i)
	}
	for _, st := range p.Stages {
		staged, errs = staged+st.Requests, errs+st.Errors
	}
	if series != p.Requests || staged != p.Requests || errs != p.Errors {
		t.Errorf("series sum %d, stage sum %d (%d errors); the point has %d (%d errors)", series, staged, errs, p.Requests, p.Errors)
	}
}

func mustStages(t *testing.T, s string) bench.Stages {
	t.Helper()
	st, err := ParseStages(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// runStaged runs a staged level, checks its sums and logs its stages.
func runStaged(t *testing.T, setup Setup, load bench.Config) *measure.Point {
	t.Helper()
	r, err := Run(context.Background(), RunConfig{Setup: setup, Level: load})
	if err != nil {
		t.Fatal(err)
	}
	p := &r.Point
	checkSums(t, p, len(load.Shape()))
	for k, st := range p.Stages {
		t.Logf("stage %d: %g-%g s target %g: %d requests, %.1f/s, p99 %.1f ms", k+1, st.FromS, st.ToS, st.Target, st.Requests, st.RPS, st.P99MS)
	}
	return p
}

// held says whether stage k holds its target (the one before ends there).
func held(p *measure.Point, k int) bool {
	return k > 0 && p.Stages[k-1].Target == p.Stages[k].Target && p.Stages[k].ToS > p.Stages[k].FromS
}

// TestClosedStagesFollowTheServersCapacity: a stage that holds N workers
// makes as many requests a second as a plain run of N workers against the
// same server, measured just after it: within 10%. The server's 20 ms
// sleeps take longer than 20 ms on a busy machine (22.3 ms on one), so the
// rate is compared with a run, not with a model of the server. A low
// stage may be a machine busy with other work in between, so a run off
// the mark is measured once more.
func TestClosedStagesFollowTheServersCapacity(t *testing.T) {
	t.Parallel() // bound by its server's sleeps, like the other stage tests: they run side by side
	_, setup := startModelled(t, target.Config{Capacity: 64, ServiceTime: 20 * time.Millisecond}, 32)
	stages := mustStages(t, "1s:4,2s:4,1s:12,2s:12,1s:2")
	var off []string
	for attempt := 0; attempt < 2; attempt++ {
		p := runStaged(t, setup, bench.Config{Model: bench.ClosedStages{Stages: stages}})
		if p.Concurrency != 12 {
			t.Errorf("concurrency %d, want the peak 12", p.Concurrency)
		}
		off = off[:0]
		for k, st := range p.Stages {
			if !held(p, k) {
				continue
			}
			want := plainRate(t, setup, int(st.Target), time.Duration((st.ToS-st.FromS)*float64(time.Second)))
			if math.Abs(st.RPS-want) > 0.1*want {
				off = append(off, fmt.Sprintf("stage %d held %g workers at %.1f/s, a plain run of them %.1f/s", k+1, st.Target, st.RPS, want))
			}
		}
		if len(off) == 0 {
			return
		}
		t.Logf("attempt %d: %s", attempt+1, strings.Join(off, "; "))
	}
	t.Error(strings.Join(off, "; "))
}

// plainRate is the rate of a plain closed run of n workers for d.
func plainRate(t *testing.T, setup Setup, n int, d time.Duration) float64 {
	t.Helper()
	r, err := Run(context.Background(), RunConfig{Setup: setup, Level: bench.Config{Model: bench.ClosedLoop{Concurrency: n}, Duration: d}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plain run of %d workers for %v: %.1f/s", n, d, r.Point.RPS)
	return r.Point.RPS
}

func TestRateStagesHoldTheirRates(t *testing.T) {
	t.Parallel() // bound by its server's sleeps
	_, setup := startModelled(t, target.Config{Capacity: 64, ServiceTime: 5 * time.Millisecond}, 64)
	stages := mustStages(t, "1s:100,2s:100,0s:300,2s:300")
	p := runStaged(t, setup, bench.Config{Model: bench.RateStages{Stages: stages, MaxInFlight: 64}})
	for k, st := range p.Stages {
		if held(p, k) && math.Abs(st.RPS-st.Target) > 0.1*st.Target {
			t.Errorf("stage %d at %.1f/s, want %g/s within 10%%", k+1, st.RPS, st.Target)
		}
	}
	if p.Stages[2].Requests != 0 {
		t.Errorf("a step has no time, but %d requests", p.Stages[2].Requests)
	}
}

func TestRateStagesCountAStallFromTheIntendedTime(t *testing.T) {
	t.Parallel() // bound by its server's sleeps
	const stall = 400 * time.Millisecond
	srv, setup := startModelled(t, target.Config{Capacity: 64, ServiceTime: 2 * time.Millisecond, Stall: stall, StallEvery: 1500 * time.Millisecond}, 64)
	stages := mustStages(t, "1s:100,2s:100,1s:200")
	p := runStaged(t, setup, bench.Config{Model: bench.RateStages{Stages: stages, MaxInFlight: 64}})
	start := p.Series.StartedAt
	covered := 0
	for _, w := range srv.Health().Stalls {
		at := w.Start.Sub(start).Seconds()
		for k, st := range p.Stages {
			// A stall wholly inside a stage: its requests waited for it.
			if at < st.FromS || w.End.Sub(start).Seconds() > st.ToS {
				continue
			}
			covered++
			t.Logf("stall at %.2f s in stage %d: p99 %.1f ms", at, k+1, st.P99MS)
			if st.P99MS < 0.8*float64(stall.Milliseconds()) {
				t.Errorf("stage %d had a %s stall but p99 %.1f ms", k+1, stall, st.P99MS)
			}
		}
	}
	if covered == 0 {
		t.Fatal("no stall fell inside a stage")
	}
}

// TestSpikeRecoveryIsTheQueuesDrainTime: 8 slots of 50 ms serve 160/s.
// Held at 80/s, then 240/s for 2 s, the server queues (240-160)·2 = 160
// requests, which drain at 160-80 = 80/s once the rate is back: 2 s. The
// recovery the report gives must be that within one interval.
func TestSpikeRecoveryIsTheQueuesDrainTime(t *testing.T) {
	t.Parallel() // bound by its server's sleeps
	const (
		slots   = 8
		service = 50 * time.Millisecond
		base    = 80.0
		peak    = 240.0
		spike   = 2.0 // seconds
	)
	_, setup := startModelled(t, target.Config{Capacity: slots, ServiceTime: service}, 200)
	stages := mustStages(t, "1s:80,2s:80,0s:240,2s:240,0s:80,5s:80")
	p := runStaged(t, setup, bench.Config{Model: bench.RateStages{Stages: stages, MaxInFlight: 200}})
	capacity := slots / service.Seconds()
	drain := (peak - capacity) * spike / (capacity - base)
	if len(p.Spikes) != 1 {
		t.Fatalf("spikes %+v, want one", p.Spikes)
	}
	sp := p.Spikes[0]
	t.Logf("spike after stage %d, back at stage %d (%.0f s): recovered %v in %.2f s; the queue drains in %.2f s", sp.Stage, sp.Back, sp.EndS, sp.Recovered, sp.RecoveryS, drain)
	for i := range p.Series.Len() {
		t.Logf("bucket %d: %d answers, p99 %.1f ms", i, p.Series.Requests(i), p.Series.P99MS[i])
	}
	if sp.Stage != 2 || sp.Back != 5 || sp.EndS != 5 || !sp.Recovered || math.Abs(sp.RecoveryS-drain) > p.Series.IntervalS {
		t.Errorf("spike %+v: want stages 2 to 5, ending at 5 s, recovered in %.1f s within an interval", sp, drain)
	}
}
