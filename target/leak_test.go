package target

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the server's /metrics with the Prometheus text parser.
func scrape(t *testing.T, r *Running) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(r.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func gaugeValue(t *testing.T, fams map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.GetMetric()) != 1 {
		t.Fatalf("metric %s missing", name)
	}
	m := f.GetMetric()[0]
	if m.Gauge != nil {
		return m.GetGauge().GetValue()
	}
	return m.GetCounter().GetValue()
}

func TestMetricsEndpoint(t *testing.T) {
	r := start(t, Config{})
	fams := scrape(t, r)
	for _, name := range []string{"process_resident_memory_bytes", "process_open_fds", "go_goroutines", "mcpbench_serve_sessions", "mcpbench_serve_leaked_bytes"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if rss := gaugeValue(t, fams, "process_resident_memory_bytes"); rss < 1e6 {
		t.Errorf("rss %v", rss)
	}
}

// callEcho opens a session, calls echo n times and closes the session
// (the client's DELETE).
func callEcho(t *testing.T, r *Running, n int) {
	t.Helper()
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1})
	for range n {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLeakPerRequest(t *testing.T) {
	r := start(t, Config{LeakPerRequest: 50_000})
	callEcho(t, r, 40)
	// Every request keeps its share (the 40 calls and the handshake's);
	// notifications keep nothing.
	var requests int64
	r.mu.Lock()
	for method, n := range r.byMethod {
		if !strings.HasPrefix(method, "notifications/") {
			requests += n
		}
	}
	r.mu.Unlock()
	if requests < 41 {
		t.Fatalf("%d requests counted", requests)
	}
	if got := r.leaks.bytes.Load(); got != requests*50_000 {
		t.Errorf("kept %d bytes, want %d requests × 50000", got, requests)
	}
	if got := gaugeValue(t, scrape(t, r), "mcpbench_serve_leaked_bytes"); got != float64(requests*50_000) {
		t.Errorf("/metrics says %v bytes kept", got)
	}
}

func TestLeakSessions(t *testing.T) {
	for _, leak := range []bool{false, true} {
		r := start(t, Config{LeakSessions: leak})
		for range 5 {
			callEcho(t, r, 1)
		}
		want := 0.0
		if leak {
			want = 5
		}
		if got := gaugeValue(t, scrape(t, r), "mcpbench_serve_sessions"); got != want {
			t.Errorf("leak %v: %v sessions open after 5 closed, want %v", leak, got, want)
		}
	}
}

func TestLeakConfigRefused(t *testing.T) {
	for _, cfg := range []Config{{LeakPerRequest: -1}, {LeakPerRequest: 10, FixedResponse: true}, {LeakSessions: true, Stateless: true}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// TestLeakIsResident: the kept bytes show in resident memory one for one
// (the reason they live outside the Go heap).
func TestLeakIsResident(t *testing.T) {
	rss := func() int64 {
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Fatal(err)
		}
		var size, resident int64
		fmt.Sscan(string(b), &size, &resident)
		return resident * int64(os.Getpagesize())
	}
	l := &leaks{perRequest: 20_000}
	defer l.free()
	before := rss()
	for range 2000 { // 40 MB
		l.keep()
	}
	grew := rss() - before
	if l.bytes.Load() != 40_000_000 || grew < 38e6 || grew > 44e6 {
		t.Errorf("kept %d bytes, resident memory grew %d", l.bytes.Load(), grew)
	}
}
