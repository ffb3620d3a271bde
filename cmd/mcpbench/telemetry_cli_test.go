package main

import (
	"encoding/json"
	"fmt"
	"io"
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
	return readWith(t, path, results.ReadRunReport)
}

// readWith reads the file at path with read.
func readWith[T any](t *testing.T, path string, read func(io.Reader) (T, error)) T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// outJSONSurvivesSIGKILL (in TestServerBound): a 30 s run killed with
// SIGKILL 10.5 s into its measured window (what the OOM killer or a CI
// timeout does) leaves a JSON Lines file that holds every interval that
// had ended, the tenth included (a bucket is written a grace after its
// end, so only the one in progress is lost), and the report rebuilt from
// it counts what the server's /health had counted when the tenth interval
// ended. A 10 ms answer keeps the load near 400 calls/s, a tenth of a
// core, so the tests beside it keep theirs.
func outJSONSurvivesSIGKILL(t *testing.T) {
	const conns = 4
	srv := startTarget(t, target.Config{ServiceTime: 10 * time.Millisecond})
	dir := t.TempDir()
	file := filepath.Join(dir, "run.jsonl")
	cmd := exec.Command(binary, append([]string{"run", "--url", srv.MCPURL(), "-c", "4", "-d", "30s",
		"--out", "json=" + file, "-q", "--no-progress"}, echoCalls...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The first interval line gives the window's opening to the
	// nanosecond: /health is read as the tenth interval ends, and the
	// kill comes half an interval later.
	start := firstIntervalStart(t, file)
	time.Sleep(time.Until(start.Add(10 * time.Second)))
	served10 := toolCalls(t, srv)
	time.Sleep(time.Until(start.Add(10*time.Second + 500*time.Millisecond)))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := telemetry.ReadJSONL(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Complete() || rec.Intervals() != 10 {
		t.Fatalf("complete %v, %d intervals: want a cut file with the 10 that had ended", rec.Complete(), rec.Intervals())
	}
	out := filepath.Join(dir, "rebuilt.json")
	if r := runCLI(t, nil, "report", file, "--json-out", out, "--html-out", filepath.Join(dir, "r.html"), "-q"); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	r := readRunReport(t, out)
	if !r.Interrupted || r.Errors != 0 || r.Series == nil || r.Series.Len() != 10 || !r.Series.StartedAt.Equal(start) {
		t.Fatalf("rebuilt report: interrupted %v, errors %d, series %v", r.Interrupted, r.Errors, r.Series)
	}
	var most int64
	for i := range r.Series.Len() {
		most = max(most, r.Series.Requests(i))
	}
	// The server counts a call as it answers, the client as the answer
	// arrives: they differ by the calls in flight at the boundary, and by
	// what the /health read's own delay let through (20 ms' worth).
	diff := served10 - r.Requests
	t.Logf("server %d tools/call at the end of interval 10, rebuilt report %d in %d intervals (the busiest %d)", served10, r.Requests, r.Series.Len(), most)
	if diff < -conns || diff > conns+most/50 {
		t.Fatalf("the server had answered %d when the tenth interval ended, the rebuilt report counts %d", served10, r.Requests)
	}
}

// firstIntervalStart waits for the file's first interval line and
// returns its start.
func firstIntervalStart(t *testing.T, file string) time.Time {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		for _, line := range strings.Split(string(b), "\n") {
			var iv struct {
				Type  string    `json:"type"`
				Start time.Time `json:"start"`
			}
			if json.Unmarshal([]byte(line), &iv) == nil && iv.Type == "interval" {
				return iv.Start
			}
		}
	}
	t.Fatal("no interval line within 15 s")
	return time.Time{}
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

// TestOutJSONEvents: the file tells the set-up's steps (the log's
// settling, the warm-up), each load stage of --stages, each gate as the
// exit code saw it, with its figure (report keeps the gates), and an
// interruption.
func TestOutJSONEvents(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond})
	dir := t.TempDir()
	file, logPath := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "server.log")
	_ = os.WriteFile(logPath, nil, 0o644)
	r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "--stages", "1s:2,1s:1", "--warmup", "10", "-q",
		"--log-file", logPath, "--log-settle", "0", "--p99-slo-ms", "0.001", "--fail-on-slo", "--out", "json=" + file}, echoCalls...)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the p99 gate): %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		Type      string
		Event     string
		Stage     string
		LoadStage *struct {
			Index  int
			StartS float64 `json:"start_s"`
			Target float64
		} `json:"load_stage"`
		Gate *results.Gate
	}
	var got []string
	var gate *results.Gate
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Event == "stage":
			got = append(got, e.Stage)
		case e.LoadStage != nil:
			got = append(got, fmt.Sprintf("load_stage %d at %gs to %g", e.LoadStage.Index, e.LoadStage.StartS, e.LoadStage.Target))
		case e.Gate != nil:
			if strings.Contains(e.Gate.Name, "p99") {
				gate = e.Gate
			}
		case e.Type == "event" || e.Type == "summary":
			got = append(got, e.Event+e.Type)
		}
	}
	want := "connecting log_settle workload setup_done warm_up measure_startevent load_stage 0 at 0s to 2 load_stage 1 at 1s to 1 load_doneevent measure_endevent summary"
	if s := strings.Join(got, " "); s != want {
		t.Fatalf("events:\n%s\nwant\n%s", s, want)
	}
	if gate == nil || gate.Passed || gate.Limit != 0.001 || gate.Value <= 0.001 {
		t.Fatalf("gate %+v: want the failed p99 with its figure", gate)
	}
	out := filepath.Join(dir, "r.json")
	if r := runCLI(t, nil, "report", file, "--json-out", out, "-q"); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	if rep := readRunReport(t, out); len(rep.Gates) == 0 || rep.Gates[len(rep.Gates)-1].Passed {
		t.Fatalf("the report from the file has gates %+v", rep.Gates)
	}
	// An interruption (here --abort-on's, after the first interval) is an
	// event before the summary.
	r = runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-c", "2", "-d", "10s", "-q", "--abort-on", "p99>0.001ms",
		"--json-out", filepath.Join(dir, "aborted.json"), "--out", "json=" + file}, echoCalls...)...)
	b, _ = os.ReadFile(file)
	if r.code != 1 || !strings.Contains(string(b), `"event":"interrupted"`) {
		t.Fatalf("aborted run: exit %d, file:\n%s", r.code, b)
	}
}
