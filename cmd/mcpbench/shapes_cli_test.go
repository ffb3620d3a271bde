package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// abortOnStopsTheRun (in TestServerBound): 8 slots of 20 ms, and workers
// that step from 4 to 64 between 6 and 7 s: p99 passes 100 ms (more than
// 40 workers queue for 8 slots) about 7 s in. Neither rule fires in the
// 6 s before, longer than either rule's window; 'p99>100ms for 2s' must
// stop the run by 13 s (it would last 17), exit 1, and name p99 in the
// full report.
func abortOnStopsTheRun(t *testing.T) {
	srv := startTarget(t, target.Config{Capacity: 8, ServiceTime: 20 * time.Millisecond})
	out := filepath.Join(t.TempDir(), "run.json")
	t0 := time.Now()
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "--stages", "1s:4,5s:4,1s:64,10s:64",
		"--abort-on", "error_rate>50% for 5s", "--abort-on", "p99>100ms for 2s", "--json-out", out, "-q")
	took := time.Since(t0)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	var rep struct {
		Aborted *struct {
			Reason string  `json:"reason"`
			AtS    float64 `json:"at_s"`
		} `json:"aborted"`
		Requests int64   `json:"requests"`
		ElapsedS float64 `json:"elapsed_s"`
		Stages   []struct {
			Requests int64 `json:"requests"`
		} `json:"stages"`
	}
	b, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.Aborted == nil {
		t.Fatalf("no aborted in the report: %s", b[:min(len(b), 400)])
	}
	t.Logf("aborted at %.1f s (%s); the run measured %.1f s, the command took %s", rep.Aborted.AtS, rep.Aborted.Reason, rep.ElapsedS, took)
	if !strings.Contains(r.stderr, "mcpbench run: aborting at ") {
		t.Errorf("stderr does not say the run is aborting: %q", r.stderr)
	}
	if !strings.HasPrefix(rep.Aborted.Reason, "p99>100ms for 2s") {
		t.Errorf("reason %q does not name the p99 rule", rep.Aborted.Reason)
	}
	if rep.Aborted.AtS < 6 || rep.ElapsedS > 13 {
		t.Errorf("aborted at %.1f s, measured %.1f s: want a stop after 6 s and by 13 s", rep.Aborted.AtS, rep.ElapsedS)
	}
	if len(rep.Stages) != 4 || rep.Requests == 0 {
		t.Errorf("the report keeps %d stages and %d requests", len(rep.Stages), rep.Requests)
	}
}

func TestStagesFlagsAreChecked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stages", "2s:4", "-c", "4"}, "drop --concurrency"},
		{[]string{"--stages", "2s:4", "--rate-stages", "2s:4"}, "not both"},
		{[]string{"--stages", "1500ms:4"}, "whole number"},
		{[]string{"--rate-stages", "2s"}, "DURATION:TARGET"},
		{[]string{"--abort-on", "p99>>1"}, "METRIC>VALUE"},
		{[]string{"--abort-on", "cpu>1"}, "none of"},
		{[]string{"--dashboard", "host:port"}, "--dashboard host:port"},
		{[]string{"--stages", "2s:4", "--max-in-flight", "8"}, "--max-in-flight goes with --rate"},
		{[]string{"--rate-stages", "2s:4", "--max-in-flight", "8", "--dashboard", "host:port"}, "--dashboard host:port"},
	} {
		r := runCLI(t, nil, append([]string{"run", "--url", "http://127.0.0.1:1/mcp"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		oneCleanLine(t, r)
	}
}
