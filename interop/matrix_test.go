package interop

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/target"
)

// The differential matrix (docs/interop.md, "Differential matrix"): every
// server wrapped so that it counts what it received, every workload on
// every engine, and in each cell the server's counts equal to the report's
// exactly, with no error. Set MCPBENCH_INTEROP_OUT to write the table.

// cell is one server × workload × engine, and what came of it.
type cell struct {
	server    server
	load      load
	engine    engine
	skip      string
	got, want counts
	driver    string // the driver the report names
	failed    bool
}

// servers starts every server of the matrix; server-everything only where
// it is installed.
func servers(t *testing.T) []server {
	out := []server{
		bundled(t, "Streamable HTTP, stateful (SSE answers)", target.Config{}),
		bundled(t, "Streamable HTTP, stateless (SSE answers)", target.Config{Stateless: true}),
		bundled(t, "Streamable HTTP, stateless, JSON answers", target.Config{Stateless: true, JSONResponse: true}),
		goSDK(t, false), goSDK(t, true),
		mcpGo(t, false), mcpGo(t, true), mcpGoSSE(t),
	}
	if entry := everythingEntry(t); entry != "" {
		out = append(out, everythingHTTP(t, entry), everythingStdio(t, entry))
	}
	return out
}

func TestDifferentialMatrix(t *testing.T) {
	var all [][]*cell
	for _, s := range servers(t) {
		var row []*cell
		for _, l := range loads {
			for _, e := range engines {
				row = append(row, &cell{server: s, load: l, engine: e, skip: skipReason(s, l, e)})
			}
		}
		all = append(all, row)
	}
	t.Run("servers", func(t *testing.T) {
		for _, row := range all {
			s := row[0].server
			t.Run(s.impl+"/"+s.transport, func(t *testing.T) {
				t.Parallel() // servers side by side, each one's cells in turn
				for _, c := range row {
					if c.skip == "" {
						t.Run(c.load.name+"/"+c.engine.name, func(t *testing.T) { runCell(t, c) })
					}
				}
			})
		}
	})
	if out := os.Getenv("MCPBENCH_INTEROP_OUT"); out != "" && !t.Failed() {
		writeMatrix(t, out, all)
	}
}

// skipReason says why a cell cannot apply, or "".
func skipReason(s server, l load, e engine) string {
	if why := l.skip(s); why != "" {
		return why
	}
	if !s.streamable && e.name != "goroutines" {
		return "one engine: " + strings.SplitN(s.transport, " ", 2)[0] + " has its own"
	}
	return ""
}

// snapshotAt is an output that takes the server's counts when the set-up
// is over: what the cell's load sent is what the server received after.
type snapshotAt struct {
	count func() counts
	at    counts
}

func (s *snapshotAt) Start(harness.Meta) error       { return nil }
func (s *snapshotAt) Interval(harness.PointInterval) {}
func (s *snapshotAt) Stop(harness.Final)             {}
func (s *snapshotAt) Event(e harness.Event) {
	if e.Kind == harness.EventPhase && e.Phase == harness.PhaseDone {
		s.at = s.count()
	}
}

func runCell(t *testing.T, c *cell) {
	c.failed = true
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	snap := &snapshotAt{count: c.server.count}
	setup := harness.Setup{Options: c.server.opts, Outputs: []harness.Output{snap}}
	setup.Options.Engine, setup.Options.PoolSize, setup.Options.Timeout = c.engine.engine, 2*workers, timeout/2
	if !c.server.streamable {
		setup.Options.Engine = ""
	}
	load := harness.LevelConfig{Model: harness.ClosedLoop{Concurrency: workers}, Total: requests, Loops: c.engine.loops}
	c.load.set(t, c.server, &setup, &load)
	r, err := harness.Run(ctx, harness.RunConfig{Setup: setup, Level: load})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	c.got, c.want = c.server.count().minus(snap.at), expected(r, c.server, setup.Options)
	c.driver = r.Client.Driver
	switch {
	case r.Sessions == nil && r.Requests != load.Total:
		t.Errorf("%d requests measured, want %d", r.Requests, load.Total)
	case r.Sessions != nil && r.Sessions.Completed != load.Total:
		t.Errorf("%d sessions completed, want %d", r.Sessions.Completed, load.Total)
	}
	if r.Errors != 0 || r.Interrupted {
		t.Errorf("%d errors %v %v (interrupted %v)", r.Errors, r.ErrorsByKind, r.ErrorExamples, r.Interrupted)
	}
	if !equal(c.got, c.want) {
		t.Errorf("%s, %s, %s (%s): the server received %v; the report counts %v\nreport: requests %d, ops %s, sessions %s, counters %v, client %s",
			c.server.impl+" "+c.server.transport, c.load.name, c.engine.name, fmt.Sprintf(c.load.flags, load.Total), c.got, c.want, r.Requests, opsString(r), sessionsString(r), r.Counters, c.driver)
	}
	c.failed = t.Failed()
}

// expected is what the report says the server received after the
// set-up: each operation's requests (each page of a listing is one), and
// the sessions' traffic the contract gives them. A scenario's initialize
// and DELETE are steps of the report; a plain run opens a session per
// worker (per-worker, the report's concurrency) or per request
// (per-request), each initialize followed by notifications/initialized,
// each ended by a DELETE on stateful Streamable HTTP unless abandoned
// (counters.sessions_abandoned), or by closing its GET stream on HTTP+SSE.
// Stdio's sessions are its processes', opened in the set-up; with
// 2026-07-28 there are none (the report's session "stateless").
func expected(r *results.RunReport, s server, o mcp.Options) counts {
	want := counts{}
	if len(r.ByOperation) == 0 && len(r.Workload.Operations) == 1 {
		want[r.Workload.Operations[0].Method] += r.Requests
	}
	for _, op := range r.ByOperation {
		want[op.Method] += op.Requests
	}
	var opened int64
	switch {
	case r.Sessions != nil || r.Workload.Session == "stateless" || o.Transport == "stdio":
	case r.Workload.Session == string(mcp.SessionPerRequest):
		opened = r.Requests
	default:
		opened = int64(r.Concurrency)
	}
	want["initialize"] += opened
	want["notifications/initialized"] += want["initialize"]
	switch {
	case s.legacy:
		want["GET"] += opened
	case s.sessions:
		want["DELETE"] += opened - r.Counters["sessions_abandoned"]*boolInt(r.Sessions == nil)
		if o.Listen {
			want["GET"] += opened
		}
	}
	for k, v := range want {
		if v == 0 {
			delete(want, k)
		}
	}
	return want
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func opsString(r *results.RunReport) string {
	var b strings.Builder
	for _, op := range r.ByOperation {
		fmt.Fprintf(&b, "[%s %s %s %d] ", op.Scenario, op.Step, op.Method, op.Requests)
	}
	return b.String()
}

func sessionsString(r *results.RunReport) string {
	if r.Sessions == nil {
		return "none"
	}
	s := r.Sessions
	return fmt.Sprintf("started %d completed %d failed %d abandoned %d", s.Started, s.Completed, s.Failed, s.Abandoned)
}

func equal(a, b counts) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// String lists counts by key, in order.
func (c counts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}
