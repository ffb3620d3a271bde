package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/results"
)

// vmRSS is a process's resident memory from /proc, in bytes.
func vmRSS(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// TestAbandonedSessionMemory: sessions abandoned against the bundled
// server (with --leak-sessions, the per-session cost), sampled with
// --server-pid. The report's memory per
// abandoned session (its fit of rss_bytes against the abandoned count)
// must agree within 20% with the RSS growth over the run divided by the
// sessions, read from /proc by the test around the run, after a warm-up
// run has grown the server's heap to its working size.
//
// Serial, in make test's timed lane, like the Node server's below: starved
// in the untimed lane, the fit had 61 samples and came out 27% above /proc.
func TestAbandonedSessionMemory(t *testing.T) {
	url, pid := serveProcess(t, "--leak-sessions")
	abandonedMemory(t, url+"/mcp", pid, 300, 3000)
}

// TestAbandonedSessionMemoryEverything: the same against server-everything,
// which keeps about 100 KB per session it is never told to end. Node's
// RSS moves with V8's collections as much as with what the server keeps:
// by default the young generation (up to 16 MB a semi-space) fills and
// empties, and the heap grows by V8's own schedule, so /proc's growth
// over 500 sessions came out at 130 KB, then 228 KB, then 130 KB per
// session, 10% to 23% from the fit. With a 1 MB semi-space and
// V8's predictable collection schedule (node's own flags: the server is
// unchanged), seven runs of 500 sessions on the loaded machine gave
// 96-101 KB from /proc and fits 3.5-13% above it, r² 0.98-0.99; 300
// sessions put one fit 18% below, too near the bound. It runs alone (3.6
// s): beside the parallel tests it took 24 s, its fit had 3 points (r²
// 0.82) and came out 70% below /proc, on main at load 7 and here at 4.
func TestAbandonedSessionMemoryEverything(t *testing.T) {
	url, pid := everythingProcess(t, "--max-semi-space-size=1", "--predictable-gc-schedule")
	abandonedMemory(t, url, pid, 100, 500)
}

// abandonedMemory samples the server every 100 ms: at 250 ms a run of a
// second on a loaded machine gave the fit 3 points, and it came out 32%
// below /proc; at 100 ms three runs each gave 33-41 points, r² 0.99.
//
// A fit with r² under 0.9 measured nothing but the machine (beside the
// untimed lane's loopback traffic one had r² 0.17), and so did one on a
// fresh clone's cold build (17 points, 73 against 106 kB from /proc):
// such a run is made once more, and the second must agree.
func abandonedMemory(t *testing.T, url string, pid, warm, sessions int) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scenario, []byte("scenarios: [{name: s, steps: [list, {call: {tool: echo, args: {message: hi}}}]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--url", url, "--scenario", scenario, "--users", "2"}
	if r := runSoak("warm", dir, append(base, "--max-sessions", strconv.Itoa(warm))...); r.err != nil || r.code != 0 {
		t.Fatalf("warm-up: exit %d %v %s", r.code, r.err, r.stderr)
	}
	var a *results.AbandonedMemory
	var n int64
	var independent float64
	agree := func() bool { return math.Abs(a.BytesPerSession-independent) <= 0.2*independent }
	for try := 0; try < 2 && (a == nil || a.R2 < 0.9 || !agree()); try++ {
		rss0 := vmRSS(t, pid)
		r := runSoak("abandon", dir, append(base, "--max-sessions", strconv.Itoa(sessions), "--abandon-sessions", "1",
			"--server-pid", strconv.Itoa(pid), "--interval", "100ms")...)
		rss1 := vmRSS(t, pid)
		if r.err != nil || r.code != 0 {
			t.Fatalf("exit %d %v %s", r.code, r.err, r.stderr)
		}
		n, a = r.report.Sessions.Abandoned, r.report.AbandonedMemory
		if n != int64(sessions) || a == nil {
			t.Fatalf("%d sessions abandoned (want %d), memory %+v", n, sessions, a)
		}
		independent = (rss1 - rss0) / float64(n)
		t.Logf("report: %.0f bytes per abandoned session (95%% %.0f to %.0f, r² %.2f, %d points); /proc: %.0f bytes (%.1f MB over %d sessions)",
			a.BytesPerSession, a.Low, a.High, a.R2, a.Points, independent, (rss1-rss0)/1e6, n)
	}
	if !agree() {
		t.Fatalf("the report's %.0f bytes per session is more than 20%% from the %.0f measured from /proc", a.BytesPerSession, independent)
	}
	if !a.Material || !strings.Contains(a.Verdict, "per abandoned session") {
		t.Fatalf("no verdict for a server that keeps every abandoned session: %+v", a)
	}
}
