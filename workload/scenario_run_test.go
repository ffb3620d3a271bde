package workload_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// observed is a bundled server behind a wrapper that sees what a session
// run sends it: each tools/call's arguments in the order they arrived, and
// the most requests of one MCP session it had in hand at once.
type observed struct {
	srv *target.Server
	url string

	mu       sync.Mutex
	calls    []call
	inFlight map[string][]string // what each session has at the server now
	peak     int                 // the most requests of one session in flight at once
	peakWhat []string            // what they were, for the failure message
	// initialized and deleted count notifications/initialized and DELETEs.
	initialized, deleted int
}

type call struct {
	session, tool string
	args          map[string]any
}

func observe(t *testing.T, cfg target.Config) *observed {
	t.Helper()
	srv, err := target.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := &observed{srv: srv, inFlight: map[string][]string{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		what := r.Method
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			what = o.note(sid, body)
		}
		if r.Method == http.MethodDelete {
			o.mu.Lock()
			o.deleted++
			o.mu.Unlock()
		}
		o.mu.Lock()
		o.inFlight[sid] = append(o.inFlight[sid], what)
		if n := len(o.inFlight[sid]); sid != "" && n > o.peak {
			o.peak, o.peakWhat = n, slices.Clone(o.inFlight[sid])
		}
		o.mu.Unlock()
		var once sync.Once
		done := func() {
			once.Do(func() {
				o.mu.Lock()
				open := o.inFlight[sid]
				i := slices.Index(open, what)
				o.inFlight[sid] = append(open[:i:i], open[i+1:]...)
				o.mu.Unlock()
			})
		}
		srv.Handler().ServeHTTP(&answerWatch{ResponseWriter: w, answered: done}, r)
		done()
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	o.url = ts.URL + "/mcp"
	return o
}

// answerWatch ends a request's time in flight as the server writes its
// answer (a JSON-RPC result or error), before the bytes can reach the
// client: an SSE answer is flushed while the handler still runs, and the
// client's next request could otherwise seem to overlap it.
type answerWatch struct {
	http.ResponseWriter
	answered func()
}

func (w *answerWatch) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"result"`)) || bytes.Contains(p, []byte(`"error"`)) {
		w.answered()
	}
	return w.ResponseWriter.Write(p)
}

func (w *answerWatch) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *answerWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// note records a tools/call's arguments, and says what the POST carries:
// its method, and a call's tool and message.
func (o *observed) note(sid string, body []byte) string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return "POST"
	}
	if msg.Method == "notifications/initialized" {
		o.mu.Lock()
		o.initialized++
		o.mu.Unlock()
	}
	if msg.Method != "tools/call" {
		return msg.Method
	}
	o.mu.Lock()
	o.calls = append(o.calls, call{session: sid, tool: msg.Params.Name, args: msg.Params.Arguments})
	o.mu.Unlock()
	return fmt.Sprintf("tools/call %s %v", msg.Params.Name, msg.Params.Arguments["message"])
}

func (o *observed) dial(t *testing.T, pool int) *mcp.Client {
	t.Helper()
	ctx := context.Background()
	c, err := mcp.Dial(ctx, mcp.Options{URL: o.url, ProtocolVersion: mcp.Rev20251125, PoolSize: pool, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

func build(t *testing.T, c *mcp.Client, yaml string, files map[string]string, fresh bool) *workload.ScenarioWorkload {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := workload.ParseScenarios([]byte(yaml), dir)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.BuildScenarios(context.Background(), c, "", workload.ScenarioSpec{File: f, Seed: 1, NewConnectionPerSession: fresh})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

// step finds the figures of a step by name.
func step(t *testing.T, p measure.Point, name string) measure.OperationStats {
	t.Helper()
	for _, o := range p.ByOperation {
		if o.Step == name {
			return o
		}
	}
	t.Fatalf("no step %q in %+v", name, p.ByOperation)
	return measure.OperationStats{}
}

// TestScenarioCarriesRowsAndValues: one user, sessions of three calls. The
// first takes the data file's rows in order (the server receives them in
// order), the second carries a value from the first's result, the third
// fails its expect, counted as expect_failed; a tool error expected is no
// error; every session opens with initialize and ends with a DELETE.
func TestScenarioCarriesRowsAndValues(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 1)
	wl := build(t, c, `
scenarios:
  - name: carry
    steps:
      - name: read
        call: {tool: echo, data: {file: rows.jsonl}}
      - name: carried
        call: {tool: echo, args: {message: unset}, from: {message: read.structuredContent.message}}
      - name: checked
        call: {tool: echo, args: {message: x}}
        expect: {equals: {structuredContent.message: y}}
      - name: refused
        call: {tool: fail}
        expect: {is_error: true}
`, map[string]string{"rows.jsonl": "{\"message\":\"row-0\"}\n{\"message\":\"row-1\"}\n{\"message\":\"row-2\"}\n"}, false)
	before := o.srv.Health().RequestsByMethod
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 1}, Total: 5}, wl)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sessions.Completed != 5 || p.Sessions.Failed != 5 {
		t.Fatalf("sessions %+v", p.Sessions)
	}
	if p.ErrorsByKind["expect_failed"] != 5 || p.Errors != 5 || step(t, p, "checked").Errors != 5 || step(t, p, "refused").Errors != 0 {
		t.Fatalf("errors %v, by step %+v", p.ErrorsByKind, p.ByOperation)
	}
	after := o.srv.Health().RequestsByMethod
	if n := after["initialize"] - before["initialize"]; n != 5 || step(t, p, "initialize").Requests != 5 || step(t, p, "close").Requests != 5 {
		t.Fatalf("%d initialize requests, steps %+v", n, p.ByOperation)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.calls) != 20 {
		t.Fatalf("%d calls", len(o.calls))
	}
	for i := 0; i < 5; i++ {
		read, carried := o.calls[4*i], o.calls[4*i+1]
		want := []string{"row-0", "row-1", "row-2"}[i%3]
		if read.args["message"] != want || carried.args["message"] != want || read.session != carried.session {
			t.Errorf("session %d: read %v, carried %v, want %s", i, read, carried, want)
		}
	}
}

// TestScenarioNewConnectionPerSession: each session dials afresh.
func TestScenarioNewConnectionPerSession(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 1)
	wl := build(t, c, `scenarios: [{name: s, steps: [ping]}]`, nil, true)
	before := c.Dials()
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 2}, Total: 10}, wl)
	if err != nil || p.Sessions.Completed != 10 || p.Errors != 0 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	if d := c.Dials() - before; d < 10 {
		t.Fatalf("%d dials for 10 sessions on connections of their own", d)
	}
}

// TestScenarioParallelBranches: a parallel block's three calls reach the
// server on their session at once, each with its own arguments (one read
// from an earlier result, one from a data row), however many users run.
func TestScenarioParallelBranches(t *testing.T) {
	o := observe(t, target.Config{ServiceTime: 20 * time.Millisecond})
	c := o.dial(t, 12)
	wl := build(t, c, `
scenarios:
  - name: fan
    steps:
      - name: seed
        call: {tool: echo, args: {message: seeded}}
      - think: {uniform: [1ms, 3ms]}
      - parallel:
          - name: carried
            call: {tool: echo, from: {message: seed.structuredContent.message}}
          - name: row
            call: {tool: echo, data: {file: rows.csv, order: random}}
          - name: plain
            call: {tool: echo, args: {message: plain}}
`, map[string]string{"rows.csv": "message\nr1\nr2\n"}, false)
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 4}, Total: 20}, wl)
	if err != nil || p.Errors != 0 || p.Sessions.Completed != 20 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.peak != 3 {
		t.Fatalf("at most %d requests of one session at the server at once, want 3", o.peak)
	}
	for _, c := range o.calls {
		if m := c.args["message"]; m != "seeded" && m != "r1" && m != "r2" && m != "plain" {
			t.Fatalf("call with %v", c.args)
		}
	}
}

// TestScenarioModernOpensWithDiscover: on 2026-07-28 a session opens with
// server/discover, timed as the step "discover", and sends no DELETE.
func TestScenarioModernOpensWithDiscover(t *testing.T) {
	srv, err := target.Start(context.Background(), target.Config{FixedResponse: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	c, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), PoolSize: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if !mcp.IsModern(c.ProtocolVersion()) {
		t.Fatalf("negotiated %s", c.ProtocolVersion())
	}
	wl := build(t, c, `scenarios: [{name: m, steps: [list, {parallel: [{call: {tool: echo, args: {message: a}}}, ping]}]}]`, nil, false)
	p, err := bench.Run(ctx, bench.Config{Model: bench.ScenarioUsers{Users: 2}, Total: 10}, wl)
	if err != nil || p.Errors != 0 {
		t.Fatalf("%v %v", p.ErrorExamples, err)
	}
	var steps []string
	for _, o := range p.ByOperation {
		steps = append(steps, o.Step)
		if o.Requests != 10 {
			t.Errorf("step %s: %d requests", o.Step, o.Requests)
		}
	}
	if got := strings.Join(steps, ","); got != "discover,tools/list,tools/call echo,ping" {
		t.Fatalf("steps %s", got)
	}
}

// TestScenarioSelectsToolsByAnnotations: a call that names no tool picks
// only the tools the selection allows (the read-only ones by default); a
// named destructive tool is consent, with a warning; an unlisted name is
// refused before any load; building calls nothing.
func TestScenarioSelectsToolsByAnnotations(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	scenario := func(yaml string, sel workload.Selection) (*workload.ScenarioWorkload, error) {
		f, err := workload.ParseScenarios([]byte(yaml), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return workload.BuildScenarios(context.Background(), c, "", workload.ScenarioSpec{File: f, Seed: 1, Cardinality: 2, Select: sel})
	}
	names := func(wl *workload.ScenarioWorkload) string {
		var out []string
		for _, info := range wl.Tools() {
			out = append(out, info.Name)
		}
		return strings.Join(out, ",")
	}
	any := `scenarios: [{name: s, steps: [{call: {gen_args: true}}]}]`
	wl, err := scenario(any, workload.Selection{})
	if err != nil || names(wl) != "read_file,read_graph" || len(wl.Warnings()) != 0 {
		t.Fatalf("default selection: %v %v", names(wl), err)
	}
	if wl, err = scenario(any, workload.Selection{AllowWrites: true, Exclude: []string{"read_*"}}); err != nil || names(wl) != "create_entity" {
		t.Fatalf("writes, no readers: %v %v", names(wl), err)
	}
	wl, err = scenario(`scenarios: [{name: s, steps: [{call: {tool: delete_entity, args: {q: x}}}]}]`, workload.Selection{})
	if err != nil || names(wl) != "delete_entity" || len(wl.Warnings()) != 1 || !wl.Tools()[0].Named {
		t.Fatalf("named destructive tool: %v %v %v", names(wl), wl.Warnings(), err)
	}
	var unknown *workload.UnknownToolError
	if _, err = scenario(`scenarios: [{name: s, steps: [{call: {tool: nope}}]}]`, workload.Selection{}); !errors.As(err, &unknown) {
		t.Fatalf("unlisted tool: %v", err)
	}
	if calls != 0 {
		t.Fatalf("building called %d tools", calls)
	}
}

// TestNamedParallelLabelsItsCalls: a parallel step named "both" labels
// its unnamed calls in the session stats ("both: tools/call echo"), not
// under the bare operation the rest of the scenario also sends; a named
// call inside keeps its own name.
func TestNamedParallelLabelsItsCalls(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 4)
	wl := build(t, c, `
scenarios:
  - name: fan
    steps:
      - call: {tool: echo, args: {message: before}}
      - name: both
        parallel:
          - call: {tool: echo, args: {message: a}}
          - ping
          - name: own
            call: {tool: echo, args: {message: b}}
`, nil, false)
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 2}, Total: 6}, wl)
	if err != nil || p.Errors != 0 {
		t.Fatalf("%v %v", p.ErrorExamples, err)
	}
	for name, want := range map[string]int64{"tools/call echo": 6, "both: tools/call echo": 6, "both: ping": 6, "own": 6} {
		if got := step(t, p, name); got.Requests != want {
			t.Errorf("step %q: %d requests, want %d", name, got.Requests, want)
		}
	}
}

// TestScenarioStepsShareADataFile: two steps (in two scenarios and a
// parallel block) that name one data file draw from one sequence, as k6's
// SharedArray is one per name: 12 calls over 4 rows send each row 3
// times, where a sequence per step would send the first rows more often.
func TestScenarioStepsShareADataFile(t *testing.T) {
	o := observe(t, target.Config{})
	row := `{call: {tool: echo, data: {file: rows.jsonl}}}`
	file := `scenarios: [{name: a, steps: [` + row + `, {parallel: [` + row + `, ` + row + `]}]}, {name: b, steps: [` + row + `, ` + row + `, ` + row + `]}]`
	rows := map[string]string{"rows.jsonl": "{\"message\":\"w\"}\n{\"message\":\"x\"}\n{\"message\":\"y\"}\n{\"message\":\"z\"}\n"}
	wl := build(t, o.dial(t, 2), file, rows, false)
	p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 2}, Total: 4}, wl)
	if err != nil || p.Errors != 0 || p.Sessions.Completed != 4 {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	sent := map[any]int{}
	for _, c := range o.calls {
		sent[c.args["message"]]++
	}
	if len(o.calls) != 12 || sent["w"] != 3 || sent["x"] != 3 || sent["y"] != 3 || sent["z"] != 3 {
		t.Fatalf("%d calls, rows sent %v, want each of 4 rows 3 times", len(o.calls), sent)
	}
}
