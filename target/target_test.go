package target

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// start runs a server for one test and stops it at the end.
func start(t *testing.T, cfg Config) *Running {
	t.Helper()
	r, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

func connect(t *testing.T, ctx context.Context, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "target-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestModesListAndEcho(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		sse  bool
	}{
		{"stateful-sse-answers", Config{Tools: 5}, false},
		{"json-response", Config{Tools: 5, JSONResponse: true}, false},
		{"stateless", Config{Tools: 5, Stateless: true}, false},
		{"stateless-json", Config{Tools: 5, Stateless: true, JSONResponse: true}, false},
		{"legacy-sse", Config{Tools: 5}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := start(t, tc.cfg)
			ctx := testCtx(t, 10*time.Second)
			var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1}
			if tc.sse {
				tr = &mcp.SSEClientTransport{Endpoint: r.SSEURL()}
			}
			cs := connect(t, ctx, tr)
			defer cs.Close()

			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
				if tool.OutputSchema == nil && tool.Name != ToolFail {
					t.Errorf("%s has no outputSchema", tool.Name)
				}
			}
			want := []string{ToolEcho, ToolFail, "tool_000", "tool_001", "tool_002", "tool_003", "tool_004"} // the SDK lists by name
			if !slices.Equal(names, want) {
				t.Errorf("tools = %v, want %v", names, want)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"message": "hi there"}})
			if err != nil {
				t.Fatalf("tools/call echo: %v", err)
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi there" {
				t.Errorf("echo result = %+v", res)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if string(sc) != `{"message":"hi there"}` {
				t.Errorf("echo structuredContent = %s", sc)
			}
			h := r.Health()
			if h.RequestsByMethod[methodList] != 1 || h.RequestsByMethod[methodCall] != 1 {
				t.Errorf("requests_by_method = %v", h.RequestsByMethod)
			}
		})
	}
}

func TestSyntheticToolsConform(t *testing.T) {
	r := start(t, Config{Tools: 8})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1})
	defer cs.Close()
	for _, d := range buildTools(8, false)[:8] {
		args := map[string]any{}
		for _, k := range d.required {
			args[k] = "x" // the server checks presence only
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: d.tool.Name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", d.tool.Name, err, res)
		}
		if missing := missingRequired(d.tool.OutputSchema.(schema), res.StructuredContent); missing != "" {
			t.Errorf("%s: structuredContent lacks %s", d.tool.Name, missing)
		}
		// Missing required arguments are a tool error, as the spec asks.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: d.tool.Name, Arguments: map[string]any{}})
		if err != nil || !res.IsError {
			t.Errorf("%s without arguments: err=%v isError=%v", d.tool.Name, err, res != nil && res.IsError)
		}
	}
}

// missingRequired names the first required top-level field absent from v.
func missingRequired(s schema, v any) string {
	m, _ := v.(map[string]any)
	req, _ := s["required"].([]string)
	for _, k := range req {
		if _, ok := m[k]; !ok {
			return k
		}
	}
	return ""
}

func TestServiceTimeSingleRequest(t *testing.T) {
	r := start(t, Config{Capacity: 1000, ServiceTime: 20 * time.Millisecond})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1, DisableStandaloneSSE: true})
	defer cs.Close()
	cs.ListTools(ctx, nil) // warm the connection
	var took []time.Duration
	for range 7 {
		t0 := time.Now()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	t.Logf("tools/list with 20ms service: %v", took)
	if took[0] < 20*time.Millisecond {
		t.Errorf("fastest request %v, below the 20ms service time", took[0])
	}
	if med := took[len(took)/2]; med >= 30*time.Millisecond {
		t.Errorf("median request %v, want < 30ms", med)
	}
}

