package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpbench/mcpbench/target"
)

// binary is the mcpbench built once for the CLI tests, which run it as users
// do: as a separate process, judged by exit code and output.
var binary string

// TestMain builds the binary for the CLI tests, and makes the test binary
// itself the mcpbench (and helper programs) the testscripts run.
func TestMain(m *testing.M) {
	if os.Getenv(conformanceEnv) != "" {
		conformanceClient() // the harness runs this binary as its client
	}
	testscript.Main(builtFirst{m}, scriptCommands())
}

// builtFirst runs the tests with the binary built, and removes it after.
type builtFirst struct{ m *testing.M }

func (b builtFirst) Run() int {
	flag.Parse()
	if err := applyLane(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	dir, err := os.MkdirTemp("", "mcpbench-cli")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "mcpbench")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building mcpbench: %v\n%s", err, out)
		return 2
	}
	return b.m.Run()
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	return runProgram(t, env, append([]string{binary}, args...)...)
}

// runProgram is runCLI for a command line that starts mcpbench some other
// way (under taskset, say).
func runProgram(t *testing.T, env []string, argv ...string) cliResult {
	t.Helper()
	// A bound on a hang, not a time a run should take: at SCHED_IDLE beside
	// the timed lane, the demo's sweep and a remote-write run outlasted 60 s.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpbench: %v", err)
	}
	return cliResult{code, out.String(), errb.String()}
}

func startTarget(t *testing.T, cfg target.Config) *target.Running {
	t.Helper()
	srv, err := target.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// oneCleanLine checks that an error was reported as one line with no
// panic or stack trace.
func oneCleanLine(t *testing.T, r cliResult) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 || strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("want one line on stderr, got:\n%s", r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 3})
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>not mcp</title>")
	}))
	defer html.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	cases := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"bad flag", []string{"run", "--url", srv.MCPURL(), "--bogus"}, 2, "unknown flag"},
		{"no url", []string{"run", "-n", "5"}, 2, "--url is required"},
		{"zero workers", []string{"run", "--url", srv.MCPURL(), "-c", "0"}, 2, "-c/--concurrency 0: must be from 1 to 1000000"},
		{"bad duration", []string{"run", "--url", srv.MCPURL(), "-d", "ten"}, 2, "want a duration such as 500ms"},
		{"bad args", []string{"run", "--url", srv.MCPURL(), "--method", "tools/call", "--tool", "echo", "--args", "{nope"}, 2, "not a JSON object"},
		{"bad header", []string{"run", "--url", srv.MCPURL(), "-H", "no colon here"}, 2, "bad --header"},
		{"bad scheme", []string{"run", "--url", "ftp://127.0.0.1/mcp"}, 2, "scheme"},
		{"unknown engine", []string{"run", "--url", srv.MCPURL(), "--engine", "turbo", "-n", "5"}, 2, "unknown engine"},
		{"bad revision", []string{"run", "--url", srv.MCPURL(), "--protocol-version", "2099-01-01", "-n", "5"}, 2, "unsupported protocol version"},
		{"revision without SSE", []string{"run", "--url", srv.SSEURL(), "--transport", "sse", "--protocol-version", "2026-07-28", "-n", "5"}, 2, "no HTTP+SSE"},
		{"unreachable", []string{"run", "--url", closedURL + "/mcp", "-n", "5"}, 3, "connect"},
		{"not MCP", []string{"run", "--url", html.URL + "/mcp", "-n", "5"}, 3, "MCP"},
		{"tool errors fail the gate", []string{"run", "--url", srv.MCPURL(), "-n", "20", "--method", "tools/call", "--tool", "fail", "-q"}, 1, ""},
		{"allowed errors pass", []string{"run", "--url", srv.MCPURL(), "-n", "20", "--method", "tools/call", "--tool", "fail", "-q", "--allow-request-errors"}, 0, ""},
		{"ok", []string{"run", "--url", srv.MCPURL(), "-n", "20", "-q"}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, c.args...)
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
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"run", "serve", "logscan", "version"} {
		r := runCLI(t, nil, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "mcpbench "+cmd) {
			t.Errorf("%s --help: exit %d, output %q", cmd, r.code, r.stdout)
		}
	}
}

// TestRunReportFields checks the run JSON has every field the contract
// names, with counts that add up.
func TestRunReportFields(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 3})
	dir := t.TempDir()
	jsonPath, mdPath := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.md")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "4", "-n", "200", "--json-out", jsonPath, "--md-out", mdPath)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "200 ok") {
		t.Errorf("summary: %s", r.stdout)
	}
	var m map[string]any
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "mcpbench_version", "started_at", "target", "concurrency", "rate", "total",
		"requests", "ok", "errors", "error_rate", "errors_by_kind", "elapsed_s", "rps", "min_ms", "mean_ms",
		"p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "bytes_sent", "bytes_received", "histogram", "client"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if m["schema"] != "mcpbench.run/v1" || m["requests"].(float64) != 200 || m["ok"].(float64) != 200 || m["rate"] != nil {
		t.Errorf("schema %v requests %v ok %v rate %v", m["schema"], m["requests"], m["ok"], m["rate"])
	}
	tg := m["target"].(map[string]any)
	for _, k := range []string{"url", "transport", "protocol_version", "server_name", "server_version"} {
		if s, _ := tg[k].(string); s == "" {
			t.Errorf("target.%s empty", k)
		}
	}
	cl := m["client"].(map[string]any)
	if cl["pool_max_conns"].(float64) != 4 || cl["pool_waits"].(float64) != 0 {
		t.Errorf("client %v: want a pool of 4 and no waits", cl)
	}
	md, _ := os.ReadFile(mdPath)
	if !strings.Contains(string(md), "| p50 ms") {
		t.Errorf("markdown has no latency table:\n%s", md)
	}
	// --json-out - puts JSON alone on stdout.
	r = runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "10", "--json-out", "-")
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("stdout is not JSON alone: %v\n%s", err, r.stdout)
	}
}

// interruptWritesReport (in TestServerBound) sends SIGINT mid-run: the
// report of what was measured is written, marked interrupted, and the
// exit code is 130.
func interruptWritesReport(t *testing.T) {
	srv := startTarget(t, target.Config{ServiceTime: 5 * time.Millisecond})
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "run.json")
	cmd := exec.Command(binary, "run", "--url", srv.MCPURL(), "-c", "4", "-d", "60s", "--json-out", jsonPath, "-q")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("mcpbench did not stop within 20 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, errb.String())
	}
	var m map[string]any
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("no report written: %v", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["interrupted"] != true || m["requests"].(float64) < 10 || m["errors"].(float64) != 0 {
		t.Fatalf("interrupted %v requests %v errors %v", m["interrupted"], m["requests"], m["errors"])
	}
}
