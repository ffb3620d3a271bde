package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

type shardRunJSON struct {
	Schema      string  `json:"schema"`
	StartedAt   string  `json:"started_at"`
	Concurrency int     `json:"concurrency"`
	Total       int64   `json:"total"`
	Requests    int64   `json:"requests"`
	OK          int64   `json:"ok"`
	ElapsedS    float64 `json:"elapsed_s"`
	RPS         float64 `json:"rps"`
	P50MS       float64 `json:"p50_ms"`
	P99MS       float64 `json:"p99_ms"`
	Histogram   string  `json:"histogram"`
	Shard       *struct {
		Index int `json:"index"`
		Count int `json:"count"`
	} `json:"shard"`
	Merged *struct {
		Reports int `json:"reports"`
		Shards  []struct {
			Index int `json:"index"`
		} `json:"shards"`
		Missing []int `json:"missing"`
	} `json:"merged"`
}

func readShardRunJSON(t *testing.T, path string) shardRunJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseShardRun(t, b)
}

func parseShardRun(t *testing.T, b []byte) shardRunJSON {
	t.Helper()
	var r shardRunJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("not a run report: %v", err)
	}
	return r
}

// TestFourShardsMatchOneProcess runs the same load twice against a server
// whose 20 ms service time dominates the generator's CPU: once from one
// process (16 workers, 2400 requests), once from four shard processes of
// the built binary that start together at --start-at, then merged. The
// merged figures must agree with the single run's.
func TestFourShardsMatchOneProcess(t *testing.T) {
	srv := startTarget(t, target.Config{Capacity: 1000, ServiceTime: 20 * time.Millisecond})
	dir := t.TempDir()
	load := []string{"run", "--url", srv.MCPURL(), "-c", "16", "-n", "2400", "--warmup", "16", "-q", "--no-progress"}

	one := filepath.Join(dir, "one.json")
	if r := runCLI(t, nil, append(load, "--json-out", one)...); r.code != 0 {
		t.Fatalf("single run: exit %d: %s", r.code, r.stderr)
	}

	// Far enough ahead for four processes to start and connect.
	startAt := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var shards []string
	var cmds []*exec.Cmd
	var errs []*bytes.Buffer
	for i := range 4 {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		shards = append(shards, out)
		args := append(append([]string{}, load...), "--shard", fmt.Sprintf("%d/4", i), "--start-at", startAt, "--json-out", out)
		cmd := exec.CommandContext(ctx, binary, args...)
		var eb bytes.Buffer
		cmd.Stderr = &eb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, errs = append(cmds, cmd), append(errs, &eb)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v: %s", i, err, errs[i])
		}
	}
	starts := map[string]bool{}
	for i, p := range shards {
		r := readShardRunJSON(t, p)
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 4 || r.Concurrency != 4 || r.Requests != 600 {
			t.Fatalf("shard %d report: shard %+v, concurrency %d, requests %d", i, r.Shard, r.Concurrency, r.Requests)
		}
		starts[r.StartedAt] = true
	}

	merged := filepath.Join(dir, "merged.json")
	r := runCLI(t, nil, append([]string{"merge", "--json-out", merged, "-q"}, shards...)...)
	if r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	m, s := readShardRunJSON(t, merged), readShardRunJSON(t, one)
	t.Logf("one process: %d requests in %.2fs, %.1f rps, p50 %.2f ms, p99 %.2f ms", s.Requests, s.ElapsedS, s.RPS, s.P50MS, s.P99MS)
	t.Logf("four shards merged: %d requests in %.2fs, %.1f rps, p50 %.2f ms, p99 %.2f ms", m.Requests, m.ElapsedS, m.RPS, m.P50MS, m.P99MS)
	if m.Requests != 2400 || m.OK != 2400 || m.Concurrency != 16 || m.Total != 2400 || m.Shard != nil {
		t.Errorf("merged: requests %d ok %d concurrency %d total %d shard %+v", m.Requests, m.OK, m.Concurrency, m.Total, m.Shard)
	}
	if m.Merged == nil || m.Merged.Reports != 4 || len(m.Merged.Shards) != 4 || len(m.Merged.Missing) != 0 {
		t.Errorf("merged info %+v", m.Merged)
	}
	if d := math.Abs(m.RPS-s.RPS) / s.RPS; d > 0.10 {
		t.Errorf("rps: merged %.1f vs one process %.1f (%.1f%% apart, want within 10%%)", m.RPS, s.RPS, 100*d)
	}
	if d := math.Abs(m.P50MS-s.P50MS) / s.P50MS; d > 0.10 {
		t.Errorf("p50: merged %.2f ms vs one process %.2f ms (%.1f%% apart, want within 10%%)", m.P50MS, s.P50MS, 100*d)
	}

	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name string
			args []string
			code int
			want string
		}{
			{"duplicate", []string{shards[0], shards[1], shards[2], shards[0]}, 2, "shard 0/4 is given twice"},
			{"missing", []string{shards[0], shards[1], shards[3]}, 2, "shards [2] of 4 are missing"},
			{"not sharded with sharded", []string{shards[0], one}, 2, "carry a shard"},
			{"one report", []string{shards[0]}, 2, "at least two"},
			{"unreadable", []string{shards[0], filepath.Join(dir, "nope.json")}, 2, "no such file"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := runCLI(t, nil, append([]string{"merge", "--json-out", filepath.Join(dir, "x.json")}, c.args...)...)
				if r.code != c.code {
					t.Fatalf("exit %d, want %d: %s", r.code, c.code, r.stderr)
				}
				oneCleanLine(t, r)
				if !strings.Contains(r.stderr, c.want) {
					t.Fatalf("stderr %q does not say %q", r.stderr, c.want)
				}
			})
		}
		partial := filepath.Join(dir, "partial.json")
		r := runCLI(t, nil, "merge", "--allow-missing", "--json-out", partial, "-q", shards[0], shards[1], shards[3])
		if r.code != 0 || !strings.Contains(r.stderr, "warning: shards [2] of 4 are missing") {
			t.Fatalf("--allow-missing: exit %d: %s", r.code, r.stderr)
		}
		if p := readShardRunJSON(t, partial); p.Requests != 1800 || p.Merged == nil || len(p.Merged.Missing) != 1 {
			t.Errorf("partial merge: %+v", p)
		}
	})
}

