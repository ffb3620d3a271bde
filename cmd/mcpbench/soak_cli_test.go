package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logfmt/logfmt"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/target"
)

// serveProcess starts `mcpbench serve` as a process of its own (so that
// --server-pid reads the server, not the test) and returns its base URL
// and pid; it is killed at the end of the test.
func serveProcess(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve said nothing: %v", err)
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("serve's first line: %q", line)
	}
	return strings.Fields(url)[0], cmd.Process.Pid
}

// soakRun is one `mcpbench run` of a soak scenario and what came of it.
type soakRun struct {
	name   string
	code   int
	stderr string
	report *results.RunReport
	err    error
}

// runSoak runs mcpbench with args plus a JSON report into dir, allowing
// for a minute of load.
func runSoak(name, dir string, args ...string) soakRun {
	res := soakRun{name: name}
	path := filepath.Join(dir, name+".json")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(args, "-q", "--json-out", path)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	res.stderr = errb.String()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		res.err = err
		return res
	}
	f, err := os.Open(path)
	if err != nil {
		res.err = fmt.Errorf("%v (stderr: %s)", err, res.stderr)
		return res
	}
	defer f.Close()
	res.report, res.err = results.ReadRunReport(f)
	return res
}

func verdictOf(r *results.RunReport, series string) *results.Verdict {
	for i, v := range r.Soak.Verdicts {
		if v.Series == series {
			return &r.Soak.Verdicts[i]
		}
	}
	return nil
}

func trendOf(t *testing.T, r *results.RunReport, series string) results.Trend {
	t.Helper()
	for _, tr := range r.Soak.Trends {
		if tr.Series == series {
			return tr
		}
	}
	t.Fatalf("no trend of %s in %+v", series, r.Soak.Trends)
	return results.Trend{}
}

// TestSoakVerdicts is the rehearsal the soak flags are for: 20 s of load
// in half-second buckets (as many points for the trends as a minute of
// one-second buckets gave, in a third of the time) on three servers at once, one leaking 20,000 bytes a request, one
// not leaking, one keeping every session its clients end. The leak must
// be found through /proc and through the Prometheus endpoint, at a slope
// within 20% of what was injected; the healthy server must get no leak
// verdict; the kept sessions must show in the server's series and be
// flagged. The three run side by side: about 25 s in all.
//
// Serial, in make test's timed lane: the open loop's rate must be kept for
// the healthy server to stay flat. Starved in the untimed lane beside the
// differential matrix it sent 35 of its 50 requests a second, the backlog
// grew the healthy server by 7.4 MB in 20 s and it was called a leak.
func TestSoakVerdicts(t *testing.T) {
	const leakBytes = 20_000
	const soakFor, sessionRate = 20 * time.Second, 20
	dir := t.TempDir()
	leakURL, leakPID := serveProcess(t, "--leak-per-request", strconv.Itoa(leakBytes))
	okURL, okPID := serveProcess(t)
	sessURL, sessPID := serveProcess(t, "--leak-sessions")
	call := []string{"--method", "tools/call", "--tool", "echo", "--args", `{"message":"soak"}`, "-d", soakFor.String(), "--interval", "500ms", "--fail-on-leak"}
	scenarios := [][]string{
		append([]string{"run", "--url", leakURL + "/mcp", "--rate", "50", "--server-pid", strconv.Itoa(leakPID), "--server-metrics", leakURL + "/metrics"}, call...),
		append([]string{"run", "--url", okURL + "/mcp", "--rate", "50", "--server-pid", strconv.Itoa(okPID), "--server-metrics", okURL + "/metrics"}, call...),
		append([]string{"run", "--url", sessURL + "/mcp", "--rate", strconv.Itoa(sessionRate), "--session", "per-request", "--server-pid", strconv.Itoa(sessPID),
			"--server-metrics", sessURL + "/metrics", "--server-metric", "mcpbench_serve_sessions"}, call...),
	}
	names := []string{"leak", "healthy", "sessions"}
	runs := make([]soakRun, len(scenarios))
	var wg sync.WaitGroup
	for i, args := range scenarios {
		wg.Add(1)
		go func() { defer wg.Done(); runs[i] = runSoak(names[i], dir, args...) }()
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil || r.report == nil || r.report.Soak == nil {
			t.Fatalf("%s: %v (exit %d)\n%s", r.name, r.err, r.code, r.stderr)
		}
		t.Logf("%s: exit %d, %d requests at %.1f rps, verdicts %+v", r.name, r.code, r.report.Requests, r.report.RPS, r.report.Soak.Verdicts)
	}
	leak, healthy, sessions := runs[0], runs[1], runs[2]

	// The leak, through /proc and through /metrics, at the injected rate.
	want := leak.report.RPS * leakBytes
	for _, series := range []string{"server:rss_bytes", "server:process_resident_memory_bytes"} {
		if v := verdictOf(leak.report, series); v == nil || !v.Leak || !strings.Contains(v.Text, "likely leak") {
			t.Errorf("leak: no leak verdict on %s: %+v", series, leak.report.Soak.Verdicts)
		}
		got := trendOf(t, leak.report, series).SlopePerH / 3600
		if math.Abs(got-want) > 0.2*want {
			t.Errorf("leak: %s grew %.0f B/s, injected %.0f B/s (%.1f rps × %d)", series, got, want, leak.report.RPS, leakBytes)
		} else {
			t.Logf("leak: %s grew %.0f B/s, injected %.0f B/s (%+.1f%%)", series, got, want, 100*(got-want)/want)
		}
	}
	if leak.code != exitGate {
		t.Errorf("leak with --fail-on-leak: exit %d, want %d", leak.code, exitGate)
	}

	// The healthy server: its series were trended, and found no leak.
	if n := healthy.report.Soak.Leaks(); n != 0 || healthy.code != exitOK {
		t.Errorf("healthy: exit %d, %d leak verdicts: %+v", healthy.code, n, healthy.report.Soak.Verdicts)
	}
	trendOf(t, healthy.report, "server:rss_bytes")
	trendOf(t, healthy.report, "server:process_resident_memory_bytes")

	// The kept sessions: in the series, and flagged.
	col := serverColumn(t, sessions.report, "mcpbench_serve_sessions")
	// At least two fifths of the sessions begun, the share the minute-long
	// version asked for (500 of 1,200).
	if first, last := col[0], col[len(col)-1]; last-first < 0.4*sessionRate*soakFor.Seconds() {
		t.Errorf("sessions: the open-session series went from %v to %v over %v at %d new sessions/s", first, last, soakFor, sessionRate)
	}
	if v := verdictOf(sessions.report, "server:mcpbench_serve_sessions"); v == nil || !v.Leak || sessions.code != exitGate {
		t.Errorf("sessions: exit %d, verdicts %+v", sessions.code, sessions.report.Soak.Verdicts)
	}
	if healthyCol := serverColumn(t, healthy.report, "go_goroutines"); len(healthyCol) == 0 {
		t.Error("healthy: no go_goroutines series")
	}
}

