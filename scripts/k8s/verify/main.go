// Command verify checks what make k8s-check's sharded Job measured
// (scripts/k8s/check.sh): the shard reports that run-sharded.sh collected
// with kubectl logs, its merged report, and the server's own /health.
//
//	verify -n 4 -health health.json -merged merged.json shard-*.json
//
// It passes when there are n shard reports, indexes 0..n-1 each once, each
// of n shards; no request failed; the merged requests are the shards' sum
// and, with the warmup requests the shards sent before measuring, equal
// the server's count of tools/list; and the merged p50 and p99 are those
// of the shards' histograms added up here. Exit 1 and one line a failure
// otherwise.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

func main() {
	n := flag.Int("n", 4, "shards the Job ran")
	healthFile := flag.String("health", "", "the server's /health JSON after the run")
	mergedFile := flag.String("merged", "", "run-sharded.sh's merged.json")
	method := flag.String("method", "tools/list", "the method the shards sent")
	flag.Parse()
	if *healthFile == "" || *mergedFile == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: verify -n N -health FILE -merged FILE SHARD.json...")
		os.Exit(2)
	}
	var shards []*results.RunReport
	for _, p := range flag.Args() {
		r, err := read(p)
		if err != nil {
			fail(err)
		}
		shards = append(shards, r)
	}
	merged, err := read(*mergedFile)
	if err != nil {
		fail(err)
	}
	served, err := serverCount(*healthFile, *method)
	if err != nil {
		fail(err)
	}
	lines, problems := check(shards, merged, served, *n)
	for _, l := range lines {
		fmt.Println(l)
	}
	for _, p := range problems {
		fmt.Println("FAIL:", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "verify:", err)
	os.Exit(1)
}

func read(path string) (*results.RunReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := results.ReadRunReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// serverCount is the server's count of method from its /health JSON.
func serverCount(path, method string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var h struct {
		RequestsByMethod map[string]int64 `json:"requests_by_method"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	c, ok := h.RequestsByMethod[method]
	if !ok {
		return 0, fmt.Errorf("%s: no %s in requests_by_method", path, method)
	}
	return c, nil
}

// check returns what it found and, separately, what is wrong.
func check(shards []*results.RunReport, merged *results.RunReport, served int64, n int) (lines, problems []string) {
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	if len(shards) != n {
		bad("%d shard reports, want %d", len(shards), n)
	}
	seen := map[int]int{}
	var requests, warmup, errors int64
	sum := hist.New()
	for i, r := range shards {
		if r.Shard == nil {
			bad("report %d has no shard", i)
			continue
		}
		seen[r.Shard.Index]++
		if r.Shard.Count != n {
			bad("shard %d says %d shards, want %d", r.Shard.Index, r.Shard.Count, n)
		}
		if r.Hist == nil {
			bad("shard %d has no histogram", r.Shard.Index)
		} else if d := sum.Merge(r.Hist); d != 0 {
			bad("shard %d: %d values dropped adding its histogram", r.Shard.Index, d)
		}
		requests += r.Requests
		warmup += r.Workload.Warmup
		errors += r.Errors
		lines = append(lines, fmt.Sprintf("shard %d/%d: %d requests, %d errors, warmup %d, started %s, p50 %.3f ms, p99 %.3f ms",
			r.Shard.Index, r.Shard.Count, r.Requests, r.Errors, r.Workload.Warmup, r.StartedAt.UTC().Format("15:04:05.000"), r.P50MS, r.P99MS))
	}
	for i := range n {
		if seen[i] != 1 {
			bad("shard index %d appears %d times, want once", i, seen[i])
		}
	}
	for idx := range seen {
		if idx < 0 || idx >= n {
			bad("shard index %d out of 0..%d", idx, n-1)
		}
	}
	if errors != 0 || merged.Errors != 0 {
		bad("errors: shards %d, merged %d, want 0", errors, merged.Errors)
	}
	if merged.Requests != requests {
		bad("merged requests %d, shards' sum %d", merged.Requests, requests)
	}
	if merged.Workload.Warmup != warmup {
		bad("merged warmup %d, shards' sum %d", merged.Workload.Warmup, warmup)
	}
	if merged.Requests+merged.Workload.Warmup != served {
		bad("merged requests %d + warmup %d = %d, the server counted %d", merged.Requests, merged.Workload.Warmup, merged.Requests+merged.Workload.Warmup, served)
	}
	lines = append(lines, fmt.Sprintf("merged: %d requests + %d warmup = %d; the server counted %d", merged.Requests, merged.Workload.Warmup, merged.Requests+merged.Workload.Warmup, served))
	var want measure.Latency
	want.FillPercentiles(sum)
	if merged.P50MS != want.P50MS || merged.P99MS != want.P99MS {
		bad("merged p50 %.3f ms, p99 %.3f ms; the shards' summed histograms give p50 %.3f ms, p99 %.3f ms", merged.P50MS, merged.P99MS, want.P50MS, want.P99MS)
	}
	lines = append(lines, fmt.Sprintf("merged p50 %.3f ms, p99 %.3f ms; from the %d summed histograms (%d values): p50 %.3f ms, p99 %.3f ms",
		merged.P50MS, merged.P99MS, len(shards), sum.TotalCount(), want.P50MS, want.P99MS))
	return lines, problems
}
