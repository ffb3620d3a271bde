package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
)

// syncFile serialises the server's stats writes with the test's reads.
type syncFile struct {
	mu sync.Mutex
	f  *os.File
}

func (s *syncFile) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Write(p)
}

// startLogged starts the bundled server writing its stats line to a file
// every 100 ms, and waits for the first line so the probe's window has a
// baseline from before it.
func startLogged(t *testing.T, cfg target.Config) (*target.Running, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cfg.StatsLog = &syncFile{f: f}
	cfg.StatsInterval = 100 * time.Millisecond
	srv, err := target.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("[MCP] tools/list stats")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server wrote no stats line")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return srv, path
}

func options(url string) mcp.Options {
	return mcp.Options{URL: url, Timeout: 10 * time.Second, PoolSize: 16}
}

// TestProbeBundledServer probes the reference server with a tools/list
// cache whose first build is slow, and checks every section, the send order
// of the sequential profile, and that the log window, /health and the client
// agree on the number of tools/list requests.
func TestProbeBundledServer(t *testing.T) {
	srv, logPath := startLogged(t, target.Config{
		Tools:         6,
		ListCacheTTL:  time.Minute,
		ListBuildTime: 150 * time.Millisecond,
	})
	var stages []string
	cfg := Config{
		Options:           options(srv.MCPURL()),
		SequentialSamples: 4,
		SequentialSleep:   10 * time.Millisecond,
		Small:             BenchSpec{Concurrency: 4, Total: 200},
		Large:             BenchSpec{Concurrency: 16, Total: 800},
		LogFile:           logPath,
		LogSettle:         5 * time.Second,
		Progress:          func(s string) { stages = append(stages, s) },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted {
		t.Fatal("interrupted")
	}
	want := []string{PhaseLogMark, PhaseHealth, PhaseDial, PhaseGetInfo, PhaseToolsList, PhaseListings, PhaseBenchSmall, PhaseBenchLarge, PhaseHealthEnd, PhaseLogScan}
	if strings.Join(stages, ",") != strings.Join(want, ",") {
		t.Errorf("stages %v, want %v", stages, want)
	}

	// Health: before, after and the change.
	h := res.Health
	if !h.OK || h.StatusCode != 200 || h.Body == nil || h.Cache == nil || h.Cache.Hits == nil || h.Observability == nil {
		t.Fatalf("health before: %+v", h.HealthSnapshot)
	}
	if h.After == nil || !h.After.OK || h.Delta == nil || h.Delta.CacheHits == nil || h.Delta.CacheMisses == nil {
		t.Fatalf("health after/delta: %+v %+v", h.After, h.Delta)
	}

	// Server info from initialize and from the GET of /mcp.
	si := res.ServerInfo
	if si.Name != target.DefaultName || si.Version != target.DefaultVersion || si.ProtocolVersion == "" || len(si.Capabilities) == 0 {
		t.Errorf("server info %+v", si.ServerInfo)
	}
	var gi map[string]string
	if err := json.Unmarshal(si.GetInfo, &gi); err != nil || gi["name"] != target.DefaultName || gi["protocolVersion"] == "" {
		t.Errorf("get_info %s (%s)", si.GetInfo, si.GetInfoError)
	}

	// The payload audit: the bundled server's tools pass the lint.
	tl := res.ToolsList
	if tl.Error != "" || tl.ToolCount != 6+2 || tl.Pages != 1 || tl.PayloadBytes < 1000 || len(tl.LargestTools) != 8 {
		t.Fatalf("tools_list %+v", tl)
	}
	if len(tl.Lint) != 0 {
		t.Errorf("lint findings on the bundled server: %+v", tl.Lint)
	}
	if tl.CompactionSavingsBytes <= 0 || tl.CompactionSavingsPct <= 0 || tl.CompactionSavingsPct >= 100 {
		t.Errorf("compaction savings %d bytes, %.1f%%", tl.CompactionSavingsBytes, tl.CompactionSavingsPct)
	}
	if d := tl.Descriptions; d.Count != 8 || d.MaxChars == 0 || d.OverCap != 0 || d.MeanChars <= 0 {
		t.Errorf("descriptions %+v", d)
	}
	for i := 1; i < len(tl.LargestTools); i++ {
		if tl.LargestTools[i].Bytes > tl.LargestTools[i-1].Bytes {
			t.Errorf("largest tools not in size order: %+v", tl.LargestTools)
		}
	}

	// The sequential profile keeps send order: the first listing was the
	// cache miss that took the build time, so it is the slowest, not the
	// minimum the seed script reported.
	sp := res.SequentialProfile
	if sp.Count != 4 || sp.Errors != 0 || sp.FirstMS == nil || sp.SecondMS == nil {
		t.Fatalf("sequential %+v", sp)
	}
	if *sp.FirstMS < 150 || *sp.FirstMS <= sp.MinMS || *sp.FirstMS != sp.MaxMS || *sp.SecondMS >= *sp.FirstMS {
		t.Errorf("first %.2f second %.2f min %.2f max %.2f: first must be the slow cold call", *sp.FirstMS, *sp.SecondMS, sp.MinMS, sp.MaxMS)
	}
	if *sp.FirstMS != tl.FirstCallMS {
		t.Errorf("first_ms %.3f != first_call_ms %.3f on a one-page list", *sp.FirstMS, tl.FirstCallMS)
	}

	// Benchmarks.
	b := res.Benchmarks
	if b.Small == nil || b.Large == nil || b.Small.Requests != 200 || b.Large.Requests != 800 || b.Small.Errors+b.Large.Errors != 0 {
		t.Fatalf("benchmarks %+v %+v %v", b.Small, b.Large, b.Errors)
	}
	if b.Small.Concurrency != 4 || b.Large.Concurrency != 16 || b.Large.P99MS <= 0 {
		t.Errorf("benchmark points: %+v / %+v", b.Small.Latency, b.Large.Latency)
	}

	// The accounting: what the client sent, what /health saw and what the
	// log window counted are the same number of tools/list requests.
	sent := int64(tl.Pages*sp.Count) + b.Small.Requests + b.Large.Requests
	if sent != 1004 {
		t.Fatalf("client sent %d tools/list requests, want 1004", sent)
	}
	healthDelta := int64(h.Delta.Fields["requests_by_method.tools/list"])
	ls := res.LogScan
	if ls == nil {
		t.Fatalf("no log scan: %s", res.LogScanError)
	}
	if ls.Baseline != logscan.BaselineBeforeWindow || ls.CounterReset {
		t.Errorf("log window baseline %q, reset %v", ls.Baseline, ls.CounterReset)
	}
	if ls.Delta.Requests != sent || healthDelta != sent {
		t.Errorf("tools/list requests: client %d, /health delta %d, log window delta %d", sent, healthDelta, ls.Delta.Requests)
	}
	if ls.Delta.CacheHits+ls.Delta.CacheMisses != ls.Delta.Requests {
		t.Errorf("log window: hits %d + misses %d != requests %d", ls.Delta.CacheHits, ls.Delta.CacheMisses, ls.Delta.Requests)
	}
	if *h.Delta.CacheHits != ls.Delta.CacheHits || *h.Delta.CacheMisses != ls.Delta.CacheMisses || ls.Delta.CacheMisses != 1 {
		t.Errorf("cache: /health delta %d hits %d misses, log %d hits %d misses (want 1 miss: the cold call)",
			*h.Delta.CacheHits, *h.Delta.CacheMisses, ls.Delta.CacheHits, ls.Delta.CacheMisses)
	}
	t.Logf("tools/list requests: client %d = /health delta %d = log delta %d (hits %d + misses %d); first %.1f ms, second %.1f ms, min %.1f ms; large rps %.0f",
		sent, healthDelta, ls.Delta.Requests, ls.Delta.CacheHits, ls.Delta.CacheMisses, *sp.FirstMS, *sp.SecondMS, sp.MinMS, b.Large.RPS)
}

// fakeServer is a minimal initialize-era MCP server over JSON responses with
// a paginated tools/list, no /health and no GET document.
func fakeServer(t *testing.T, pages [][]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"9"}}`
		case "tools/list":
			i := 0
			fmt.Sscan(req.Params.Cursor, &i)
			next := ""
			if i+1 < len(pages) {
				next = fmt.Sprintf(`,"nextCursor":"%d"`, i+1)
			}
			result = `{"tools":[` + strings.Join(pages[i], ",") + `]` + next + `}`
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func tool(name, desc string, props string) string {
	return fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{%s}}}`, name, desc, props)
}

