package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// probeJSON is the part of the probe report the CLI tests read.
type probeJSON struct {
	Schema string `json:"schema"`
	Target struct {
		URL        string `json:"url"`
		ServerName string `json:"server_name"`
	} `json:"target"`
	Health struct {
		OK         bool            `json:"ok"`
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
		After      *struct {
			OK bool `json:"ok"`
		} `json:"after"`
		Delta *struct {
			CacheHits   *int64             `json:"cache_hits"`
			CacheMisses *int64             `json:"cache_misses"`
			Fields      map[string]float64 `json:"fields"`
		} `json:"delta"`
	} `json:"health"`
	ServerInfo struct {
		Name    string          `json:"name"`
		GetInfo json.RawMessage `json:"get_info"`
	} `json:"server_info"`
	ToolsList struct {
		ToolCount    int               `json:"tool_count"`
		Pages        int               `json:"pages"`
		PayloadBytes int64             `json:"payload_bytes"`
		FirstCallMS  float64           `json:"first_call_ms"`
		Lint         []json.RawMessage `json:"lint"`
	} `json:"tools_list"`
	Sequential struct {
		Count    int      `json:"count"`
		FirstMS  *float64 `json:"first_ms"`
		SecondMS *float64 `json:"second_ms"`
		MinMS    float64  `json:"min_ms"`
		MedianMS float64  `json:"median_ms"`
		MaxMS    float64  `json:"max_ms"`
	} `json:"sequential_profile"`
	Benchmarks struct {
		Small *struct {
			Requests int64 `json:"requests"`
			Errors   int64 `json:"errors"`
		} `json:"small"`
		Large *struct {
			Requests int64 `json:"requests"`
			Errors   int64 `json:"errors"`
		} `json:"large"`
	} `json:"benchmarks"`
	LogScan *struct {
		Baseline string `json:"baseline"`
		Delta    struct {
			Requests    int64 `json:"requests"`
			CacheHits   int64 `json:"cache_hits"`
			CacheMisses int64 `json:"cache_misses"`
		} `json:"delta"`
	} `json:"log_scan"`
	Interrupted bool `json:"interrupted"`
}

func readProbe(t *testing.T, path string) probeJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p probeJSON
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// startLoggedTarget starts the bundled server writing its stats line every
// 100 ms to a file, and waits for the first line: the probe's window then
// has a baseline from before it.
func startLoggedTarget(t *testing.T, cfg target.Config) (*target.Running, string) {
	t.Helper()
	return startLoggedTargetEvery(t, cfg, 100*time.Millisecond)
}

// startLoggedTargetEvery is startLoggedTarget with another stats interval.
func startLoggedTargetEvery(t *testing.T, cfg target.Config, interval time.Duration) (*target.Running, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "server.log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cfg.StatsLog, cfg.StatsInterval = f, interval
	srv := startTarget(t, cfg)
	t.Cleanup(func() { srv.Close(); f.Close() })
	for deadline := time.Now().Add(5*time.Second + interval); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); bytes.Contains(b, []byte("[MCP] tools/list stats")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server wrote no stats line")
		}
	}
	return srv, logPath
}

