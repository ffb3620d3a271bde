package bench_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

// TestIdleSessionsGetStream: 500 idle sessions with their standing GET
// streams (--get-stream) against the bundled server in its own process,
// each on connections of its own: every one initialized with its stream
// open at the server at once, two connections each (its POSTs' and its
// stream's) and at most idleStreamBound of the generator's memory each.
// On 61ca994 the streams were read by net/http on goroutines of their own,
// off the loops: three connections a session and about 150 KB.
func TestIdleSessionsGetStream(t *testing.T) {
	const users = 500
	base := serverProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wl := idleUsers(ctx, t, mcp.Options{URL: base + "/mcp", PoolSize: users, Timeout: 10 * time.Second, Listen: true}, "4s")
	before := health(t, base)
	dials0 := wl.Client.Dials()
	// The most streams the server held at once, read while the sessions think.
	var streams atomic.Int64
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		for ctx.Err() == nil {
			if n := health(t, base).StreamsOpen; n > streams.Load() {
				streams.Store(n)
			}
			if streams.Load() >= users {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: users, RampUp: 500 * time.Millisecond}, Duration: 1500 * time.Millisecond, Loops: 1}, wl)
	cancel()
	<-watch
	if err != nil {
		t.Fatal(err)
	}
	after := health(t, base)
	s := p.Sessions
	inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
	opened := wl.Client.Dials() - dials0
	t.Logf("%d sessions, %d open at once, %d initialized, %d streams at once, %d dials: %.0f B per idle session (%s)",
		s.Started, s.PeakOpen, inits, streams.Load(), opened, s.MemoryPerSession, p.Client.Driver)
	if p.Errors != 0 || s.PeakOpen != users || inits != users || streams.Load() != users {
		t.Fatalf("%d errors %v; %d sessions open at once, %d initialized, %d streams, want %d", p.Errors, p.ErrorExamples, s.PeakOpen, inits, streams.Load(), users)
	}
	if opened != 2*users {
		t.Errorf("%d connections opened for %d sessions, want 2 each", opened, users)
	}
	if s.MemoryPerSession <= 0 || s.MemoryPerSession > idleStreamBound && !raceOn {
		t.Fatalf("%.0f B per idle session with its GET stream, want at most %d", s.MemoryPerSession, idleStreamBound)
	}
}

// idleStreamBound is what an idle session with its GET stream may cost:
// an idle session's bound and room for the stream (its sockets, h1 and
// evloop connections, about 1 KB) and for the noise of a figure taken
// over 500 sessions (18.7 to 24 KB without streams, here).
const idleStreamBound = idleSessionBound + 4<<10

// idleUsers is a workload of users whose sessions, each on connections of
// its own, send a ping and think for think, on a client dialled with o
// (closed when t ends).
func idleUsers(ctx context.Context, t *testing.T, o mcp.Options, think string) *workload.ScenarioWorkload {
	t.Helper()
	client, err := mcp.Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(context.Background()) })
	f, err := workload.ParseScenarios([]byte("scenarios: [{name: idle, steps: [ping, {think: "+think+"}]}]"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.BuildScenarios(ctx, client, "", workload.ScenarioSpec{File: f, NewConnectionPerSession: true})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}
