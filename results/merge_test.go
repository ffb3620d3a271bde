package results

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

// latencies is a reproducible, long-tailed set of latencies in µs.
func latencies(n int) []int64 {
	rng := rand.New(rand.NewPCG(7, 11))
	v := make([]int64, n)
	for i := range v {
		v[i] = 200 + int64(rng.ExpFloat64()*3000)
		if i%97 == 0 {
			v[i] += 250_000 // a tail
		}
	}
	return v
}

// shardRuns records vals round-robin into k shard reports that ran side
// by side for one second, each through encode and decode as merge sees it.
func shardRuns(t *testing.T, vals []int64, k int) []*RunReport {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rs := make([]*RunReport, k)
	for i := range rs {
		h := hist.New()
		n := int64(0)
		for j := i; j < len(vals); j += k {
			if err := h.RecordValue(vals[j]); err != nil {
				t.Fatal(err)
			}
			n++
		}
		enc, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := hist.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		r := &RunReport{
			Header:   Header{Schema: SchemaRun, StartedAt: start.Add(time.Duration(i) * time.Millisecond), Target: Target{URL: "http://10.0.0.1:3002/mcp"}},
			Workload: Workload{Mode: "closed", Operations: []measure.Operation{{Method: "tools/list"}}, Warmup: 2},
			Point: measure.Point{Concurrency: 3, Total: n, ElapsedS: 1, Histogram: enc, Hist: dec, BytesSent: 10 * n, BytesReceived: 100 * n,
				Latency: measure.Latency{Requests: n, OK: n - 1, Errors: 1, ErrorsByKind: map[string]int64{"timeout": 1}}},
			Shard: &Shard{Index: i, Count: k},
		}
		r.Latency.FillPercentiles(dec)
		rs[i] = r
	}
	return rs
}

func TestMergeRunsIsExact(t *testing.T) {
	vals := latencies(20_000)
	whole := hist.New()
	for _, v := range vals {
		whole.RecordValue(v)
	}
	for _, k := range []int{2, 3, 4, 7} {
		rs := shardRuns(t, vals, k)
		m, warns, err := MergeRuns(rs, MergeOptions{})
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if len(warns) != 0 {
			t.Errorf("k=%d: warnings %q", k, warns)
		}
		for q := 0.0; q <= 100; q += 0.1 {
			if got, want := m.Hist.ValueAtQuantile(q), whole.ValueAtQuantile(q); got != want {
				t.Fatalf("k=%d: p%.1f = %d µs merged, %d µs whole", k, q, got, want)
			}
		}
		var want measure.Latency
		want.FillPercentiles(whole)
		if m.P50MS != want.P50MS || m.P90MS != want.P90MS || m.P95MS != want.P95MS || m.P99MS != want.P99MS ||
			m.P999MS != want.P999MS || m.MinMS != want.MinMS || m.MaxMS != want.MaxMS || m.MeanMS != want.MeanMS {
			t.Errorf("k=%d: merged %+v, whole %+v", k, m.Latency, want)
		}
		// The merged histogram survives its own encoding.
		back, err := hist.Decode(m.Histogram)
		if err != nil || !back.Equals(whole) {
			t.Errorf("k=%d: merged histogram does not round-trip to the whole (%v)", k, err)
		}
		if m.Requests != int64(len(vals)) || m.Errors != int64(k) || m.ErrorsByKind["timeout"] != int64(k) || m.OK != int64(len(vals)-k) {
			t.Errorf("k=%d: counters %d/%d/%d %v", k, m.Requests, m.OK, m.Errors, m.ErrorsByKind)
		}
		if m.Concurrency != 3*k || m.Workload.Warmup != int64(2*k) || m.BytesSent != 10*int64(len(vals)) {
			t.Errorf("k=%d: concurrency %d, warmup %d, bytes %d", k, m.Concurrency, m.Workload.Warmup, m.BytesSent)
		}
		// Shards started up to k-1 ms apart and ran 1 s each.
		span := 1 + float64(k-1)/1000
		if d := m.ElapsedS - span; d > 1e-9 || d < -1e-9 {
			t.Errorf("k=%d: elapsed %v, want %v", k, m.ElapsedS, span)
		}
		if want := float64(len(vals)) / span; m.RPS < want*0.999999 || m.RPS > want*1.000001 {
			t.Errorf("k=%d: rps %v, want %v", k, m.RPS, want)
		}
		if m.Merged == nil || len(m.Merged.Shards) != k || m.Shard != nil || !m.StartedAt.Equal(rs[0].StartedAt) {
			t.Errorf("k=%d: merged info %+v, shard %v", k, m.Merged, m.Shard)
		}
	}
}

