package report

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
)

// Fixtures for the HTML tests: reports with real HdrHistograms behind
// their figures, drawn from fixed seeds so every run renders the same.

// lognormalHist records n latencies whose median is p50 ms and whose p95
// is about p95 ms (a lognormal, as service times under light load are).
func lognormalHist(seed uint64, n int, p50, p95 float64) *hdrhistogram.Histogram {
	rng := rand.New(rand.NewPCG(seed, 7))
	sigma := math.Log(p95/p50) / 1.645
	h := hist.New()
	for range n {
		ms := p50 * math.Exp(sigma*rng.NormFloat64())
		h.RecordValue(int64(ms * 1000))
	}
	return h
}

// withHist sets a point's histogram and the figures it gives.
func withHist(p *measure.Point, h *hdrhistogram.Histogram) {
	p.Hist = h
	p.Histogram, _ = hist.Encode(h)
	p.FillPercentiles(h)
}

func fixtureHeader() results.Header {
	return results.Header{
		Schema:          results.SchemaRun,
		MCPBenchVersion: "v0.1.0-test",
		StartedAt:       time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Target: results.Target{URL: "http://127.0.0.1:3002/mcp", Transport: "http", ProtocolVersion: "2025-06-18",
			ServerName: "mcpbench-target", ServerVersion: "0.1.0"},
	}
}

// fixtureRun is a closed-loop run of a two-tool mix with a few timeouts.
func fixtureRun(t *testing.T, seed uint64, p50 float64) *results.RunReport {
	t.Helper()
	r := &results.RunReport{Header: fixtureHeader()}
	r.Workload = results.Workload{Mode: "closed", Warmup: 100, DurationS: 60,
		Operations: []measure.Operation{{Method: "tools/call", Tool: "search"}, {Method: "tools/call", Tool: "fetch"}}}
	p := &r.Point
	p.Concurrency, p.ElapsedS = 16, 60
	withHist(p, lognormalHist(seed, 30000, p50, p50*2.2))
	p.Requests, p.Errors = 30000, 45
	p.OK, p.ErrorRate = p.Requests-p.Errors, 45.0/30000
	p.RPS = float64(p.Requests) / p.ElapsedS
	p.ErrorsByKind = map[string]int64{"timeout": 40, "jsonrpc": 5}
	p.ErrorExamples = map[string]string{"timeout": "no answer within 5s", "jsonrpc": "-32603: internal error"}
	p.BytesSent, p.BytesReceived = 9_000_000, 41_000_000
	p.Client = measure.ClientStats{PoolMaxConns: 16, CPUS: 11.2, Engine: "fasthttp"}
	for i, op := range r.Workload.Operations {
		o := measure.OperationStats{Operation: op, RPS: p.RPS / 2}
		o.Requests, o.Errors = 15000, int64(35*i+5)
		o.FillPercentiles(lognormalHist(seed+uint64(i)+1, 15000, p50*(1+float64(i)), p50*2.5*(1+float64(i))))
		p.ByOperation = append(p.ByOperation, o)
	}
	p.Series = fixtureSeries(seed, 60, 1, p.RPS, p50, true)
	r.Soak = results.AnalyzeSoak(p.Series, results.SoakOptions{})
	r.Gates = []results.Gate{
		{Name: "error_rate", Limit: 0.01, Value: p.ErrorRate, Passed: true},
		{Name: "p99_ms", Limit: 100, Value: p.P99MS, Passed: p.P99MS <= 100},
	}
	return r
}

// fixtureOpenRun is an open-loop run whose server stalls now and then:
// the latency from the intended send shows the stalls' queue, the one
// from the actual send hides most of it.
func fixtureOpenRun(t *testing.T) *results.RunReport {
	t.Helper()
	r := fixtureRun(t, 11, 20)
	r.Workload.Mode = "open"
	p := &r.Point
	rate := 500.0
	p.Rate, p.OfferedRPS, p.Concurrency = &rate, rate, 64
	rng := rand.New(rand.NewPCG(3, 9))
	corrected, actual, lag := hist.New(), hist.New(), hist.New()
	behind := 0.0 // ms the schedule is behind after a stall
	for i := range 30000 {
		service := 20 * math.Exp(0.3*rng.NormFloat64())
		if i%3000 == 0 {
			behind = 400 // a stall: the next requests queue behind it
		}
		actual.RecordValue(int64(service * 1000))
		corrected.RecordValue(int64((service + behind) * 1000))
		lag.RecordValue(int64(behind * 1000))
		behind = math.Max(0, behind-2) // 2 ms caught up per request at 500 rps
	}
	withHist(p, corrected)
	p.Series = fixtureSeries(12, 60, 1, rate, 20, false)
	stall := 40 // a bucket in which nothing was answered
	p.Series.OK[stall], p.Series.RPS[stall] = 0, 0
	p.Series.Errors["timeout"][stall] = 0
	p.Uncorrected, p.ScheduleLagMS = &measure.Uncorrected{}, &measure.ScheduleLag{}
	p.Uncorrected.Fill(actual)
	p.ScheduleLagMS.Fill(lag)
	hits, misses, hitRate := int64(900), int64(100), 90.0
	dh, dm := int64(28000), int64(2000)
	r.Health = &probe.Health{
		HealthSnapshot: probe.HealthSnapshot{URL: "http://127.0.0.1:3002/health", OK: true, StatusCode: 200, LatencyMS: 1.4,
			Cache: &probe.HealthCache{Hits: &hits, Misses: &misses, HitRatePct: &hitRate}},
		After: &probe.HealthSnapshot{URL: "http://127.0.0.1:3002/health", OK: false, Error: "connection refused"},
		Delta: &probe.HealthDelta{CacheHits: &dh, CacheMisses: &dm},
	}
	r.LogScan = &logscan.WindowScan{Path: "/var/log/mcp.log", StatsLines: 60, Lines: 200, Baseline: "window_start",
		Delta: logscan.Delta{Requests: 30000, CacheHits: 28000, CacheMisses: 2000}}
	return r
}