// TestProbeCLI runs the probe as users do: the seed's flags, a server whose
// first tools/list is a slow cache miss, a log file. 1,000 benchmark
// requests plus the sequential listings go out; the client's count, the
// /health delta and the log window's delta must agree.
func TestProbeCLI(t *testing.T) {
	srv, logPath := startLoggedTarget(t, target.Config{Tools: 4, ListCacheTTL: time.Minute, ListBuildTime: 120 * time.Millisecond})
	dir := t.TempDir()
	jsonPath, mdPath := filepath.Join(dir, "probe.json"), filepath.Join(dir, "probe.md")
	r := runCLI(t, []string{"MCPBENCH_TOKEN=sekrit-token-123"}, "probe", "--base-url", srv.URL,
		"--timeout-secs", "10", "--sequential-samples", "3", "--sequential-sleep-ms", "10",
		"--bench-small-total", "200", "--bench-small-concurrency", "4",
		"--bench-large-total", "800", "--bench-large-concurrency", "16",
		"--log-file", logPath, "--log-settle", "5s", "--json-out", jsonPath, "--markdown-out", mdPath)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	p := readProbe(t, jsonPath)
	if p.Schema != "mcpbench.probe/v1" || p.Target.URL != srv.MCPURL() || p.Target.ServerName != target.DefaultName {
		t.Errorf("header: %+v", p)
	}
	if !p.Health.OK || p.Health.StatusCode != 200 || p.Health.Body == nil || p.Health.After == nil || p.Health.Delta == nil {
		t.Errorf("health: %+v", p.Health)
	}
	if p.ServerInfo.Name != target.DefaultName || p.ServerInfo.GetInfo == nil {
		t.Errorf("server_info: %+v", p.ServerInfo)
	}
	tl := p.ToolsList
	if tl.ToolCount != 6 || tl.Pages != 1 || tl.PayloadBytes == 0 || tl.Lint == nil || len(tl.Lint) != 0 {
		t.Errorf("tools_list: %+v", tl)
	}
	sp := p.Sequential
	if sp.Count != 3 || sp.FirstMS == nil || sp.SecondMS == nil || *sp.FirstMS < 120 || *sp.FirstMS <= sp.MinMS || *sp.FirstMS != tl.FirstCallMS {
		t.Errorf("sequential profile must keep send order (first = the cold miss): %+v, first_call_ms %.2f", sp, tl.FirstCallMS)
	}
	b := p.Benchmarks
	if b.Small == nil || b.Large == nil || b.Small.Requests != 200 || b.Large.Requests != 800 || b.Small.Errors+b.Large.Errors != 0 {
		t.Fatalf("benchmarks: %+v %+v", b.Small, b.Large)
	}
	sent := int64(tl.Pages*sp.Count) + b.Small.Requests + b.Large.Requests
	ls := p.LogScan
	if ls == nil {
		t.Fatal("log_scan is null with --log-file")
	}
	health := int64(p.Health.Delta.Fields["requests_by_method.tools/list"])
	if ls.Baseline != "before_window" || ls.Delta.Requests != sent || health != sent {
		t.Errorf("tools/list requests: client %d, /health %d, log window %d (baseline %s)", sent, health, ls.Delta.Requests, ls.Baseline)
	}
	if ls.Delta.CacheHits+ls.Delta.CacheMisses != ls.Delta.Requests || ls.Delta.CacheMisses != 1 {
		t.Errorf("log window: %d hits + %d misses vs %d requests", ls.Delta.CacheHits, ls.Delta.CacheMisses, ls.Delta.Requests)
	}
	md, _ := os.ReadFile(mdPath)
	for _, want := range []string{"# mcpbench probe", "## Health", "## tools/list payload", "No findings.", "## Sequential profile", "## Benchmarks", "## Server log"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if !strings.Contains(r.stdout, "tools/list  6 tools") || !strings.Contains(r.stdout, "bench large") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	js, _ := os.ReadFile(jsonPath)
	for _, out := range []string{r.stdout, r.stderr, string(js), string(md)} {
		if strings.Contains(out, "sekrit-token-123") {
			t.Fatal("the bearer token leaked into the output")
		}
	}
	t.Logf("tools/list requests: client %d = /health %d = log %d (%d hits + %d misses); first %.1f ms, min %.2f ms",
		sent, health, ls.Delta.Requests, ls.Delta.CacheHits, ls.Delta.CacheMisses, *sp.FirstMS, sp.MinMS)

	// --json-out - leaves nothing else on stdout.
	r = runCLI(t, nil, "probe", "--url", srv.MCPURL(), "--sequential-samples", "1", "--bench-small-total", "5", "--bench-large-total", "0", "--json-out", "-")
	var m map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &m) != nil || m["log_scan"] != nil {
		t.Fatalf("--json-out -: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestProbeCLIExitCodes(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 1})
	failing := startTarget(t, target.Config{Fault: target.FaultJSONRPCError, FaultRate: 1})
	dead := startTarget(t, target.Config{})
	deadURL := dead.MCPURL()
	dead.Close()
	small := []string{"--sequential-samples", "2", "--sequential-sleep-ms", "0", "--bench-small-total", "10", "--bench-large-total", "10", "-q"}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad flag", []string{"--url", srv.MCPURL(), "--bogus"}, 2, "unknown flag"},
		{"no url", nil, 2, "--url is required"},
		{"negative samples", []string{"--url", srv.MCPURL(), "--sequential-samples", "-1"}, 2, "--sequential-samples"},
		{"zero workers", []string{"--url", srv.MCPURL(), "--bench-large-concurrency", "0"}, 2, "concurrency"},
		{"bad health url", []string{"--url", srv.MCPURL(), "--health-url", "ftp://x/health"}, 2, "--health-url"},
		{"log file is a directory", append([]string{"--url", srv.MCPURL(), "--log-file", t.TempDir()}, small...), 2, "--log-file"},
		{"unreachable", []string{"--url", deadURL}, 3, "connect"},
		{"errors fail the gate", append([]string{"--url", failing.MCPURL()}, small...), 1, ""},
		{"errors allowed", append([]string{"--url", failing.MCPURL(), "--allow-request-errors"}, small...), 0, ""},
		{"ok", append([]string{"--url", srv.MCPURL()}, small...), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"probe"}, c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, c.code, r.stderr)
			}
			if c.want != "" {
				oneCleanLine(t, r)
				if !strings.Contains(r.stderr, c.want) {
					t.Fatalf("stderr %q does not say %q", r.stderr, c.want)
				}
			}
		})
	}
	if r := runCLI(t, nil, "probe", "--help"); r.code != 0 || !strings.Contains(r.stdout, "mcpbench probe") || !strings.Contains(r.stdout, "--bench-large-total") {
		t.Errorf("probe --help: exit %d\n%s", r.code, r.stdout)
	}
}

