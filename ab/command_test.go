//go:build linux

package ab

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/abstat"
)

// serverLine is the shell line that starts this test binary as a server;
// behind, a child of the shell (which waits for it) rather than the
// shell's last command, which a shell may exec in its own place.
func serverLine(burnUS int, behind bool) string {
	line := fmt.Sprintf("AB_TEST_SERVER_PORT={port} AB_TEST_BURN_US=%d %q", burnUS, os.Args[0])
	if behind {
		line += " & wait"
	}
	return line
}

// httpMeasure sends n requests one at a time (5 for a warm-up) and reports
// their figures.
func httpMeasure(n int) Measure {
	return func(ctx context.Context, _ Side, t Target, warmup bool, _ *Slices) (Figures, error) {
		count := n
		if warmup {
			count = 5
		}
		var lat []float64
		start := time.Now()
		for range count {
			began := time.Now()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return Figures{}, err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lat = append(lat, float64(time.Since(began).Microseconds())/1000)
		}
		slices.Sort(lat)
		at := func(q float64) float64 { return lat[int(q*float64(len(lat)-1))] }
		return Figures{
			Requests: int64(count), Throughput: float64(count) / time.Since(start).Seconds(),
			P50MS: at(0.5), P95MS: at(0.95), P99MS: at(0.99),
		}, nil
	}
}

// TestExperimentOnProcesses runs an experiment end to end on two real
// processes started from commands with {port}: B spends 1 ms more CPU per
// request, and runs as a child of its shell. Their CPU per request, read
// from /proc over the process tree (for B, the shell and the server it
// started), is higher for B in every round,
// and the plan (Pocock, a look at 6 rounds of 8) calls that a regression
// at the first look, since 6 rounds out of 6 one way give p = 1/32.
// Each server's output is kept in its log, and Stop ends it.
func TestExperimentOnProcesses(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	start := func(name string, burnUS int, ready func(context.Context, *Server) error) *Server {
		s, err := Start(ctx, Command{Line: serverLine(burnUS, burnUS > 0), Log: filepath.Join(dir, name+".log"), Ready: ready})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Stop() })
		if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/mcp") {
			t.Errorf("%s: URL %q", name, s.URL)
		}
		return s
	}
	a := start("a", 0, nil)
	b := start("b", 1000, HealthReady("http://127.0.0.1:{port}/health"))
	res, err := Experiment{
		A: a.Target(), B: b.Target(), Measure: httpMeasure(100), Seed: 3,
		// One gated metric at alpha 0.025: tested at 0.05 two-sided.
		Plan:  abstat.Plan{Alpha: 0.025, MinRounds: 6, MaxRounds: 8, Spending: abstat.Pocock},
		Gated: []abstat.Metric{abstat.ServerCPUPerRequest},
	}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rounds {
		if r.A.ServerCPUPerRequest == nil || r.B.ServerCPUPerRequest == nil || *r.B.ServerCPUPerRequest <= *r.A.ServerCPUPerRequest {
			t.Errorf("round %d: server CPU per request A %v, B %v: want B's higher", r.Index, deref(r.A.ServerCPUPerRequest), deref(r.B.ServerCPUPerRequest))
		}
	}
	cpu := slices.IndexFunc(res.Regressions(), func(v abstat.Result) bool { return v.Metric == abstat.ServerCPUPerRequest })
	if len(res.Rounds) != 6 || res.Stopped != StopDecided || cpu < 0 {
		t.Errorf("%d rounds, stopped %q, verdicts %+v: want a regression in CPU per request after 6", len(res.Rounds), res.Stopped, res.Verdicts)
	}
	if err := b.Stop(); err != nil || b.exited() == nil {
		t.Errorf("stop: %v, exited %v", err, b.exited())
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "b.log")); !strings.Contains(string(log), "test server on port") {
		t.Errorf("b's log: %q", log)
	}
}

// TestStartFailures: a command that exits before it is ready fails with
// its output kept; one that never gets ready fails after ReadyTimeout; one
// with neither {port} nor a URL is refused.
func TestStartFailures(t *testing.T) {
	log := filepath.Join(t.TempDir(), "out.log")
	_, err := Start(context.Background(), Command{Line: "echo cannot bind {port}; exit 3", Log: log})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("exiting server: %v", err)
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "cannot bind") != tries {
		t.Errorf("log %q: want the output of %d tries on new ports", b, tries)
	}
	never := func(context.Context, *Server) error { return fmt.Errorf("not yet") }
	_, err = Start(context.Background(), Command{Line: "sleep 30 # {port}", Ready: never, ReadyTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "not ready after") {
		t.Errorf("never ready: %v", err)
	}
	if _, err := Start(context.Background(), Command{Line: "true"}); err == nil {
		t.Error("a command with no {port} and no URL was started")
	}
}

// TestPromCPU reads process_cpu_seconds_total from a Prometheus text page,
// and refuses a page without it.
func TestPromCPU(t *testing.T) {
	page := "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, page) }))
	defer srv.Close()
	p, err := NewPromCPU(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.CPUSeconds(context.Background()); err != nil || got != 12.5 {
		t.Errorf("got %v, %v, want 12.5", got, err)
	}
	page = "# TYPE go_goroutines gauge\ngo_goroutines 7\n"
	if _, err := NewPromCPU(context.Background(), srv.URL, nil); err == nil {
		t.Error("a page without process_cpu_seconds_total was taken")
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
