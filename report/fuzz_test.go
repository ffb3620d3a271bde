package report

import (
	"bytes"
	"github.com/mcpbench/mcpbench/results"
	"io"
	"testing"
)

// FuzzReadReports: compare and merge read files users hand them, which may
// be anything. No input may panic the readers, nor the comparison, merge
// and writers that consume what the readers accept.
func FuzzReadReports(f *testing.F) {
	for _, s := range []string{
		`{"schema":"mcpbench.run/v1","requests":10,"ok":10,"errors_by_kind":{},"p95_ms":1.5}`,
		`{"schema":"mcpbench.run/v1","histogram":"not base64"}`,
		`{"schema":"mcpbench.run/v1","histogram":"HISTFAAAABx4nJNpmSzMwMDAyAABzFAaxmdiYGBgBAAAbQAH"}`,
		`{"schema":"mcpbench.run/v1","rate":-1,"shard":{"index":3,"count":2},"uncorrected":{"p99_ms":1e308}}`,
		`{"schema":"mcpbench.sweep/v1","points":[{"concurrency":1,"requests":5,"ok":5,"p95_ms":2},{"concurrency":0}],"slo":{"p95_ms":1}}`,
		`{"schema":"mcpbench.sweep/v1","points":[{"histogram":"AAAA"}],"knee":{"concurrency":-4}}`,
		`{"schema":"mcpbench.run/v1","requests":2,"ok":2,"series":{"started_at":"2026-01-01T00:00:00Z","interval_s":1,"last_s":0.5,"sent":[1,1],"ok":[1,1],"rps":[1,2],"p50_ms":[1,1],"p95_ms":[1,1],"p99_ms":[1,1],"max_ms":[1,1],"in_flight":[0,0],"cpu_s":[0,0],"histograms":["",""],"server":[{"name":"rss_bytes","unit":"bytes","kind":"gauge","values":[1,null]}]}}`,
		`{"schema":"mcpbench.run/v1","series":{"interval_s":1e-300,"ok":[1],"sent":[],"errors":{"x":[1,2,3]}},"soak":{"verdicts":[{"leak":true}]}}`,
		`{"schema":"mcpbench.probe/v1"}`,
		`{"schema":7}`,
		`{}{}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := results.ReadRunReport(bytes.NewReader(data)); err == nil {
			consumeRun(r)
		}
		if r, err := results.ReadSweepReport(bytes.NewReader(data)); err == nil {
			consumeSweep(r)
		}
		r, err := results.ReadReport(bytes.NewReader(data))
		if err != nil {
			return
		}
		if (r.Run == nil) == (r.Sweep == nil) {
			t.Fatalf("ReadReport accepted a report that is neither or both: %+v", r)
		}
	})
}

// consumeRun does with a run report what compare and merge do with one.
func consumeRun(r *results.RunReport) {
	c := results.CompareRuns(r, r, results.DefaultLimits())
	writeComparison(c)
	if m, _, err := results.MergeRuns([]*results.RunReport{r, r}, results.MergeOptions{AllowMissing: true}); err == nil {
		_ = WriteRunJSON(io.Discard, m)
		_ = WriteRunMarkdown(io.Discard, m)
		_ = WriteRunSummary(io.Discard, m)
	}
}

func consumeSweep(r *results.SweepReport) {
	c := results.CompareSweeps(r, r, results.DefaultLimits())
	writeComparison(c)
	if m, _, err := results.MergeSweeps([]*results.SweepReport{r, r}, results.MergeOptions{AllowMissing: true}); err == nil {
		_ = WriteSweepJSON(io.Discard, m)
		_ = WriteSweepMarkdown(io.Discard, m)
		_ = WriteSweepTable(io.Discard, m)
		_ = WriteSweepSVG(io.Discard, m)
	}
}

func writeComparison(c *results.Comparison) {
	_ = WriteCompareMarkdown(io.Discard, c)
	_ = WriteCompareJSON(io.Discard, c)
	_ = WriteCompareJUnit(io.Discard, c)
}
