package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/workload"
)

// methodCount is a loopback proxy in front of a server that counts the
// JSON-RPC requests it forwards, by method: what the server received,
// counted outside mcpbench.
type methodCount struct {
	mu sync.Mutex
	n  map[string]int
}

func countingProxy(t *testing.T, upstream string) (string, *methodCount) {
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1 // SSE answers pass as they come
	mc := &methodCount{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var msg struct {
				Method string          `json:"method"`
				ID     json.RawMessage `json:"id"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.ID != nil {
				mc.mu.Lock()
				mc.n[msg.Method]++
				mc.mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		} else if r.Method == http.MethodDelete {
			mc.mu.Lock()
			mc.n["DELETE"]++
			mc.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + u.Path, mc
}

func (mc *methodCount) take() map[string]int {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	n := mc.n
	mc.n = map[string]int{}
	return n
}

// countedEverything dials server-everything through the counting proxy;
// a nil client where it is not installed (everythingEntry says so).
func countedEverything(t *testing.T) (context.Context, *mcp.Client, *methodCount) {
	entry := everythingEntry(t)
	if entry == "" {
		return nil, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	base, counts := countingProxy(t, startEverything(t, entry, "streamableHttp")+"/mcp")
	c, err := mcp.Dial(ctx, mcp.Options{URL: base, PoolSize: 4, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return ctx, c, counts
}

// TestSurfaceEverything: resources and prompts against the TypeScript
// SDK's server-everything. Each run's requests are counted by the proxy in
// front of the server too: exactly n of the method measured, all answered
// well; a URI the server does not have is a jsonrpc error with its text.
func TestSurfaceEverything(t *testing.T) {
	ctx, c, counts := countedEverything(t)
	if c == nil {
		return
	}
	const n = 60
	for _, spec := range []workload.Spec{
		{Method: "resources/list"},
		{Method: "resources/read", GenArgs: true, Cardinality: 8},
		{Method: "prompts/list"},
		{Method: "prompts/get", Prompt: "simple-prompt"},
		{Method: "prompts/get", GenArgs: true, Cardinality: 8},
		{Method: "completion/complete", Prompt: "completable-prompt", Args: json.RawMessage(`{"department":"E"}`)},
	} {
		wl, err := workload.Build(ctx, c, spec)
		if err != nil {
			t.Fatalf("%s: %v", spec.Method, err)
		}
		counts.take() // the listings Build made
		p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 2}, Total: n}, wl)
		if err != nil {
			t.Fatal(err)
		}
		got := counts.take()
		if p.Requests != n || p.OK != n || got[spec.Method] != n {
			t.Fatalf("%s: requests %d ok %d, the server received %v; errors %v", spec.Method, p.Requests, p.OK, got, p.ErrorExamples)
		}
		t.Logf("%s: %d operations, %d requests all ok, server received %d", spec.Method, len(wl.Ops), p.Requests, got[spec.Method])
	}
	wl, err := workload.Build(ctx, c, workload.Spec{Method: "resources/read", URI: "demo://no/such/resource"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 1}, Total: 3}, wl)
	if err != nil {
		t.Fatal(err)
	}
	if p.ErrorsByKind["jsonrpc"] != 3 || len(p.ErrorExamples) == 0 {
		t.Fatalf("a bad URI: errors %v %v", p.ErrorsByKind, p.ErrorExamples)
	}
	if example := p.ErrorExamples["jsonrpc"]; !strings.Contains(example, "demo://no/such/resource not found") {
		t.Fatalf("a bad URI's error does not carry the server's text: %q", example)
	}
}

// TestSurfaceScenarioEverything: request steps of a scenario, two of them
// at once, against server-everything: every session sends each exactly
// once (counted at the proxy), and each step reports under its name.
func TestSurfaceScenarioEverything(t *testing.T) {
	ctx, c, counts := countedEverything(t)
	if c == nil {
		return
	}
	f, err := workload.ParseScenarios([]byte(`
scenarios:
  - name: reader
    steps:
      - request: {method: resources/list}
      - parallel:
          - name: doc
            request: {method: resources/read, uri: "demo://resource/dynamic/text/1"}
          - request: {method: prompts/get, prompt: args-prompt, args: {city: Paris}}
      - request: {method: completion/complete, prompt: completable-prompt, args: {department: E}}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.BuildScenarios(ctx, c, "", workload.ScenarioSpec{File: f, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts.take()
	const sessions = 10
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 2}, Total: sessions}, wl)
	if err != nil || p.Errors != 0 || p.Sessions.Completed != sessions {
		t.Fatalf("%+v %v %v", p.Sessions, p.ErrorExamples, err)
	}
	got := counts.take()
	for _, m := range []string{"initialize", "resources/list", "resources/read", "prompts/get", "completion/complete", "DELETE"} {
		if got[m] != sessions {
			t.Errorf("the server received %d %s for %d sessions: %v", got[m], m, sessions, got)
		}
	}
	byStep := map[string]measure.OperationStats{}
	for _, o := range p.ByOperation {
		byStep[o.Step] = o
	}
	for name, method := range map[string]string{"doc": "resources/read", "prompts/get args-prompt": "prompts/get", "resources/list": "resources/list"} {
		if o := byStep[name]; o.Method != method || o.Requests != sessions {
			t.Errorf("step %q: %q, %d requests", name, o.Method, o.Requests)
		}
	}
}
