package main

import (
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/results"
)

// shardsAndMerge makes four shard reports whose latencies differ from shard
// to shard (so the summed percentiles are none of the shards'), and the
// merged report that is right for them.
func shardsAndMerge(t *testing.T) ([]*results.RunReport, *results.RunReport) {
	t.Helper()
	var shards []*results.RunReport
	sum := hist.New()
	merged := &results.RunReport{}
	for i := range 4 {
		h := hist.New()
		for v := range 250 {
			if err := h.RecordValue(int64(1000*(i+1) + 37*v)); err != nil {
				t.Fatal(err)
			}
		}
		r := &results.RunReport{Shard: &results.Shard{Index: i, Count: 4}}
		r.Hist = h
		r.Requests, r.OK = 250, 250
		r.Workload.Warmup = 16
		r.FillPercentiles(h)
		shards = append(shards, r)
		sum.Merge(h)
		merged.Requests += 250
		merged.Workload.Warmup += 16
	}
	merged.FillPercentiles(sum)
	return shards, merged
}

func TestCheckPasses(t *testing.T) {
	shards, merged := shardsAndMerge(t)
	lines, problems := check(shards, merged, 1064, 4)
	if len(problems) != 0 {
		t.Fatalf("problems: %q", problems)
	}
	if len(lines) != 6 || !strings.Contains(lines[4], "1000 requests + 64 warmup = 1064; the server counted 1064") {
		t.Errorf("lines: %q", lines)
	}
}

func TestCheckFails(t *testing.T) {
	cases := []struct {
		name   string
		change func(shards []*results.RunReport, merged *results.RunReport) ([]*results.RunReport, int64)
		want   string
	}{
		{"server counted one more", func(s []*results.RunReport, m *results.RunReport) ([]*results.RunReport, int64) {
			return s, 1065
		}, "the server counted 1065"},
		{"index twice", func(s []*results.RunReport, m *results.RunReport) ([]*results.RunReport, int64) {
			s[3].Shard.Index = 2
			return s, 1064
		}, "shard index 3 appears 0 times"},
		{"a shard missing", func(s []*results.RunReport, m *results.RunReport) ([]*results.RunReport, int64) {
			return s[:3], 1064
		}, "3 shard reports, want 4"},
		{"errors", func(s []*results.RunReport, m *results.RunReport) ([]*results.RunReport, int64) {
			s[1].Errors = 1
			return s, 1064
		}, "errors: shards 1"},
		{"p99 not from the summed histograms", func(s []*results.RunReport, m *results.RunReport) ([]*results.RunReport, int64) {
			m.P99MS = s[3].P99MS
			return s, 1064
		}, "summed histograms give"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shards, merged := shardsAndMerge(t)
			s, served := c.change(shards, merged)
			_, problems := check(s, merged, served, 4)
			if !strings.Contains(strings.Join(problems, "\n"), c.want) {
				t.Errorf("problems %q, want one with %q", problems, c.want)
			}
		})
	}
}