// TestProbePaginatedWithoutHealth follows nextCursor across pages, lints
// what it finds, and reports a missing /health and GET document as data.
func TestProbePaginatedWithoutHealth(t *testing.T) {
	long := strings.Repeat("é", 150)
	pages := [][]string{
		{tool("a", "short", `"q":{"type":"string","description":"the query","title":"Q"}`), tool("bad name", "x", "")},
		{tool("c", long, `"n":{"type":"integer","default":3}`)},
		{tool("d", "d", strings.Repeat(`"p":{"type":"string","examples":["a","b"]},`, 1)+`"z":{"type":"string"}`)},
	}
	srv := fakeServer(t, pages)
	res, err := Run(context.Background(), Config{Options: options(srv.URL + "/mcp"), SequentialSamples: 2, Small: BenchSpec{Concurrency: 2, Total: 10}})
	if err != nil {
		t.Fatal(err)
	}
	h := res.Health
	if h.OK || h.StatusCode != 404 || h.Error == "" || h.Body != nil || h.Delta != nil || h.After == nil || h.After.OK {
		t.Errorf("missing /health: %+v", h)
	}
	if res.ServerInfo.GetInfo != nil || !strings.Contains(res.ServerInfo.GetInfoError, "405") {
		t.Errorf("get_info %s, error %q", res.ServerInfo.GetInfo, res.ServerInfo.GetInfoError)
	}
	if res.ServerInfo.Name != "fake" || res.ServerInfo.Negotiation != "initialize" {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	tl := res.ToolsList
	var payload int64
	for i, p := range pages {
		next := ""
		if i+1 < len(pages) {
			next = fmt.Sprintf(`,"nextCursor":"%d"`, i+1)
		}
		payload += int64(len(`{"tools":[` + strings.Join(p, ",") + `]` + next + `}`))
	}
	if tl.Pages != 3 || tl.ToolCount != 4 || tl.PayloadBytes != payload {
		t.Errorf("pages %d tools %d bytes %d (want 3, 4, %d)", tl.Pages, tl.ToolCount, tl.PayloadBytes, payload)
	}
	if d := tl.Descriptions; d.MaxChars != 150 || d.OverCap != 1 || d.CapSavingsBytes != 20 {
		t.Errorf("descriptions %+v", d)
	}
	if tl.LargestTools[0].Name != "c" {
		t.Errorf("largest %+v", tl.LargestTools)
	}
	// description+title of q, default of n, examples of p.
	want := len(`,"description":"the query"`) + len(`,"title":"Q"`) + len(`,"default":3`) + len(`,"examples":["a","b"]`)
	if tl.CompactionSavingsBytes != int64(want) {
		t.Errorf("compaction savings %d, want %d", tl.CompactionSavingsBytes, want)
	}
	rules := map[string]string{}
	for _, f := range tl.Lint {
		rules[f.Rule] = f.Severity
	}
	if rules["name_chars"] != "warning" || rules["description_length"] != "warning" {
		t.Errorf("lint %+v", tl.Lint)
	}
	sp := res.SequentialProfile
	if sp.Count != 2 || sp.Errors != 0 || len(sp.SamplesMS) != 2 {
		t.Errorf("sequential %+v", sp)
	}
	if res.Benchmarks.Small == nil || res.Benchmarks.Small.Requests != 10 || res.Benchmarks.Large != nil {
		t.Errorf("benchmarks %+v", res.Benchmarks)
	}
}

func TestProfileKeepsSendOrder(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		in               []*float64
		first, second    *float64
		min, median, max float64
		errors           int
	}{
		{[]*float64{f(9), f(2), f(5)}, f(9), f(2), 2, 5, 9, 0},
		{[]*float64{f(1), f(4), f(3), f(2)}, f(1), f(4), 1, 2.5, 4, 0},
		{[]*float64{nil, f(4), f(6)}, nil, f(4), 4, 5, 6, 1},
		{[]*float64{f(7)}, f(7), nil, 7, 7, 7, 0},
		{nil, nil, nil, 0, 0, 0, 0},
	}
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for i, c := range cases {
		p := Profile(c.in)
		if !eq(p.FirstMS, c.first) || !eq(p.SecondMS, c.second) || p.MinMS != c.min || p.MedianMS != c.median || p.MaxMS != c.max || p.Errors != c.errors || p.Count != len(c.in) {
			t.Errorf("case %d: %+v", i, p)
		}
		for j := range c.in {
			if !eq(p.SamplesMS[j], c.in[j]) {
				t.Errorf("case %d: samples reordered", i)
			}
		}
	}
}

