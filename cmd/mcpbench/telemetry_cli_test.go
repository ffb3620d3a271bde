package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/telemetry"
)

// echoCalls is a tools/call workload the bundled server counts apart
// from the handshake and the listing.
var echoCalls = []string{"--method", "tools/call", "--tool", "echo", "--args", `{"message":"x"}`}

// readRunReport reads a run report file a test's command wrote.
func readRunReport(t *testing.T, path string) *results.RunReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := results.ReadRunReport(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// TestOutJSONSurvivesSIGKILL: a 30 s run killed with SIGKILL after 10 s
// (what the OOM killer or a CI timeout does) leaves a JSON Lines file of
// at least nine intervals, and the report rebuilt from it counts what the
// server answered, but for what came after the last interval written (a
// bucket is written once it has had an interval for its stragglers, so
// the one in progress and the one before it).
func TestOutJSONSurvivesSIGKILL(t *testing.T) {
	// Not parallel: the loss it allows is the busiest interval's rate over
	// the window cut off, and beside other runs the rate jumps about.
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond})
	dir := t.TempDir()
	file := filepath.Join(dir, "run.jsonl")
	cmd := exec.Command(binary, append([]string{"run", "--url", srv.MCPURL(), "-c", "4", "-d", "30s",
		"--out", "json=" + file, "-q", "--no-progress"}, echoCalls...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Ten seconds of the run: from the opening of its measured window,
	// which the file marks, and a little over, as a kill never falls on
	// a bucket's boundary.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(file); strings.Contains(string(b), `"measure_start"`) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(10*time.Second + 300*time.Millisecond)
	killedAt := time.Now()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	time.Sleep(100 * time.Millisecond) // answers already on the wire reach the server's count
	served := toolCalls(t, srv)

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := telemetry.ReadJSONL(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Complete() || rec.Intervals() < 9 {
		t.Fatalf("complete %v, %d intervals: want a cut file with at least 9", rec.Complete(), rec.Intervals())
	}
	out := filepath.Join(dir, "rebuilt.json")
	if r := runCLI(t, nil, "report", file, "--json-out", out, "--html-out", filepath.Join(dir, "r.html"), "-q"); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	r := readRunReport(t, out)
	if !r.Interrupted || r.Errors != 0 || r.Series == nil || r.Series.Len() != rec.Intervals() {
		t.Fatalf("rebuilt report: interrupted %v, errors %d, series %v", r.Interrupted, r.Errors, r.Series)
	}
	var most int64
	for i := range r.Series.Len() {
		most = max(most, r.Series.Requests(i))
	}
	// The server saw what the file counts, plus what it answered between
	// the end of the last interval written and the kill: nothing written
	// is lost, and what is lost is that window's worth (a bucket is
	// written once it has had an interval for its stragglers, so the
	// window is one to two intervals).
	n := r.Series.Len()
	window := killedAt.Sub(r.Series.StartedAt.Add(time.Duration(r.Series.EndS(n-1) * float64(time.Second)))).Seconds()
	lost := served - r.Requests
	t.Logf("server %d tools/call, rebuilt report %d in %d intervals (the busiest %d): %d lost with the kill, %.2f s after the last interval written",
		served, r.Requests, n, most, lost, window)
	if lost < 0 || float64(lost) > float64(most)*window*1.25 {
		t.Fatalf("the server answered %d, the rebuilt report counts %d: %d more than %.2f s at %d/s", served, r.Requests, lost, window, most)
	}
}

// TestReportFromJSONL: a finished run's file holds its report whole, and
// the report rebuilt from its intervals alone (the summary cut off) has
// the same counts and histogram, but for answers filed more than an
// interval late, which only the report counts. Input that is not such a
// file is exit 2 in one line.
func TestReportFromJSONL(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond})
	dir := t.TempDir()
	file, direct := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.json")
	if r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-c", "2", "-d", "2s", "-q",
		"--json-out", direct, "--out", "json=" + file}, echoCalls...)...); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	want := readRunReport(t, direct)
	whole := filepath.Join(dir, "whole.json")
	if r := runCLI(t, nil, "report", file, "--json-out", whole, "-q"); r.code != 0 || r.stderr != "" {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	if got := readRunReport(t, whole); got.Requests != want.Requests || got.Histogram != want.Histogram || got.P99MS != want.P99MS {
		t.Fatalf("from the summary: %d requests, p99 %v; the run's report %d, %v", got.Requests, got.P99MS, want.Requests, want.P99MS)
	}
	b, _ := os.ReadFile(file)
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	cut := filepath.Join(dir, "cut.jsonl")
	// The summary goes, and half of the line before it, as a kill leaves.
	last := lines[len(lines)-2]
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)-2], "")+last[:len(last)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	rebuilt := filepath.Join(dir, "rebuilt.json")
	r := runCLI(t, nil, "report", cut, "--json-out", rebuilt, "-q")
	if r.code != 0 || !strings.Contains(r.stderr, "rebuilt from its") {
		t.Fatalf("report of a cut file: exit %d: %s", r.code, r.stderr)
	}
	got := readRunReport(t, rebuilt)
	late := want.Requests - got.Requests
	t.Logf("the run's report %d requests, rebuilt %d (%d filed late); p99 %v and %v", want.Requests, got.Requests, late, want.P99MS, got.P99MS)
	if !got.Interrupted || late < 0 || late*1000 > want.Requests || got.Series.Len() != want.Series.Len() {
		t.Fatalf("rebuilt: interrupted %v, %d requests of %d, %d buckets of %d", got.Interrupted, got.Requests, want.Requests, got.Series.Len(), want.Series.Len())
	}
	if late == 0 && (got.Histogram != want.Histogram || got.P99MS != want.P99MS || got.OK != want.OK) {
		t.Fatalf("same count but not the same histogram: p99 %v, want %v", got.P99MS, want.P99MS)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	_ = os.WriteFile(bad, []byte(`{"schema":"mcpbench.run/v1"}`+"\n"), 0o644)
	r = runCLI(t, nil, "report", bad, "--json-out", filepath.Join(dir, "x.json"))
	if r.code != 2 {
		t.Fatalf("a file that is not JSON Lines: exit %d, want 2: %s", r.code, r.stderr)
	}
	oneCleanLine(t, r)
}

// TestOutFlagsRefuseBadInput: a bad --out, --out-label or --trace is exit
// 2 in one line before anything is sent; a label never carries a
// credential.
func TestOutFlagsRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--out", "bogus=x"}, "unknown output"},
		{nil, []string{"--out", "json"}, "want NAME=TARGET"},
		{nil, []string{"--out", "prometheus-rw=ftp://x"}, "http:// or https://"},
		{nil, []string{"--out", "json=" + filepath.Join(dir, "a.jsonl"), "--out-label", "le=3"}, "sets itself"},
		{nil, []string{"--out", "json=" + filepath.Join(dir, "a.jsonl"), "--out-label", "bad-name=3"}, "want NAME=VALUE"},
		{nil, []string{"--out-label", "team=a"}, "goes with --out"},
		{nil, []string{"--trace=2"}, "--trace"},
		{[]string{"MCPBENCH_TOKEN=s3cr3t-token"}, []string{"--out", "json=" + filepath.Join(dir, "a.jsonl"), "--out-label", "k=s3cr3t-token"}, "credential"},
	}
	for _, c := range cases {
		r := runCLI(t, c.env, append([]string{"run", "--url", "http://127.0.0.1:9/mcp", "-n", "10"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "s3cr3t") {
			t.Fatalf("%v: exit %d, stderr %q: want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		oneCleanLine(t, r)
	}
}
