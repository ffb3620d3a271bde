package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/toolschema"
	"github.com/mcpbench/mcpbench/workload"
)

// The fault matrix: for every fault the reference server can inject, 2,000
// tools/call requests at a 5% fault rate. The client must count exactly the
// faults the server says it injected, each in its error kind, and nothing
// else; and after each cell no goroutine and no file descriptor may be left.
// Set MCPBENCH_FAULTS_OUT to write the table as Markdown (make faults-doc).

const (
	faultRequests = 2000
	faultRate     = 0.05
	faultWorkers  = 8
	// slowWorkers serve the cells whose faults each hold a worker ~400 ms
	// (hang, slow-body): 100 of them keep 8 workers 5 s, 32 about 1.3 s.
	// The other cells keep 8: more workers only add connections to wind
	// down before the leak checks.
	slowWorkers = 32
	// hangTimeout is the per-request timeout of the hang cell: a hung
	// request ends as a timeout this soon. Other cells allow slow answers.
	hangTimeout = 400 * time.Millisecond
	// slowFloor is below the least time a slow-body answer takes (16
	// pieces, 25 ms apart, so 375 ms).
	slowFloor = 300 * time.Millisecond
)

type faultCell struct {
	kind string
	want mcp.Kind // the error kind each injection must land in; OK for slow-body
	slow bool     // each fault holds a worker ~400 ms: run slowWorkers
	// why the kind is what the client sees, for the doc.
	why string
}

var faultCells = []faultCell{
	{target.FaultHTTP500, mcp.KindHTTPStatus, false, "a 500 with a plain-text body"},
	{target.FaultReset, mcp.KindTransport, false, "the connection was made and the request sent, then reset (RST) before any answer: a broken transport, not a failure to connect"},
	{target.FaultHang, mcp.KindTimeout, true, fmt.Sprintf("no answer; the client gives up after --timeout (%s here)", hangTimeout)},
	{target.FaultMalformedJSON, mcp.KindTransport, false, "an application/json body that does not parse"},
	{target.FaultTruncatedSSE, mcp.KindTransport, false, "an SSE stream cut off inside its only event"},
	{target.FaultSessionExpired, mcp.KindSessionExpired, false, "404 to a request with a session id; the worker opens a new session and goes on"},
	{target.FaultSlowBody, mcp.OK, true, "a valid answer trickled out over at least 375 ms: not an error, only slow"},
	{target.FaultOversized, mcp.KindTransport, false, "a 32 MiB answer against --max-response-bytes 1 MiB; the connection is dropped, not drained"},
	{target.FaultJSONRPCError, mcp.KindJSONRPC, false, "a JSON-RPC error object"},
	{target.FaultToolError, mcp.KindToolError, false, "a result with isError: true"},
	{target.FaultBadStructuredContent, mcp.KindSchemaViolation, false, "structuredContent that breaks the tool's outputSchema (validation on)"},
}

type faultRow struct {
	cell      faultCell
	injected  int64
	counted   int64
	point     measure.Point
	leakCheck string
}

func TestFaultMatrix(t *testing.T) {
	if got, want := len(faultCells), len(target.FaultKinds()); got != want {
		t.Fatalf("the matrix has %d cells for %d fault kinds: add the new kind", got, want)
	}
	warmNetpoll(t)
	wl := toolWorkload(t)
	var rows []faultRow
	for i, c := range faultCells {
		t.Run(c.kind, func(t *testing.T) {
			rows = append(rows, runFaultCell(t, c, wl, uint64(i+1)))
		})
	}
	if out := os.Getenv("MCPBENCH_FAULTS_OUT"); out != "" && !t.Failed() {
		writeFaultTable(t, out, rows)
	}
}

