package workload_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/target"
)

// TestScenarioOnEventLoops: with loops asked for, scenario users run as
// tasks of the event loops on Linux: every session still initializes
// (with its notification), thinks, sends its parallel block at once and
// ends with a DELETE, all on the loops' connections, with no error.
func TestScenarioOnEventLoops(t *testing.T) {
	o := observe(t, target.Config{ServiceTime: 5 * time.Millisecond})
	c := o.dial(t, 8)
	wl := build(t, c, `
scenarios:
  - name: fan
    steps:
      - name: seed
        call: {tool: echo, args: {message: seeded}}
      - think: 20ms
      - parallel:
          - name: carried
            call: {tool: echo, from: {message: seed.structuredContent.message}}
          - name: plain
            call: {tool: echo, args: {message: plain}}
          - ping
`, nil, false)
	o.mu.Lock()
	init0, del0 := o.initialized, o.deleted // the client's own probes
	o.mu.Unlock()
	t0 := time.Now()
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 4}, Total: 12, Loops: 2}, wl)
	took := time.Since(t0)
	if err != nil || p.Errors != 0 || p.Sessions.Completed != 12 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	want := bench.DriverGoroutines
	if runtime.GOOS == "linux" {
		want = bench.DriverLoops
	}
	if p.Client.Driver != want {
		t.Fatalf("driver %q, want %q", p.Client.Driver, want)
	}
	// Twelve sessions of 4 users, each thinking 20ms: at least 3 rounds.
	if took < 60*time.Millisecond {
		t.Fatalf("12 sessions with a 20ms think on 4 users took %v: the think was not waited", took)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.peak != 3 || o.initialized-init0 != 12 || o.deleted-del0 != 12 {
		t.Fatalf("peak %d in flight (want 3), %d initialized, %d DELETEs (want 12 each)", o.peak, o.initialized-init0, o.deleted-del0)
	}
	if n := step(t, p, "carried").Requests; n != 12 {
		t.Fatalf("%d carried calls, want 12", n)
	}
}

// TestScenarioOwnConnectionsOnLoops: sessions on connections of their own
// run on the loops too, each dialling its own there, with no error.
func TestScenarioOwnConnectionsOnLoops(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 1)
	wl := build(t, c, `scenarios: [{name: s, steps: [ping, {think: 5ms}, ping]}]`, nil, true)
	before := c.Dials()
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 3}, Total: 12, Loops: 2}, wl)
	if err != nil || p.Sessions.Completed != 12 || p.Errors != 0 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	if runtime.GOOS == "linux" && p.Client.Driver != bench.DriverLoops {
		t.Fatalf("driver %q, want the loops", p.Client.Driver)
	}
	if d := c.Dials() - before; d < 12 {
		t.Fatalf("%d dials for 12 sessions on connections of their own", d)
	}
}

// TestScenarioThinksHeldAsState: on the loops a thinking user is state,
// not a task (bench.SteppedUser): while 40 sessions think, no goroutine
// holds a user waiting in a think (each user was a coroutine suspended
// there, all 40 of them); the steps around the thinks,
// in repeats, still run in order with the result kept before them, and
// the think time is counted.
func TestScenarioThinksHeldAsState(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("event loops run on Linux only")
	}
	o := observe(t, target.Config{})
	c := o.dial(t, 40)
	wl := build(t, c, `
scenarios:
  - name: s
    steps:
      - name: seed
        call: {tool: echo, args: {message: seeded}}
      - repeat:
          times: 2
          steps: [ping, {think: 150ms}]
      - name: carried
        call: {tool: echo, from: {message: seed.structuredContent.message}}
`, nil, false)
	most := 0
	stop := make(chan struct{})
	probed := make(chan struct{})
	go func() { // the most goroutines seen while the users think
		defer close(probed)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				most = max(most, usersOnStacks())
			}
		}
	}()
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 40}, Total: 40, Loops: 1}, wl)
	close(stop)
	<-probed
	if err != nil || p.Errors != 0 || p.Sessions.Completed != 40 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	if most > 0 {
		t.Fatalf("%d goroutines held a user while 40 users thought", most)
	}
	if n := step(t, p, "ping").Requests; n != 80 {
		t.Fatalf("%d pings, want 80", n)
	}
	if m := p.Sessions.MeanThinkMS; m < 300 || m > 1500 {
		t.Fatalf("%.1f ms of think per session, want 300 or a little more", m)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	carried := 0
	for _, cl := range o.calls {
		if cl.args["message"] == "seeded" {
			carried++
		}
	}
	if carried != 80 { // seed and carried, in each of 40 sessions
		t.Fatalf("%d calls carried the seeded message, want 80", carried)
	}
}

// TestScenarioInterruptedThink: a run interrupted while its users think
// (10 s each) ends at once, and every session it opened is closed with a
// DELETE.
func TestScenarioInterruptedThink(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 8)
	wl := build(t, c, `scenarios: [{name: s, steps: [ping, {think: 10s}, ping]}]`, nil, false)
	o.mu.Lock()
	init0, del0 := o.initialized, o.deleted
	o.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := bench.Run(ctx, bench.Config{Model: bench.ScenarioUsers{Users: 8}, Duration: 5 * time.Second, Loops: 1}, wl)
	took := time.Since(t0)
	o.mu.Lock()
	defer o.mu.Unlock()
	opened, deleted := o.initialized-init0, o.deleted-del0
	if took > 3*time.Second || opened != 8 || deleted != opened {
		t.Fatalf("took %v (%v); %d sessions opened, %d deleted", took, err, opened, deleted)
	}
}

// TestScenarioRampHoldsNoTask: users still to join a ramp are calls the
// loop makes at their time, not tasks asleep until it (40 of them were):
// a third of the way through, no goroutine waits to join, and every
// user has joined and run its sessions by the end.
func TestScenarioRampHoldsNoTask(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("event loops run on Linux only")
	}
	o := observe(t, target.Config{})
	c := o.dial(t, 40)
	wl := build(t, c, `scenarios: [{name: s, steps: [ping, {think: 50ms}]}]`, nil, false)
	var waiting atomic.Int64
	waiting.Store(-1)
	probe := time.AfterFunc(200*time.Millisecond, func() { waiting.Store(int64(onStacks("bench.(*runner).closedEach", "SleepUntil"))) })
	defer probe.Stop()
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 40, RampUp: 600 * time.Millisecond}, Duration: 100 * time.Millisecond, Loops: 1}, wl)
	if err != nil || p.Errors != 0 {
		t.Fatalf("%v %v", p.ErrorExamples, err)
	}
	o.mu.Lock()
	opened := o.initialized
	o.mu.Unlock()
	if w := waiting.Load(); w != 0 || opened < 40 {
		t.Fatalf("%d goroutines waited to join a third of the way through the ramp; %d sessions opened for 40 users", w, opened)
	}
}

// usersOnStacks counts the goroutines that hold a scenario user
// through a think: a user's code and the think's wait on one stack.
func usersOnStacks() int { return onStacks("workload.(*scenarioUser)", "bench.(*Recorder).Think") }

// onStacks counts the goroutines with both a and b on their stacks.
func onStacks(a, b string) int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, a) && strings.Contains(g, b) {
			n++
		}
	}
	return n
}
