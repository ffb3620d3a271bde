package telemetry

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/results"
)

// A late line's answers are added to the interval they belong to: its
// counts, by outcome and operation, and its histogram, so the rebuilt
// report is the bucket the run's report keeps.
func TestLateLineFoldsIntoItsInterval(t *testing.T) {
	text := func(vals ...int64) string {
		h := hist.New()
		for _, v := range vals {
			_ = h.RecordValue(v)
		}
		s, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	file := strings.Join([]string{
		`{"type":"header","schema":"mcpbench.jsonl/v1","command":"run","interval_s":1,"levels":[{"concurrency":2}]}`,
		`{"type":"interval","index":0,"start":"2026-01-01T00:00:00Z","end_s":1,"length_s":1,"ok":2,"operations":[{"method":"a","ok":1},{"method":"b","ok":1}],"histogram":"` + text(1000, 2000) + `"}`,
		`{"type":"interval","index":1,"start":"2026-01-01T00:00:01Z","end_s":2,"length_s":1,"ok":1,"operations":[{"method":"a","ok":1},{"method":"b"}],"histogram":"` + text(1000) + `"}`,
		`{"type":"late","index":0,"start":"2026-01-01T00:00:00Z","end_s":1,"length_s":1,"ok":0,"errors":{"timeout":1},"operations":[{"method":"a"},{"method":"b","errors":{"timeout":1}}],"histogram":"` + text(900_000) + `"}`,
	}, "\n") + "\n"
	rec, r := rebuild(t, file)
	if r.Requests != 4 || r.Errors != 1 || r.ErrorsByKind["timeout"] != 1 || r.Series.Len() != 2 || r.Series.Requests(0) != 3 {
		t.Fatalf("rebuilt: %d requests, %d errors %v, %d buckets", r.Requests, r.Errors, r.ErrorsByKind, r.Series.Len())
	}
	if want := text(1000, 2000, 900_000); r.Series.Histograms[0] != want || r.Series.MaxMS[0] < 899 || r.MaxMS < 899 {
		t.Fatalf("bucket 0's histogram misses the late answer: max %v ms, report max %v", r.Series.MaxMS[0], r.MaxMS)
	}
	if b := rec.intervals[0].Operations[1]; b.OK != 1 || b.Errors["timeout"] != 1 {
		t.Fatalf("operation b of bucket 0: %+v", b)
	}
	bad := strings.Replace(file, `"type":"late","index":0`, `"type":"late","index":7`, 1)
	if _, err := ReadJSONL(strings.NewReader(bad + `{"type":"event","event":"x"}` + "\n")); err == nil {
		t.Fatal("a late line for an interval the file does not hold was taken")
	}
}

// An interval with no answers has no latency: the file writes its
// percentiles as null, and a file that wrote 0 for them (before null)
// rebuilds a series whose bucket has none either.
func TestIntervalWithoutAnswersHasNoLatency(t *testing.T) {
	b, err := json.Marshal(intervalLineOf(harness.PointInterval{}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"p50_ms":null,"p95_ms":null,"p99_ms":null,"max_ms":null`)) {
		t.Errorf("an interval with no answers: %s", b)
	}
	file := strings.Join([]string{
		`{"type":"header","schema":"mcpbench.jsonl/v1","command":"run","interval_s":1,"levels":[{"concurrency":2}]}`,
		`{"type":"interval","index":0,"start":"2026-01-01T00:00:00Z","end_s":1,"length_s":1,"sent":1,"ok":0,"p50_ms":0,"p95_ms":0,"p99_ms":0,"max_ms":0,"operations":[{"method":"a"}]}`,
		`{"type":"interval","index":1,"start":"2026-01-01T00:00:01Z","end_s":2,"length_s":1,"ok":1,"p50_ms":3,"p95_ms":3,"p99_ms":3,"max_ms":3,"operations":[{"method":"a","ok":1}]}`,
	}, "\n") + "\n"
	_, r := rebuild(t, file)
	if s := r.Series; !math.IsNaN(s.P99MS[0]) || !math.IsNaN(s.P50MS[0]) || s.P99MS[1] != 3 {
		t.Errorf("rebuilt p50 %v, p99 %v: want none for the empty bucket, 3 ms for the other", s.P50MS, s.P99MS)
	}
}

// rebuild reads a JSON Lines file and rebuilds its run's report.
func rebuild(t *testing.T, file string) (*Recording, *results.RunReport) {
	t.Helper()
	rec, err := ReadJSONL(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	r, err := rec.RebuildRun()
	if err != nil {
		t.Fatal(err)
	}
	return rec, r
}