// warmNetpoll makes the runtime open its poller descriptors before the
// first count, so they are not mistaken for a leak.
func warmNetpoll(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// toolWorkload reads tool_000 from a fault-free server (a faulted
// tools/list would spoil the counts): 8 generated argument sets and its
// outputSchema validator.
func toolWorkload(t *testing.T) workload.Workload {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, err := target.Start(ctx, target.Config{Tools: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, err := c.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	tools, _, err := c.ListTools(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range tools {
		var def struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &def); err != nil {
			t.Fatal(err)
		}
		if def.Name != "tool_000" {
			continue
		}
		gen, err := toolschema.NewGenerator(def.Name, def.InputSchema, 1)
		if err != nil {
			t.Fatal(err)
		}
		args, err := gen.Distinct(8)
		if err != nil {
			t.Fatal(err)
		}
		ov, err := toolschema.CompileOutputSchema(def.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		return workload.Workload{
			Ops: []workload.Op{{Request: mcp.Request{Method: "tools/call", Tool: def.Name}, ArgSets: args}},
			Validate: func(_ string, structured json.RawMessage) error {
				if v := ov.Validate(structured); v != nil {
					return v
				}
				return nil
			},
		}
	}
	t.Fatal("the server has no tool_000")
	return workload.Workload{}
}

func runFaultCell(t *testing.T, c faultCell, proto workload.Workload, seed uint64) faultRow {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fdsBefore := openFDs(t)
	leaks := goleak.IgnoreCurrent()

	srv, err := target.Start(ctx, target.Config{
		Tools: 1, ServiceTime: 200 * time.Microsecond,
		Fault: c.kind, FaultRate: faultRate, Seed: seed,
		// The default 32 MiB: the client must stop at its own limit.
		OversizedBytes: target.DefaultOversizedBytes,
	})
	if err != nil {
		t.Fatal(err)
	}
	timeout := 10 * time.Second
	if c.kind == target.FaultHang {
		timeout = hangTimeout
	}
	workers := faultWorkers
	if c.slow {
		workers = slowWorkers
	}
	client, err := mcp.Dial(ctx, mcp.Options{
		URL: srv.MCPURL(), PoolSize: workers, Timeout: timeout,
		MaxResponseBytes: 1 << 20, ProtocolVersion: mcp.Rev20251125, // stateful: sessions to expire
	})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	wl := proto
	wl.Client = client
	before := srv.Health().FaultsInjected[c.kind]
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: workers}, Total: faultRequests}, &wl)
	injected := srv.Health().FaultsInjected[c.kind] - before
	client.Close(ctx)
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}

	row := faultRow{cell: c, injected: injected, point: p}
	t.Logf("%s: injected %d, requests %d ok %d errors %v (%v), p50 %.2f ms max %.2f ms, %.1f s",
		c.kind, injected, p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples, p.P50MS, p.MaxMS, p.ElapsedS)
	if p.Requests != faultRequests {
		t.Errorf("requests %d, want %d", p.Requests, faultRequests)
	}
	// 5% of 2,000 is 100; anything near zero means the fault never fired.
	if injected < faultRequests*faultRate/4 {
		t.Errorf("the server injected only %d faults", injected)
	}
	if c.want == mcp.OK {
		row.counted = countAtLeast(p, slowFloor)
		if p.Errors != 0 {
			t.Errorf("slow answers counted as errors: %v %v", p.ErrorsByKind, p.ErrorExamples)
		}
		// Every slowed answer takes at least slowFloor; an unslowed one
		// taking that long would be rare, so allow a few.
		if row.counted < injected || row.counted > injected+faultRequests/100 {
			t.Errorf("%d answers took %s or more, %d were slowed", row.counted, slowFloor, injected)
		}
	} else {
		row.counted = p.ErrorsByKind[c.want.String()]
		if row.counted != injected || p.Errors != injected || p.OK != p.Requests-injected {
			t.Errorf("injected %d, counted %d as %s; errors %v, ok %d", injected, row.counted, c.want, p.ErrorsByKind, p.OK)
		}
	}

	// Leaks: the client and the server are closed; nothing of theirs may
	// remain. goleak retries for a while, as connections wind down.
	if err := goleak.Find(leaks); err != nil {
		t.Errorf("goroutines left after the %s cell: %v", c.kind, err)
	}
	fdsAfter := waitFDs(t, fdsBefore, 5*time.Second)
	if fdsAfter > fdsBefore {
		t.Errorf("%d file descriptors open before the %s cell, %d after", fdsBefore, c.kind, fdsAfter)
	}
	row.leakCheck = fmt.Sprintf("no goroutine left; fds %d before, %d after", fdsBefore, fdsAfter)
	return row
}

// countAtLeast is the number of answers that took d or longer.
func countAtLeast(p measure.Point, d time.Duration) int64 {
	var n int64
	for _, b := range p.Hist.Distribution() {
		if b.From >= d.Microseconds() {
			n += b.Count
		}
	}
	return n
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// waitFDs waits (up to limit) for the descriptor count to fall to want:
// closing a connection is not always finished when Close returns.
func waitFDs(t *testing.T, want int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n := openFDs(t)
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func writeFaultTable(t *testing.T, path string, rows []faultRow) {
	var b strings.Builder
	b.WriteString("# Fault matrix\n\n")
	b.WriteString("Generated by `make faults-doc` (the `TestFaultMatrix` test in `bench/`, also run by `make test`).\n")
	fmt.Fprintf(&b, "Each row ran %d `tools/call` requests of `tool_000` (8 generated argument sets, output validation\n", faultRequests)
	fmt.Fprintf(&b, "on) at concurrency %d (%d in the hang and slow-body rows, whose faults hold a worker ~400 ms)\n", faultWorkers, slowWorkers)
	b.WriteString("against the bundled server (`mcpbench serve`, stateful Streamable HTTP,\n")
	fmt.Fprintf(&b, "protocol 2025-11-25) injecting one fault kind at a %.0f%% rate (`--fault KIND --fault-rate %.2f`).\n", faultRate*100, faultRate)
	b.WriteString("The client runs with `--max-response-bytes 1MiB` and `--timeout 10s`, except in the hang row.\n\n")
	b.WriteString("*injected* is the server's own count (`/health` `faults_injected`); *counted* is what mcpbench\n")
	b.WriteString("reported in the error kind named (for slow-body: answers that took 300 ms or more, with no error).\n")
	b.WriteString("The test requires counted == injected (slow-body: counted >= injected and no error), every other\n")
	b.WriteString("request ok, and after each row no goroutine left (goleak) and no file descriptor left open.\n\n")
	b.WriteString("| fault kind | injected | counted | error kind | ok | what the client sees |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		kind := r.cell.want.String()
		if r.cell.want == mcp.OK {
			kind = "none (ok, slow)"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d/%d | %s |\n", r.cell.kind, r.injected, r.counted, kind, r.point.OK, r.point.Requests, r.cell.why)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
