package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/target"
)

type logWindowReport struct {
	Requests int64               `json:"requests"`
	OK       int64               `json:"ok"`
	LogScan  *logscan.WindowScan `json:"log_scan"`
}

func runLogged(t *testing.T, logPath string, args ...string) logWindowReport {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, append(args, "--log-file", logPath, "--json-out", out, "--no-progress")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep logWindowReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.LogScan == nil || rep.LogScan.Coverage == nil {
		t.Fatalf("no log_scan coverage in %s", b)
	}
	return rep
}

// TestLogWindowCountsTheTail: the run waits for the stats line written
// after its last answer, so the server's own count of the window equals
// what was sent (it read the log too early before and saw 918 of 1,000).
func TestLogWindowCountsTheTail(t *testing.T) {
	srv, logPath := startLoggedTarget(t, target.Config{Tools: 2})
	rep := runLogged(t, logPath, "run", "--url", srv.URL, "-c", "8", "-n", "1000")
	cov := rep.LogScan.Coverage
	if rep.OK != 1000 || rep.LogScan.Delta.Requests != 1000 {
		t.Fatalf("sent %d ok, the log counted %d: want 1000 both", rep.OK, rep.LogScan.Delta.Requests)
	}
	if !cov.Complete || !cov.TailSeen || cov.CoveredS != cov.MeasuredS {
		t.Fatalf("coverage %+v: want the whole window covered", *cov)
	}
}

// TestLogWindowSlowInterval: stats lines every 2 s and a 1 s run. With a
// wait the tail line is read and the count is exact; without one the
// report says the window is partial rather than undercount silently.
func TestLogWindowSlowInterval(t *testing.T) {
	t.Parallel()
	srv, logPath := startLoggedTargetEvery(t, target.Config{Tools: 2}, 2*time.Second)
	load := []string{"run", "--url", srv.URL, "--rate", "200", "-n", "200"}

	waited := runLogged(t, logPath, append(load, "--log-settle", "3s")...)
	if cov := waited.LogScan.Coverage; !cov.Complete || waited.LogScan.Delta.Requests != waited.Requests {
		t.Fatalf("with the wait: log counted %d of %d sent, coverage %+v", waited.LogScan.Delta.Requests, waited.Requests, *cov)
	}

	quick := runLogged(t, logPath, append(load, "--log-settle", "0")...)
	cov := quick.LogScan.Coverage
	if cov.Complete || cov.TailSeen || cov.SettledS > 0.5 {
		t.Fatalf("without the wait: coverage %+v, want partial and no wait", *cov)
	}
	if cov.CoveredS >= cov.MeasuredS {
		t.Fatalf("without the wait: covered %.2f s of %.2f s, want less", cov.CoveredS, cov.MeasuredS)
	}
}
