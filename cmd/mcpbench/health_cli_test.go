package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpbench/mcpbench/target"
)

// TestRunHealthURL: with --health-url a run reports the server's /health
// before and after, and the change, here the tools/list requests it served.
func TestRunHealthURL(t *testing.T) {
	srv := startTarget(t, target.Config{ListCacheTTL: 1e9})
	out := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "50", "--warmup", "5", "--health-url", srv.HealthURL(), "--json-out", out, "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(out)
	var rep struct {
		Health struct {
			OK    bool `json:"ok"`
			After *struct {
				OK bool `json:"ok"`
			} `json:"after"`
			Delta *struct {
				Fields map[string]float64 `json:"fields"`
			} `json:"delta"`
		} `json:"health"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Health.OK || rep.Health.After == nil || !rep.Health.After.OK || rep.Health.Delta == nil {
		t.Fatalf("health %+v", rep.Health)
	}
	if got := rep.Health.Delta.Fields["requests_by_method.tools/list"]; got != 55 {
		t.Fatalf("server served %v tools/list between the snapshots, want 55 (50 measured + 5 warm-up)", got)
	}
	r = runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "5", "--health-url", "ftp://x")
	if r.code != 2 {
		t.Fatalf("bad --health-url: exit %d", r.code)
	}
}