func TestCapacityThroughput(t *testing.T) {
	const (
		capacity = 8
		service  = 20 * time.Millisecond
		clients  = 32
		window   = 1500 * time.Millisecond
	)
	r := start(t, Config{Capacity: capacity, ServiceTime: service})
	sessions := make([]*rawSession, clients)
	for i := range sessions {
		sessions[i] = rawConnect(t, r.MCPURL()) // cheaper than the SDK client: the CPU is shared
	}
	want := float64(capacity) / service.Seconds()
	// The machine is shared and noisy: a low figure may be the machine's
	// fault, so measure up to three times; a high one is always a bug.
	var rps float64
	for attempt := range 3 {
		rps = measureRPS(t, sessions, window)
		t.Logf("attempt %d: K=%d D=%v clients=%d: %.1f rps (ceiling %.0f)", attempt, capacity, service, clients, rps, want)
		if rps > want*1.15 {
			t.Fatalf("throughput %.1f rps above the ceiling %.0f", rps, want)
		}
		if rps >= want*0.85 {
			break
		}
	}
	if rps < want*0.85 {
		// Below the ceiling on a machine busy with other work is the
		// machine's doing (the CPU, not the slots, was the bottleneck).
		if load := loadAverage(); load > float64(runtime.NumCPU()) {
			t.Skipf("throughput %.1f rps below %.0f, but the load average is %.1f on %d CPUs", rps, want, load, runtime.NumCPU())
		}
		t.Errorf("throughput %.1f rps, want %.0f ±15%%", rps, want)
	}
	if h := r.Health(); h.PeakInFlight != capacity {
		t.Errorf("peak_in_flight = %d, want %d", h.PeakInFlight, capacity)
	}
}