// fixtureHistSweep is the Markdown tests' sweep with a histogram behind
// every point.
func fixtureHistSweep() *results.SweepReport {
	r := fixtureSweep()
	for i := range r.Points {
		p := &r.Points[i]
		h := lognormalHist(uint64(i), 4000, p.P50MS, p.P95MS)
		p.Hist = h
		p.Histogram, _ = hist.Encode(h)
		p.Hist = nil // as read back from a file: the renderer decodes
		p.Series = fixtureSeries(uint64(i), 10, 1, p.RPS, p.P50MS, false)
	}
	return r
}

// fixtureHistRateSweep is the rate sweep with histograms, from the
// intended and the actual send.
func fixtureHistRateSweep() *results.SweepReport {
	r := fixtureRateSweep()
	for i := range r.Points {
		p := &r.Points[i]
		p.Histogram, _ = hist.Encode(lognormalHist(uint64(i), 4000, p.P50MS, p.P95MS))
		p.Uncorrected = &measure.Uncorrected{}
		p.Uncorrected.Fill(lognormalHist(uint64(i)+100, 4000, p.P50MS, math.Min(p.P95MS, 40)))
	}
	return r
}

// fixtureRunComparison compares two runs, the new one slower.
func fixtureRunComparison(t *testing.T) *results.Comparison {
	c := results.CompareRuns(fixtureRun(t, 1, 20), fixtureRun(t, 2, 24), results.DefaultLimits())
	c.Base.Path, c.New.Path = "base.json", "new.json"
	c.MCPBenchVersion = "v0.1.0-test"
	return c
}

// fixtureSweepComparison compares two sweeps, the new one with less
// headroom.
func fixtureSweepComparison() *results.Comparison {
	base := fixtureHistSweep()
	cur := fixtureHistSweep()
	for i := range cur.Points {
		p := &cur.Points[i]
		p.RPS *= 0.93
		p.P50MS, p.P95MS, p.P99MS = p.P50MS*1.1, p.P95MS*1.15, p.P99MS*1.2
		p.Histogram, _ = hist.Encode(lognormalHist(uint64(i)+50, 4000, p.P50MS, p.P95MS))
	}
	cur = results.NewSweepReport(cur.Header, cur.Points, cur.SLO)
	c := results.CompareSweeps(base, cur, results.DefaultLimits())
	c.Base.Path, c.New.Path = "base-sweep.json", "new-sweep.json"
	c.MCPBenchVersion = "v0.1.0-test"
	return c
}

// fixtureMergedRun is a run merged from two shards, one missing.
func fixtureMergedRun(t *testing.T) *results.RunReport {
	r := fixtureRun(t, 5, 20)
	r.Merged = &results.MergeInfo{Reports: 2, Shards: []results.Shard{{Index: 1, Count: 3}, {Index: 2, Count: 3}}, Missing: []int{3}}
	return r
}

// fixtureSeries is n buckets of interval seconds around rps and p50, with
// an error burst and a latency bump a third of the way in, and (server)
// the server's memory growing as a leak would (600 MB/h), its open files
// flat.
func fixtureSeries(seed uint64, n int, interval, rps, p50 float64, server bool) *measure.Series {
	rng := rand.New(rand.NewPCG(seed, 21))
	s := &measure.Series{StartedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), IntervalS: interval, LastS: interval,
		Errors: map[string][]int64{"timeout": make([]int64, n)}}
	rss, fds := make(measure.Column, n), make(measure.Column, n)
	// Two bucket histograms, steady and slow, shared by the buckets of
	// each kind: enough for the figures drawn from them to be real.
	steady, _ := hist.Encode(lognormalHist(seed, 200, p50, 2.2*p50))
	slow, _ := hist.Encode(lognormalHist(seed+1, 200, 2.5*p50, 5.5*p50))
	for i := range n {
		bump, hist := 1.0, steady
		if i > n/3 && i < n/3+5 {
			bump, hist = 2.5, slow
			s.Errors["timeout"][i] = int64(3 + rng.IntN(5))
		}
		s.Histograms = append(s.Histograms, hist)
		got := rps * interval * (0.97 + 0.06*rng.Float64()) / bump
		ok := int64(got) - s.Errors["timeout"][i]
		s.Sent = append(s.Sent, int64(got))
		s.OK = append(s.OK, ok)
		s.RPS = append(s.RPS, got/interval)
		m := p50 * bump * (0.95 + 0.1*rng.Float64())
		s.P50MS, s.P95MS, s.P99MS, s.MaxMS = append(s.P50MS, m), append(s.P95MS, 2.2*m), append(s.P99MS, 3*m), append(s.MaxMS, 6*m)
		s.InFlight = append(s.InFlight, int64(10+rng.IntN(6)))
		s.CPUS = append(s.CPUS, 0.18*interval*(0.9+0.2*rng.Float64()))
		rss[i] = 60<<20 + float64(i)*interval*600e6/3600 + 2e5*rng.NormFloat64() // 600 MB/h
		fds[i] = 42
	}
	if server {
		rss[n/2] = math.NaN() // a sample that failed
		s.Server = []measure.ServerSeries{
			{Name: "rss_bytes", Unit: "bytes", Kind: measure.GaugeLevel, Source: "pid 4242", Values: rss},
			{Name: "open_fds", Kind: measure.GaugeLevel, Source: "pid 4242", Values: fds},
		}
	}
	return s
}