// shardedSweepMerges (in TestServerBound) shards a small rate sweep over
// two processes and checks the merge restores the levels and the analysis.
func shardedSweepMerges(t *testing.T) {
	srv := startTarget(t, target.Config{Capacity: 1000, ServiceTime: 10 * time.Millisecond})
	dir := t.TempDir()
	startAt := fmt.Sprint(time.Now().Add(time.Second).Unix() + 1)
	var outs []string
	var cmds []*exec.Cmd
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("sweep-%d.json", i))
		outs = append(outs, out)
		cmd := exec.Command(binary, "sweep", "--url", srv.MCPURL(), "--concurrency-values", "2,4,8", "--total", "200",
			"--p95-slo-ms", "100", "--shard", fmt.Sprintf("%d/2", i), "--start-at", startAt, "--json-out", out, "-q", "--no-progress")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("sweep shard %d: %v", i, err)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	if r := runCLI(t, nil, "merge", "--json-out", merged, "-q", outs[0], outs[1]); r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	s := readSweep(t, merged)
	if len(s.Points) != 3 || s.Points[0].Concurrency != 2 || s.Points[2].Concurrency != 8 || s.Points[1].Requests != 200 {
		t.Fatalf("merged points %+v", s.Points)
	}
	if s.Recommendation.MaxFeasible == nil || *s.Recommendation.MaxFeasible != 8 {
		t.Errorf("recommendation %+v", s.Recommendation)
	}
	// A sweep and a run are not merged together.
	one := filepath.Join(dir, "run.json")
	if r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "10", "--json-out", one, "-q"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := runCLI(t, nil, "merge", "--json-out", filepath.Join(dir, "x.json"), outs[0], one)
	if r.code != 2 || !strings.Contains(r.stderr, "merge reports of one kind") {
		t.Fatalf("mixed kinds: exit %d: %s", r.code, r.stderr)
	}
	oneCleanLine(t, r)
}
