package workload_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// agentScenario is the session the load tests run: initialize, a listing,
// three calls with 50 ms to think after each, two calls at once, DELETE.
const agentScenario = `
scenarios:
  - name: agent
    steps:
      - name: list
        list: {}
      - name: first
        call: {tool: echo, args: {message: one}}
      - think: 50ms
      - name: second
        call: {tool: echo, args: {message: two}}
      - think: 50ms
      - name: third
        call: {tool: echo, args: {message: three}}
      - think: 50ms
      - parallel:
          - name: left
            call: {tool: echo, args: {message: left}}
          - name: right
            call: {tool: echo, args: {message: right}}
`

// serviceTime is what each tools/list and tools/call costs the server.
const serviceTime = 10 * time.Millisecond

// The two runs of the load checks (10 s each: hundreds of sessions,
// enough for every bound below; they were 20 s) run side by side, each on a
// server of its own, so the pair takes about 11 s of wall time.
const loadFor = 10 * time.Second

// TestScenarioClosedUsers: 8 users for loadFor. The server's own per-method
// counts equal the per-step counts; each serviced step's median is the
// service time within 2 ms; sessions complete at users / mean session
// duration within 5%.
func TestScenarioClosedUsers(t *testing.T) {
	t.Parallel()
	o := observe(t, target.Config{Capacity: 64, ServiceTime: serviceTime})
	c := o.dial(t, 16)
	wl := build(t, c, agentScenario, nil, false)
	// What a plain request takes on this machine now: the server sleeps
	// serviceTime, and the rest is the machine's (make test's timed lane
	// shares it with the untimed one). The steps are held to this, not to
	// the sleep alone.
	plain, err := workload.Build(context.Background(), c, workload.Spec{Method: "tools/list"})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := bench.Run(context.Background(), bench.Config{Model: bench.ClosedLoop{Concurrency: 8}, Duration: time.Second}, plain)
	if err != nil {
		t.Fatal(err)
	}
	before := o.srv.Health().RequestsByMethod
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 8}, Duration: loadFor}, wl)
	if err != nil {
		t.Fatal(err)
	}
	after := o.srv.Health().RequestsByMethod
	s := p.Sessions
	t.Logf("%d sessions in %.2f s: %.2f/s, duration mean %.2f ms (p50 %.2f), active mean %.2f ms, think %.1f ms; %d errors %v",
		s.Completed, p.ElapsedS, s.PerSecond, s.Duration.MeanMS, s.Duration.P50MS, s.Active.MeanMS, s.MeanThinkMS, p.Errors, p.ErrorExamples)
	if p.Errors != 0 || s.Failed != 0 || s.Completed != s.Started || s.Completed == 0 {
		t.Fatalf("errors %v, sessions %+v", p.ErrorExamples, s)
	}
	byMethod := map[string]int64{}
	for _, op := range p.ByOperation {
		byMethod[op.Method] += op.Requests
		if op.Requests != s.Completed {
			t.Errorf("step %s: %d requests for %d sessions", op.Step, op.Requests, s.Completed)
		}
	}
	for _, m := range []string{"initialize", "tools/list", "tools/call"} {
		if got := after[m] - before[m]; got != byMethod[m] {
			t.Errorf("%s: the server counted %d, the steps %d", m, got, byMethod[m])
		}
	}
	for _, name := range []string{"list", "first", "second", "third", "left", "right"} {
		st := step(t, p, name)
		t.Logf("step %-6s %d requests, p50 %.2f ms, p99 %.2f ms; a plain request's p50 %.2f ms", name, st.Requests, st.P50MS, st.P99MS, ref.P50MS)
		switch {
		case math.Abs(st.P50MS-ref.P50MS) <= 2:
		case p.Client.Saturated:
			// A machine too busy to run the generator on time says so
			// in the point: its latencies are then its own, not the
			// server's.
			t.Logf("step %s: p50 %.2f ms, not held to %.2f ± 2: %s", name, st.P50MS, ref.P50MS, p.Client.SaturationReason)
		default:
			t.Errorf("step %s: p50 %.2f ms, want a plain request's %.2f ± 2 (the server sleeps %v)", name, st.P50MS, ref.P50MS, serviceTime)
		}
	}
	want := 8 / (s.Duration.MeanMS / 1000)
	if math.Abs(s.PerSecond-want) > 0.05*want {
		t.Errorf("%.2f sessions/s, want %.2f (8 users / %.1f ms) ± 5%%", s.PerSecond, want, s.Duration.MeanMS)
	}
}

// TestScenarioSessionRate: 20 new sessions a second for loadFor start all
// of them (200) on schedule, with the lag reported, and the server has both calls of the
// parallel block of a session in hand at once.
func TestScenarioSessionRate(t *testing.T) {
	t.Parallel()
	o := observe(t, target.Config{Capacity: 64, ServiceTime: serviceTime})
	c := o.dial(t, 32)
	wl := build(t, c, agentScenario, nil, false)
	const rate = 20
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.OpenLoop{Rate: rate}, Duration: loadFor}, wl)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sessions
	if s.StartLagMS == nil || s.Uncorrected == nil {
		t.Fatalf("no start lag reported: %+v", s)
	}
	t.Logf("%d sessions started, %d completed, %d unstarted; start lag p99 %.2f ms, max %.2f ms; duration p50 %.2f ms (from the actual start %.2f ms)",
		s.Started, s.Completed, s.Unstarted, s.StartLagMS.P99, s.StartLagMS.Max, s.Duration.P50MS, s.Uncorrected.P50MS)
	if want := int64(rate * loadFor.Seconds()); s.Started != want || s.Completed != want || s.Unstarted != 0 || p.Errors != 0 {
		t.Fatalf("started %d, completed %d, unstarted %d, errors %v", s.Started, s.Completed, s.Unstarted, p.ErrorExamples)
	}
	// On schedule: no session started a whole interval (50 ms) late, or
	// else the report says the generator was to blame (a busy machine
	// wakes its timers late).
	if s.StartLagMS.P99 > 50 && !p.Client.Saturated {
		t.Errorf("sessions started late (lag p99 %.2f ms) and the point does not say the generator was saturated", s.StartLagMS.P99)
	}
	if p.Client.Saturated {
		t.Logf("saturated: %s", p.Client.SaturationReason)
	}
	o.mu.Lock()
	peak, what := o.peak, o.peakWhat
	o.mu.Unlock()
	if h := o.srv.Health(); peak != 2 || h.PeakInFlight < 2 {
		t.Errorf("one session had %d requests at the server at once (%q; want the parallel block's 2); server peak in flight %d", peak, what, h.PeakInFlight)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