func TestHealthUnreachableAndBadURL(t *testing.T) {
	srv, err := target.Start(context.Background(), target.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	res, err := Run(context.Background(), Config{Options: options(srv.MCPURL()), HealthURL: closed.URL + "/health"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Health.OK || res.Health.StatusCode != 0 || !strings.Contains(res.Health.Error, "connect") && !strings.Contains(res.Health.Error, "refused") {
		t.Errorf("health %+v", res.Health.HealthSnapshot)
	}
	if res.ToolsList.ToolCount != 2 || res.SequentialProfile.Count != 0 {
		t.Errorf("tools %d, sequential %+v", res.ToolsList.ToolCount, res.SequentialProfile)
	}
	if err := ValidateHealthURL(srv.MCPURL(), "ftp://x/health"); err == nil {
		t.Error("ftp health URL accepted")
	}
	if got, _ := resolveHealthURL("http://u:p@127.0.0.1:9/x/mcp?a=1", ""); got != "http://u:p@127.0.0.1:9/health" {
		t.Errorf("default health URL %q", got)
	}
	_, err = Run(context.Background(), Config{Options: options(closed.URL + "/mcp")})
	var se *PhaseError
	if !asPhase(err, &se) || se.Phase != PhaseDial {
		t.Errorf("unreachable server: %v", err)
	}
}

func asPhase(err error, se **PhaseError) bool {
	e, ok := err.(*PhaseError)
	*se = e
	return ok
}