// loadAverage is the 1-minute load average, or 0 where it is unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// measureRPS runs a closed loop of echo calls, one worker per session, and
// counts the answers completed within window after a short warm-up.
func measureRPS(t *testing.T, sessions []*rawSession, window time.Duration) float64 {
	ctx := testCtx(t, window+5*time.Second)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count int
	)
	begin := time.Now()
	from, to := begin.Add(300*time.Millisecond), begin.Add(300*time.Millisecond+window)
	const echo = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`
	for _, s := range sessions {
		wg.Go(func() {
			for time.Now().Before(to) {
				resp, err := s.post(ctx, echo)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !strings.Contains(string(body), `"result"`) {
					t.Errorf("echo: %v %s", err, body)
					return
				}
				if now := time.Now(); now.After(from) && now.Before(to) {
					mu.Lock()
					count++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return float64(count) / window.Seconds()
}

func TestHealth(t *testing.T) {
	r := start(t, Config{Tools: 3, Capacity: 16, ListCacheTTL: time.Hour})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1})
	for range 4 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Get(r.HealthURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var h map[string]any
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("health is not JSON: %v\n%s", err, body)
	}
	for _, k := range []string{"status", "uptime_s", "in_flight", "peak_in_flight", "max_in_flight", "requests_by_method",
		"sessions_open", "streams_open", "cache_hits", "cache_misses", "cache_refreshes", "hit_rate_pct", "observability", "faults_injected", "stalls"} {
		if _, ok := h[k]; !ok {
			t.Errorf("health lacks %q", k)
		}
	}
	var got Health
	json.Unmarshal(body, &got)
	if got.Status != "ok" || got.MaxInFlight != 16 || got.CacheHits != 3 || got.CacheMisses != 1 || got.HitRatePct != 75 ||
		got.SessionsOpen != 1 || got.RequestsByMethod[methodList] != 4 || got.Tools != 5 {
		t.Errorf("health = %s", body)
	}
	if got.Observability.TotalRequests < 5 { // initialize + 4 lists
		t.Errorf("observability = %+v", got.Observability)
	}

	cs.Close()
	deadline := time.Now().Add(2 * time.Second)
	for r.Health().SessionsOpen != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := r.Health().SessionsOpen; n != 0 {
		t.Errorf("sessions_open = %d after the client closed its session", n)
	}

	// A plain GET of /mcp describes the server.
	resp, err = http.Get(r.MCPURL())
	if err != nil {
		t.Fatal(err)
	}
	var info map[string]string
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if info["name"] != DefaultName || info["protocolVersion"] == "" {
		t.Errorf("GET /mcp = %v", info)
	}
}

// syncBuffer is a log file for tests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStatsLine(t *testing.T) {
	log := &syncBuffer{}
	r, err := Start(t.Context(), Config{Capacity: 4, ListCacheTTL: time.Hour, StatsLog: log, StatsInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1})
	const lists = 7
	for range lists {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(120 * time.Millisecond) // at least one periodic line
	cs.Close()
	r.Close()

	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if lines[0] != "[MCP] Dynamic Loader: 2 tools registered" {
		t.Errorf("first line = %q", lines[0])
	}
	if len(lines) < 3 {
		t.Fatalf("want a periodic and a final stats line, got %q", lines)
	}
	last := lines[len(lines)-1]
	const prefix = "[MCP] tools/list stats requests=7 hit_rate=85.71% cache_hits=6 cache_misses=1 build_count=1 build_failures=0 build_avg_ms="
	if !strings.HasPrefix(last, prefix) || !strings.HasSuffix(last, " in_flight=0 peak_in_flight=1 max_in_flight=4") {
		t.Errorf("last stats line = %q", last)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "[MCP] tools/list stats requests=") {
			t.Errorf("unexpected line %q", l)
		}
	}
}

func TestListCacheNoTTL(t *testing.T) {
	r := start(t, Config{})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1})
	defer cs.Close()
	for range 3 {
		cs.ListTools(ctx, nil)
	}
	h := r.Health()
	if h.CacheMisses != 3 || h.CacheHits != 0 || h.ToolsList.BuildCount != 3 || h.CacheRefreshes != 2 {
		t.Errorf("tools_list = %+v", h.ToolsList)
	}
}

func TestStall(t *testing.T) {
	r := start(t, Config{Stall: 150 * time.Millisecond, StallEvery: 300 * time.Millisecond})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: r.MCPURL(), MaxRetries: -1, DisableStandaloneSSE: true})
	defer cs.Close()
	// Over 1s of back-to-back requests, the slowest waited out a stall.
	var slowest time.Duration
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		t0 := time.Now()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(t0))
	}
	h := r.Health()
	if len(h.Stalls) < 2 {
		t.Fatalf("stalls = %v, want >= 2 in 1s", h.Stalls)
	}
	for _, w := range h.Stalls {
		// Late timers on a busy machine lengthen a stall, nothing shortens it.
		if d := w.End.Sub(w.Start); d < 150*time.Millisecond || d > 650*time.Millisecond {
			t.Errorf("stall window %v long", d)
		}
	}
	if slowest < 50*time.Millisecond {
		t.Errorf("slowest request %v: no request was held by a stall", slowest)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Tools: -1},
		{ServiceDist: "gamma"},
		{Fault: "explode", FaultRate: 1},
		{Fault: FaultHTTP500, FaultRate: 1.5},
		{Stall: time.Second},
		{Stall: time.Second, StallEvery: time.Second},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestServiceDistMean(t *testing.T) {
	for _, dist := range []string{DistFixed, DistExp, DistLognormal} {
		s, err := New(Config{ServiceTime: 10 * time.Millisecond, ServiceDist: dist, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		const n = 20000
		var sum time.Duration
		for range n {
			sum += s.serviceTime()
		}
		mean := sum / n
		if mean < 9500*time.Microsecond || mean > 10500*time.Microsecond {
			t.Errorf("%s: mean service time %v, want 10ms ±5%%", dist, mean)
		}
		s.Close()
	}
}

// The SDK is given the tools with their schemas marshalled once; each
// tool's bytes in a tools/list answer must be what the maps marshal to.
func TestWireToolsAreTheSameBytes(t *testing.T) {
	for _, clientTools := range []bool{false, true} {
		for _, d := range buildTools(8, clientTools) {
			want, err := json.Marshal(d.tool)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(wireTool(d.tool))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: sent as\n%s\nwant\n%s", d.tool.Name, got, want)
			}
		}
	}
}
