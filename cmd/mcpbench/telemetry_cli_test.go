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

// TestOutJSONSurvivesSIGKILL: a 30 s run killed with SIGKILL after 10 s
// (what the OOM killer or a CI timeout does) leaves a JSON Lines file of
// at least nine intervals, and the report rebuilt from it counts what the
// server answered, but for what came after the last interval written (a
// bucket is written once it has had an interval for its stragglers, so
// the one in progress and the one before it).
func TestOutJSONSurvivesSIGKILL(t *testing.T) {
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
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.ReadRunReport(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Errors != 0 || r.Series == nil || r.Series.Len() != rec.Intervals() {
		t.Fatalf("rebuilt report: interrupted %v, errors %d, series %v", r.Interrupted, r.Errors, r.Series)
	}
	var most int64
	for i := range r.Series.Len() {
		most = max(most, r.Series.Requests(i))
	}
	// The server saw what the file counts, plus what was answered after
	// the last interval written: killed just after a bucket was written,
	// the interval in progress, at most one interval's worth.
	lost := served - r.Requests
	t.Logf("server %d tools/call, rebuilt report %d in %d intervals (the busiest %d): %d lost with the kill", served, r.Requests, rec.Intervals(), most, lost)
	if lost < 0 || lost > most {
		t.Fatalf("the server answered %d, the rebuilt report counts %d: want at most one interval (%d) apart", served, r.Requests, most)
	}
}