// serverColumn is the values of the named server series.
func serverColumn(t *testing.T, r *results.RunReport, name string) []float64 {
	t.Helper()
	for _, g := range r.Series.Server {
		if g.Name == name {
			return g.Values
		}
	}
	t.Fatalf("no server series %s", name)
	return nil
}

// TestLiveLines: --live writes one logfmt line per interval, and a late
// line for answers filed after theirs, whose request counts add up to the
// report's.
func TestLiveLines(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	url, pid := serveProcess(t)
	dir := t.TempDir()
	r := runSoak("live", dir, "run", "--url", url+"/mcp", "-c", "2", "-d", "2s", "--interval", "250ms", "--live", "--server-pid", strconv.Itoa(pid))
	if r.err != nil || r.code != exitOK {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	dec := logfmt.NewDecoder(strings.NewReader(r.stderr))
	var lines, late, requests int64
	for dec.ScanRecord() {
		fields := map[string]string{}
		for dec.ScanKeyval() {
			fields[string(dec.Key())] = string(dec.Value())
		}
		if fields["mcpbench"] != "run" {
			t.Fatalf("not a live line: %v", fields)
		}
		n, err := strconv.ParseInt(fields["requests"], 10, 64)
		if fields["late"] == "true" {
			late++
		} else if err != nil || fields["rss_bytes"] == "" || fields["p99_ms"] == "" {
			t.Fatalf("live line %v", fields)
		} else {
			lines++
		}
		requests += n
	}
	if dec.Err() != nil {
		t.Fatal(dec.Err())
	}
	if lines != int64(r.report.Series.Len()) || requests != r.report.Requests {
		t.Errorf("%d live lines and %d late with %d requests; the series has %d buckets, the report %d requests", lines, late, requests, r.report.Series.Len(), r.report.Requests)
	}
}

// TestLiveLateLine: answers filed in a bucket after its line was printed
// get a line of their own, marked late, with their counts.
func TestLiveLateLine(t *testing.T) {
	var out bytes.Buffer
	l := liveLines{e: env{stderr: &out}, cmd: "run"}
	l.Late(harness.PointInterval{Interval: bench.Interval{Index: 3, End: 4 * time.Second, Requests: 2, Errors: 1}})
	if got, want := out.String(), "mcpbench=run t=4s late=true requests=2 errors=1\n"; got != want {
		t.Fatalf("late line %q, want %q", got, want)
	}
}

func TestSeriesFlagErrors(t *testing.T) {
	srv := startTarget(t, target.Config{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "0s"}, "--interval 0s: must be from 10ms to 24h0m0s"},
		{[]string{"--server-metric", "x"}, "--server-metric goes with --server-metrics"},
		{[]string{"--fail-on-leak"}, "--fail-on-leak needs a server series"},
		{[]string{"--server-pid", "999999999"}, "--server-pid: process 999999999"},
		{[]string{"--server-metrics", "http://127.0.0.1:1/metrics"}, "--server-metrics:"},
		{[]string{"--server-metrics", srv.URL + "/metrics", "--server-metric", "no_such_metric"}, "metric no_such_metric is not among"},
	} {
		r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-n", "5"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, exitUsage, tc.want)
			continue
		}
		oneCleanLine(t, r)
	}
}

// TestSeriesInReport: a plain run carries its series and a soak section;
// the report's JSON keeps the columns on one line each.
func TestSeriesInReport(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	srv := startTarget(t, target.Config{})
	path := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "2", "-d", "1500ms", "--interval", "500ms", "-q", "--json-out", path)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Series struct {
			IntervalS float64 `json:"interval_s"`
			OK        []int64 `json:"ok"`
		} `json:"series"`
		OK   int64           `json:"ok"`
		Soak json.RawMessage `json:"soak"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, n := range rep.Series.OK {
		sum += n
	}
	if rep.Series.IntervalS != 0.5 || len(rep.Series.OK) < 3 || sum != rep.OK || len(rep.Soak) == 0 {
		t.Errorf("series %+v (sum %d, ok %d), soak %s", rep.Series, sum, rep.OK, rep.Soak)
	}
	if !bytes.Contains(raw, []byte(`"ok": [`)) || bytes.Contains(raw, []byte("\"ok\": [\n")) {
		t.Error("the ok column is not on one line")
	}
}