func TestMergeRunsOpenLoop(t *testing.T) {
	rs := shardRuns(t, latencies(1000), 2)
	for i, r := range rs {
		rate := 50.0
		r.Rate, r.OfferedRPS, r.Workload.Mode = &rate, rate, "open"
		r.Unsent = int64(i + 1)
		r.Uncorrected = &measure.Uncorrected{P50MS: 1, P95MS: float64(2 + i), P99MS: 3, MaxMS: float64(9 - i)}
		r.ScheduleLagMS = &measure.ScheduleLag{P99: float64(i), Max: 4}
	}
	m, _, err := MergeRuns(rs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rate == nil || *m.Rate != 100 || m.OfferedRPS != 100 || m.Unsent != 3 {
		t.Errorf("rate %v offered %v unsent %d, want 100, 100, 3", m.Rate, m.OfferedRPS, m.Unsent)
	}
	if u := m.Uncorrected; u == nil || u.P95MS != 3 || u.MaxMS != 9 || m.ScheduleLagMS.P99 != 1 || m.ScheduleLagMS.Max != 4 {
		t.Errorf("uncorrected %+v lag %+v", m.Uncorrected, m.ScheduleLagMS)
	}
	if len(m.Merged.Notes) == 0 || !strings.Contains(m.Merged.Notes[0], "not exact") {
		t.Errorf("notes %q should say the uncorrected figures are not exact", m.Merged.Notes)
	}
}

func TestMergeRunsRefuses(t *testing.T) {
	cases := []struct {
		name  string
		edit  func([]*RunReport)
		allow bool
		want  string
	}{
		{"duplicate shard", func(rs []*RunReport) { rs[2].Shard.Index = 1 }, false, "shard 1/3 is given twice"},
		{"missing shard", func(rs []*RunReport) {
			rs[2].Shard = &Shard{Index: 1, Count: 4}
			rs[0].Shard.Count, rs[1].Shard.Count = 4, 4
			rs[1].Shard.Index = 3
		}, false, "shards [2] of 4 are missing"},
		{"counts differ", func(rs []*RunReport) { rs[1].Shard.Count = 4 }, false, "different counts"},
		{"out of range", func(rs []*RunReport) { rs[1].Shard.Index = 3 }, false, "out of range"},
		{"some without shard", func(rs []*RunReport) { rs[1].Shard = nil }, false, "carry a shard"},
		{"other method", func(rs []*RunReport) { rs[1].Workload.Operations = []measure.Operation{{Method: "ping"}} }, false, "different workloads"},
		{"other tool", func(rs []*RunReport) {
			rs[1].Workload.Operations = []measure.Operation{{Method: "tools/call", Tool: "echo"}}
		}, false, "different workloads"},
		{"other mode", func(rs []*RunReport) { rs[1].Workload.Mode = "open" }, false, "different workloads"},
		{"other path", func(rs []*RunReport) { rs[1].Target.URL = "http://10.0.0.1:3002/other" }, false, "different targets"},
		{"other schema", func(rs []*RunReport) { rs[1].Schema = SchemaSweep }, false, "is mcpbench.sweep/v1"},
		{"no histogram", func(rs []*RunReport) { rs[1].Histogram, rs[1].Hist = "", nil }, false, "no histogram"},
		{"same run twice", func(rs []*RunReport) {
			for _, r := range rs {
				r.Shard = nil
			}
			rs[2] = rs[0]
		}, false, "same run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := shardRuns(t, latencies(300), 3)
			c.edit(rs)
			_, _, err := MergeRuns(rs, MergeOptions{AllowMissing: c.allow})
			if err == nil || !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestMergeRunsAllowMissing(t *testing.T) {
	rs := shardRuns(t, latencies(300), 4)[:3]
	m, warns, err := MergeRuns(rs, MergeOptions{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Merged.Missing) != 1 || m.Merged.Missing[0] != 3 || len(warns) != 1 || !strings.Contains(warns[0], "missing") {
		t.Errorf("missing %v, warnings %q", m.Merged.Missing, warns)
	}
}

func TestMergeSweeps(t *testing.T) {
	vals := latencies(6000)
	slo := sweep.SLO{P95MS: 50}
	// Two levels (3 and 8 workers in all) split over 2 shards: 2+1 and 4+4.
	split := [][]int{{2, 4}, {1, 4}}
	var rs []*SweepReport
	for s := range 2 {
		var pts []measure.Point
		for lvl := range 2 {
			h := hist.New()
			var n int64
			for j := s + 2*lvl; j < len(vals); j += 4 {
				h.RecordValue(vals[j])
				n++
			}
			enc, _ := hist.Encode(h)
			p := measure.Point{Concurrency: split[s][lvl], Total: n, ElapsedS: 2 + float64(s)/10, Histogram: enc,
				Latency: measure.Latency{Requests: n, OK: n, ErrorsByKind: map[string]int64{}}}
			p.Latency.FillPercentiles(h)
			pts = append(pts, p)
		}
		r := NewSweepReport(Header{Target: Target{URL: "http://x/mcp"}}, pts, slo)
		r.Shard = &Shard{Index: s, Count: 2}
		r.Workload = &Workload{Mode: "closed", Operations: []measure.Operation{{Method: "tools/list"}}}
		rs = append(rs, r)
	}
	m, _, err := MergeSweeps(rs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Points) != 2 || m.Points[0].Concurrency != 3 || m.Points[1].Concurrency != 8 {
		t.Fatalf("points %+v", m.Points)
	}
	for lvl, p := range m.Points {
		whole := hist.New()
		for j := 2 * lvl; j < len(vals); j += 4 {
			whole.RecordValue(vals[j])
		}
		for j := 2*lvl + 1; j < len(vals); j += 4 {
			whole.RecordValue(vals[j])
		}
		var want measure.Latency
		want.FillPercentiles(whole)
		if p.P99MS != want.P99MS || p.P50MS != want.P50MS || p.Requests != whole.TotalCount() {
			t.Errorf("level %d: p50 %v p99 %v n %d, want %v %v %d", lvl, p.P50MS, p.P99MS, p.Requests, want.P50MS, want.P99MS, whole.TotalCount())
		}
		if p.ElapsedS != 2.1 {
			t.Errorf("level %d: elapsed %v, want the longest shard's 2.1", lvl, p.ElapsedS)
		}
	}
	if m.Summary.PointCount != 2 || m.Recommendation.MaxFeasibleConcurrency == nil {
		t.Errorf("not re-analysed: %+v %+v", m.Summary, m.Recommendation)
	}

	// A shard whose levels do not line up is refused.
	rs[1].Points[1].Concurrency = 1
	if _, _, err := MergeSweeps(rs, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "not the same sweep levels") {
		t.Errorf("mismatched levels: %v", err)
	}
}

// TestMergeRunsStagesAndCounters: the shards' counters add up and their
// stage histograms (first SSE event, task creation) merge exactly; a stage
// no shard reached stays absent.
func TestMergeRunsStagesAndCounters(t *testing.T) {
	vals := latencies(3000)
	rs := shardRuns(t, vals, 3)
	whole := hist.New()
	for i, r := range rs {
		h := hist.New()
		for j := i; j < len(vals); j += 3 {
			h.RecordValue(vals[j] / 2)
			whole.RecordValue(vals[j] / 2)
		}
		r.FirstEvent = measure.NewTiming(h)
		r.Counters = map[string]int64{"client_requests/elicitation/create": 10, "token_refreshes": int64(i)}
	}
	m, _, err := MergeRuns(rs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := measure.NewTiming(whole); m.FirstEvent == nil || *m.FirstEvent != *want {
		t.Errorf("first event merged %+v, whole %+v", m.FirstEvent, want)
	}
	if m.TaskCreated != nil {
		t.Errorf("a stage no shard reached: %+v", m.TaskCreated)
	}
	if m.Counters["client_requests/elicitation/create"] != 30 || m.Counters["token_refreshes"] != 3 {
		t.Errorf("counters %v", m.Counters)
	}
}