// probeCLIInterrupt (in TestServerBound) stops a probe in its large
// benchmark: the report is written, marked interrupted, and the exit code
// is 130.
func probeCLIInterrupt(t *testing.T) {
	srv := startTarget(t, target.Config{ServiceTime: 5 * time.Millisecond})
	jsonPath := filepath.Join(t.TempDir(), "probe.json")
	cmd := exec.Command(binary, "probe", "--url", srv.MCPURL(), "--sequential-samples", "2", "--bench-small-total", "10",
		"--bench-large-total", "1000000", "--bench-large-concurrency", "4", "--json-out", jsonPath, "-q")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatal("mcpbench probe did not stop within 20 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, errb.String())
	}
	p := readProbe(t, jsonPath)
	if !p.Interrupted || p.Benchmarks.Large == nil || p.Benchmarks.Large.Requests < 10 || p.Health.After == nil || !p.Health.After.OK {
		t.Fatalf("interrupted %v, large %+v, health after %+v", p.Interrupted, p.Benchmarks.Large, p.Health.After)
	}
}

// TestSeedScripts runs the two seed-compatible scripts against the bundled
// server with the seed's flags and default report paths.
func TestSeedScripts(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	srv, logPath := startLoggedTarget(t, target.Config{Tools: 4, ListCacheTTL: time.Second})
	scripts, err := filepath.Abs("../../scripts")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	run := func(script string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(scripts, script)}, args...)...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "MCPBENCH_BIN="+binary)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}

	run("test-omni-agent-mcp-tools-list-observability.sh", "--base-url", srv.URL, "--timeout-secs", "5",
		"--sequential-samples", "3", "--sequential-sleep-ms", "5", "--bench-small-total", "40", "--bench-small-concurrency", "2",
		"--bench-large-total", "120", "--bench-large-concurrency", "8", "--log-file", logPath, "--allow-request-errors")
	p := readProbe(t, filepath.Join(work, ".run/reports/mcp-tools-list-observability.json"))
	if p.Schema != "mcpbench.probe/v1" || p.ToolsList.ToolCount != 6 || p.LogScan == nil || p.Benchmarks.Large == nil || p.Benchmarks.Large.Requests != 120 {
		t.Errorf("probe report via the seed script: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(work, ".run/reports/mcp-tools-list-observability.md")); err != nil {
		t.Error(err)
	}

	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	run("test-omni-agent-mcp-tools-list-concurrency-sweep.sh", "--base-url", srv.URL, "--total", "60",
		"--concurrency-values", "1,2,4", "--p95-slo-ms", "400", "--p99-slo-ms", "800", "--timeout-secs", "5",
		"--warmup-calls", "3", "--allow-request-errors")
	base := filepath.Join(work, ".run/reports/mcp-tools-list-observability-127.0.0.1-"+port+"-concurrency-sweep")
	s := readSweep(t, base+".json")
	if s.Schema != "mcpbench.sweep/v1" || len(s.Points) != 3 || s.Recommendation.Recommended == nil {
		t.Errorf("sweep report via the seed script: %+v", s)
	}
	if md, err := os.ReadFile(base + ".md"); err != nil || !strings.Contains(string(md), "ecommend") {
		t.Errorf("sweep markdown: %v\n%s", err, md)
	}
}
