package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// rateSweepSustainable (in TestServerBound): 8 slots of 20 ms sustain at
// most 400 requests/s; with a 100 ms p99 target the refined rate sweep
// must land between 340 and 400.
func rateSweepSustainable(t *testing.T) {
	srv := startTarget(t, target.Config{Capacity: 8, ServiceTime: 20 * time.Millisecond})
	out := filepath.Join(t.TempDir(), "rates.json")
	r := runCLI(t, nil, "sweep", "--url", srv.MCPURL(), "--rate-range", "300:600:+100", "-d", "2s", "--refine",
		"--p99-slo-ms", "100", "--max-in-flight", "64", "--json-out", out, "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(out)
	var s struct {
		Points []struct {
			Rate  float64 `json:"rate"`
			RPS   float64 `json:"rps"`
			P99MS float64 `json:"p99_ms"`
		} `json:"points"`
		Recommendation struct {
			MaxSustainableRPS *float64 `json:"max_sustainable_rps"`
			Reason            string   `json:"reason"`
		} `json:"recommendation"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Points {
		t.Logf("offered %.0f achieved %.1f p99 %.1f ms", p.Rate, p.RPS, p.P99MS)
	}
	// The ceiling is 400; the achieved rate is itself a measurement, good
	// to about half a percent over a 2 s point, hence the 402.
	m := s.Recommendation.MaxSustainableRPS
	if m == nil {
		t.Fatalf("no max sustainable rps, want 340–400 (%s)", s.Recommendation.Reason)
	}
	if *m < 340 || *m > 402 {
		t.Fatalf("max sustainable rps %.1f, want 340–400 (%s)", *m, s.Recommendation.Reason)
	}
}

// TestStarvedGeneratorFlagged: a generator that shares its one CPU with a
// busy loop, asked for far more than it can send (ten times what wrk
// reaches on two cores), says its figures describe itself. Holding it to
// one core alone is no longer enough: it then keeps up with the server
// beside it, and is rightly not flagged.
func TestStarvedGeneratorFlagged(t *testing.T) {
	// The near-free server, so the generator is the only thing that can
	// fall behind.
	srv := startTarget(t, target.Config{FixedResponse: true})
	hog := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatalf("starting the busy loop: %v", err)
	}
	t.Cleanup(func() { hog.Process.Kill(); hog.Wait() })
	out := filepath.Join(t.TempDir(), "run.json")
	r := runProgram(t, nil, "taskset", "-c", "0", binary, "run", "--url", srv.MCPURL(), "--rate", "400000", "-d", "2s",
		"--max-in-flight", "256", "--json-out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(out)
	var rep struct {
		RPS    float64 `json:"rps"`
		Client struct {
			Saturated bool   `json:"saturated"`
			Reason    string `json:"saturation_reason"`
		} `json:"client"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("achieved %.0f of 400000 rps; saturated %v: %s", rep.RPS, rep.Client.Saturated, rep.Client.Reason)
	if !rep.Client.Saturated || rep.Client.Reason == "" {
		t.Fatal("a starved generator was not flagged")
	}
	if !strings.Contains(r.stdout, "WARNING") {
		t.Fatalf("the summary does not warn: %s", r.stdout)
	}
}
