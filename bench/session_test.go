package bench

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// fakeSessions is a session workload with two scenarios: "short" (two
// steps of stepDelay, a pause of think between them) and "failing" (one
// step that fails with a transport error). Every failEvery-th session is
// a failing one.
type fakeSessions struct {
	stepDelay, think time.Duration
	failEvery        int64
	sessions         atomic.Int64
}

func (*fakeSessions) Operations() []measure.Operation {
	return []measure.Operation{{Method: "a", Scenario: "short", Step: "first"}, {Method: "b", Scenario: "short", Step: "second"}, {Method: "c", Scenario: "failing", Step: "only"}}
}
func (*fakeSessions) Kinds() []string     { return []string{"ok", "timeout", "transport"} }
func (*fakeSessions) Scenarios() []string { return []string{"short", "failing"} }
func (f *fakeSessions) NewUser(context.Context, int) (User, error) {
	return &fakeUser{f: f}, nil
}

type fakeUser struct{ f *fakeSessions }

func (u *fakeUser) step(op int, kind Kind, rec *Recorder) {
	t0 := time.Now()
	time.Sleep(u.f.stepDelay)
	var err error
	if kind != OK {
		err = errors.New("planted")
	}
	rec.Step(Sample{Kind: kind, Op: op, Sent: 10, Received: 100, Err: err}, time.Since(t0))
}

func (u *fakeUser) Session(ctx context.Context, rec *Recorder) int {
	n := u.f.sessions.Add(1)
	if u.f.failEvery > 0 && n%u.f.failEvery == 0 {
		u.step(2, kindTransport, rec)
		return 1
	}
	u.step(0, OK, rec)
	if !rec.Think(u.f.think) {
		return 0
	}
	u.step(1, OK, rec)
	return 0
}

func (*fakeUser) Close(context.Context) error { return nil }

// TestClosedSessionsCountExactly: a closed loop of sessions bounded by a
// total runs exactly that many, each step counted once under its own
// operation, failures under their kind, and the session figures add up:
// duration = active + think.
func TestClosedSessionsCountExactly(t *testing.T) {
	f := &fakeSessions{stepDelay: 2 * time.Millisecond, think: 5 * time.Millisecond, failEvery: 5}
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 4}, Total: 100, Warmup: 4}, f)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sessions
	if s == nil || s.Started != 100 || s.Completed != 100 {
		t.Fatalf("sessions %+v", s)
	}
	if got := f.sessions.Load(); got != 104 {
		t.Errorf("%d sessions run, want 100 and 4 of warm-up", got)
	}
	// The warm-up's 4 sessions took every fifth: count what was measured.
	short, failing := s.ByScenario[0], s.ByScenario[1]
	if short.Completed+failing.Completed != 100 || failing.Failed != failing.Completed || short.Failed != 0 {
		t.Fatalf("by scenario %+v", s.ByScenario)
	}
	if p.Requests != 2*short.Completed+failing.Completed || p.ErrorsByKind["transport"] != failing.Completed {
		t.Fatalf("requests %d errors %v for %d short and %d failing", p.Requests, p.ErrorsByKind, short.Completed, failing.Completed)
	}
	if len(p.ByOperation) != 3 || p.ByOperation[0].Requests != short.Completed || p.ByOperation[2].Errors != failing.Completed || p.ByOperation[1].Histogram == "" {
		t.Fatalf("by step %+v", p.ByOperation)
	}
	if short.MeanSteps != 2 || short.MeanThinkMS < 5 {
		t.Errorf("short: mean steps %.2f, think %.2f ms", short.MeanSteps, short.MeanThinkMS)
	}
	// A short session is two steps and a pause; its active time leaves the
	// pause out.
	if d, a := short.Duration.MeanMS, short.Active.MeanMS; math.Abs(d-a-short.MeanThinkMS) > 0.5 || a < 4 {
		t.Errorf("short: duration %.2f ms, active %.2f ms, think %.2f ms", d, a, short.MeanThinkMS)
	}
	if s.Uncorrected != nil || s.StartLagMS != nil || p.Rate != nil {
		t.Error("a closed loop carries open-loop figures")
	}
	if p.Concurrency != 4 || s.PerSecond <= 0 {
		t.Errorf("concurrency %d, %.1f sessions/s", p.Concurrency, s.PerSecond)
	}
}

// TestOpenSessionsStartOnSchedule: an open loop of sessions starts the
// sessions due in the window on their schedule, with the lag reported,
// and a session that waits for a free user carries the wait.
func TestOpenSessionsStartOnSchedule(t *testing.T) {
	f := &fakeSessions{stepDelay: time.Millisecond, think: 2 * time.Millisecond}
	p, err := Run(context.Background(), Config{Model: OpenLoop{Rate: 100}, Duration: time.Second}, f)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sessions
	if s.Started != 100 || s.Completed != 100 || s.Unstarted != 0 {
		t.Fatalf("started %d completed %d unstarted %d, want 100", s.Started, s.Completed, s.Unstarted)
	}
	if s.StartLagMS == nil || s.Uncorrected == nil || p.Rate == nil || *p.Rate != 100 || p.Concurrency != 1000 {
		t.Fatalf("open figures missing: %+v rate %v users %d", s, p.Rate, p.Concurrency)
	}
	t.Logf("start lag p99 %.2f ms; duration p50 %.2f ms", s.StartLagMS.P99, s.Duration.P50MS)

	// One user for sessions due every 5 ms that last about 5 ms: the
	// later ones wait, and the corrected duration shows it.
	f = &fakeSessions{stepDelay: 2 * time.Millisecond, think: 2 * time.Millisecond}
	p, err = Run(context.Background(), Config{Model: OpenLoop{Rate: 200, MaxInFlight: 1}, Total: 50}, f)
	if err != nil {
		t.Fatal(err)
	}
	s = p.Sessions
	if s.Started != 50 || s.Duration.MaxMS < 2*s.Uncorrected.MaxMS {
		t.Fatalf("started %d: corrected max %.1f ms, uncorrected max %.1f ms", s.Started, s.Duration.MaxMS, s.Uncorrected.MaxMS)
	}
}

// TestSessionInterruptStopsThink: an interrupt ends the pause a session is
// in, and the cut session is not counted as completed.
func TestSessionInterruptStopsThink(t *testing.T) {
	f := &fakeSessions{stepDelay: time.Millisecond, think: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	p, err := Run(ctx, Config{Model: ClosedLoop{Concurrency: 2}, Duration: time.Minute}, f)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) > 5*time.Second || !p.Interrupted || p.Sessions.Completed != 0 || p.Sessions.Started != 2 {
		t.Fatalf("after %v: interrupted %v, sessions %+v", time.Since(t0), p.Interrupted, p.Sessions)
	}
}
