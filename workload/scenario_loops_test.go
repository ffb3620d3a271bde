package workload_test

import (
	"context"
	"runtime"
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
	p, err := bench.Run(context.Background(), bench.Config{Concurrency: 4, Total: 12, Loops: 2}, wl)
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
	p, err := bench.Run(context.Background(), bench.Config{Concurrency: 3, Total: 12, Loops: 2}, wl)
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
