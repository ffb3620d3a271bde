package results

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// synthSeries is n one-second buckets of 200 answers each whose latency
// (µs) latencyAt gives, with the server gauges the callers add.
func synthSeries(t *testing.T, n int, latencyAt func(bucket int, rng *rand.Rand) int64) *measure.Series {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	s := &measure.Series{StartedAt: time.Unix(1700000000, 0), IntervalS: 1, LastS: 1}
	for i := range n {
		h := hist.New()
		for range 200 {
			if err := h.RecordValue(latencyAt(i, rng)); err != nil {
				t.Fatal(err)
			}
		}
		enc, _ := hist.Encode(h)
		var l measure.Latency
		l.FillPercentiles(h)
		s.Sent, s.OK = append(s.Sent, 200), append(s.OK, 200)
		s.RPS, s.InFlight, s.CPUS = append(s.RPS, 200), append(s.InFlight, 0), append(s.CPUS, 0.1)
		s.P50MS, s.P95MS, s.P99MS, s.MaxMS = append(s.P50MS, l.P50MS), append(s.P95MS, l.P95MS), append(s.P99MS, l.P99MS), append(s.MaxMS, l.MaxMS)
		s.Histograms = append(s.Histograms, enc)
	}
	return s
}

func steadyLatency(_ int, rng *rand.Rand) int64 { return 1000 + int64(rng.ExpFloat64()*500) }

// gauge is a server column of n values from f.
func gauge(name, unit, kind string, n int, f func(i int) float64) measure.ServerSeries {
	g := measure.ServerSeries{Name: name, Unit: unit, Kind: kind, Source: "pid 1"}
	for i := range n {
		g.Values = append(g.Values, f(i))
	}
	return g
}

func TestSoakFlagsALeak(t *testing.T) {
	s := synthSeries(t, 60, steadyLatency)
	rng := rand.New(rand.NewPCG(1, 1))
	// 20 MB and 1 MB/s more, with GC-like noise of ±2 MB.
	s.Server = []measure.ServerSeries{
		gauge("rss_bytes", "bytes", measure.GaugeLevel, 60, func(i int) float64 { return 20e6 + 1e6*float64(i) + 2e6*(rng.Float64()-0.5) }),
		gauge("open_fds", "", measure.GaugeLevel, 60, func(int) float64 { return 12 }),
		gauge("cpu_s", "seconds", measure.GaugeCounter, 60, func(int) float64 { return 0.3 }),
	}
	soak := AnalyzeSoak(s, SoakOptions{})
	if soak.FromS != 6 || soak.ToS != 60 {
		t.Errorf("window %v..%v s, want 6..60 (the first tenth left out)", soak.FromS, soak.ToS)
	}
	if len(soak.Verdicts) != 1 || !soak.Verdicts[0].Leak || soak.Verdicts[0].Series != "server:rss_bytes" || soak.Leaks() != 1 {
		t.Fatalf("verdicts %+v, want the rss leak alone", soak.Verdicts)
	}
	tr := trendNamed(t, soak, "server:rss_bytes")
	if rate := tr.SlopePerH / 3600; math.Abs(rate-1e6) > 0.05e6 {
		t.Errorf("slope %.0f B/s, want 1e6 within 5%%", rate)
	}
	if !strings.Contains(soak.Verdicts[0].Text, "server rss_bytes grew 3.60 GB/h") || !strings.Contains(soak.Verdicts[0].Text, "likely leak") {
		t.Errorf("verdict text %q", soak.Verdicts[0].Text)
	}
	for _, tr := range soak.Trends {
		if tr.Series == "server:cpu_s" {
			t.Error("a counter was trended")
		}
	}
}

func TestSoakNoVerdictWhenFlat(t *testing.T) {
	s := synthSeries(t, 60, steadyLatency)
	rng := rand.New(rand.NewPCG(2, 2))
	s.Server = []measure.ServerSeries{gauge("rss_bytes", "bytes", measure.GaugeLevel, 60, func(int) float64 { return 20e6 + 2e6*(rng.Float64()-0.5) })}
	if soak := AnalyzeSoak(s, SoakOptions{}); len(soak.Verdicts) != 0 {
		t.Fatalf("verdicts on a flat series: %+v", soak.Verdicts)
	}
}

// TestSoakSmallGrowthIsNotMaterial: a steady creep far under a tenth of
// the level is significant but not material.
func TestSoakSmallGrowthIsNotMaterial(t *testing.T) {
	s := synthSeries(t, 60, steadyLatency)
	s.Server = []measure.ServerSeries{gauge("rss_bytes", "bytes", measure.GaugeLevel, 60, func(i int) float64 { return 500e6 + 1e4*float64(i) })}
	soak := AnalyzeSoak(s, SoakOptions{})
	tr := trendNamed(t, soak, "server:rss_bytes")
	if !tr.Significant || tr.Material || len(soak.Verdicts) != 0 {
		t.Errorf("trend %+v verdicts %+v: want significant, not material, no verdict", tr, soak.Verdicts)
	}
}

func TestSoakLatencyDriftAndTrend(t *testing.T) {
	// p99 rising from about 3 ms to about 12 ms over the run.
	s := synthSeries(t, 50, func(i int, rng *rand.Rand) int64 {
		return int64((1000 + rng.ExpFloat64()*500) * (1 + 3*float64(i)/50))
	})
	soak := AnalyzeSoak(s, SoakOptions{Warmup: 5 * time.Second})
	if soak.Drift == nil || soak.Drift.Ratio == nil || *soak.Drift.Ratio < 3 || soak.Drift.FirstRequests != 1000 {
		t.Fatalf("drift %+v, want a ratio over 3 from 5 buckets of 200", soak.Drift)
	}
	var texts []string
	for _, v := range soak.Verdicts {
		if v.Leak {
			t.Errorf("a latency finding marked as a leak: %+v", v)
		}
		texts = append(texts, v.Text)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "p99 latency drifted from") || !strings.Contains(all, "p99 latency rose") {
		t.Errorf("verdicts:\n%s", all)
	}
}

func TestSoakTooShort(t *testing.T) {
	soak := AnalyzeSoak(synthSeries(t, 5, steadyLatency), SoakOptions{})
	if len(soak.Trends) != 0 || soak.Note == "" {
		t.Errorf("5 buckets: trends %+v note %q", soak.Trends, soak.Note)
	}
	if AnalyzeSoak(nil, SoakOptions{}) != nil {
		t.Error("no series, yet a soak")
	}
}

func TestGateFailOnLeak(t *testing.T) {
	r := &RunReport{Soak: &Soak{Verdicts: []Verdict{{Series: "p99_ms", Text: "rose"}}}}
	if (Gates{FailOnLeak: true}).Run(r) {
		t.Error("a latency verdict failed the leak gate")
	}
	r = &RunReport{Soak: &Soak{Verdicts: []Verdict{{Series: "server:rss_bytes", Leak: true}}}}
	if !(Gates{FailOnLeak: true}).Run(r) {
		t.Error("a leak passed the leak gate")
	}
	if (Gates{}).Run(&RunReport{Soak: r.Soak}) {
		t.Error("a leak failed a run without --fail-on-leak")
	}
}

func trendNamed(t *testing.T, s *Soak, name string) Trend {
	t.Helper()
	for _, tr := range s.Trends {
		if tr.Series == name {
			return tr
		}
	}
	t.Fatalf("no trend of %s in %+v", name, s.Trends)
	return Trend{}
}
