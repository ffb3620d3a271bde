package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// TestIdleSessionsGetStream: 500 idle sessions with their standing GET
// streams (--get-stream) against the bundled server in its own process,
// each on connections of its own: every one initialized with its stream
// open at the server at once, two connections each (its POSTs' and its
// stream's, and one more for each stream asked for again) and at most
// idleStreamBound of the generator's memory each.
// On 61ca994 the streams were read by net/http on goroutines of their own,
// off the loops: three connections a session and about 150 KB.
func TestIdleSessionsGetStream(t *testing.T) {
	const users = 500
	base := serverProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wl := idleUsers(ctx, t, mcp.Options{URL: base + "/mcp", PoolSize: users, Timeout: 10 * time.Second, Listen: true}, "60s")
	before := health(t, base)
	dials0, reopens0 := wl.Client.Dials(), wl.Client.Counters()["streams_reopened"]
	// As in TestIdleSessionsMemory, the run ends once every session is
	// idle, with its stream open at the server, and measured so: on a
	// busy machine a fixed run could end, or be measured, while sessions
	// were still opening. streams is the most streams the server held.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var streams int64
	wait := endWhenIdle(runCtx, stop, base, before, users, func(h target.Health) bool {
		streams = max(streams, h.StreamsOpen)
		return streams >= users
	})
	p, err := bench.Run(runCtx, bench.Config{Model: bench.ClosedLoop{Concurrency: users, RampUp: 500 * time.Millisecond}, Duration: 10 * time.Second, Loops: 1}, wl)
	stop()
	wait()
	if err != nil {
		t.Fatal(err)
	}
	after := health(t, base)
	s := p.Sessions
	inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
	opened := wl.Client.Dials() - dials0
	// A stream the server ended, or that could not be opened, is asked
	// for again on a connection of its own: counted, and not the cost of
	// an idle session.
	reopens := wl.Client.Counters()["streams_reopened"] - reopens0
	t.Logf("%d sessions, %d open at once, %d initialized, %d streams at once, %d dials, %d streams reopened: %.0f B per idle session (%s)",
		s.Started, s.PeakOpen, inits, streams, opened, reopens, s.MemoryPerSession, p.Client.Driver)
	if p.Errors != 0 || s.PeakOpen != users || inits != users || streams != users {
		t.Fatalf("%d errors %v; %d sessions open at once, %d initialized, %d streams, want %d", p.Errors, p.ErrorExamples, s.PeakOpen, inits, streams, users)
	}
	if opened != 2*users+reopens || reopens > users/100 {
		t.Errorf("%d connections opened for %d sessions and %d streams reopened, want 2 a session and one a reopening, and at most %d reopenings", opened, users, reopens, users/100)
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
