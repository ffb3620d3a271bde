package dashboard

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// level is the report of the level under way, grown one settled interval
// at a time: the same figures the final report gives, so far.
type level struct {
	point      measure.Point
	h          *hdrhistogram.Histogram
	sent, done int64
}

func newLevel(concurrency int, rate float64) *level {
	l := &level{h: hist.New()}
	l.point.Concurrency = concurrency
	if rate > 0 {
		l.point.Rate = &rate
	}
	l.point.ErrorsByKind = map[string]int64{}
	return l
}

// add files one interval.
func (l *level) add(iv harness.PointInterval) {
	p := &l.point
	s := p.Series
	if s == nil {
		s = &measure.Series{StartedAt: iv.Start, IntervalS: iv.Length.Seconds()}
		p.Series = s
	}
	n := s.Len()
	s.Sent, s.OK = append(s.Sent, iv.Sent), append(s.OK, iv.Counts[0])
	for k := 1; k < len(iv.Kinds) && k < len(iv.Counts); k++ {
		c := iv.Counts[k]
		if c == 0 && s.Errors[iv.Kinds[k]] == nil {
			continue
		}
		if s.Errors == nil {
			s.Errors = map[string][]int64{}
		}
		col := s.Errors[iv.Kinds[k]]
		for len(col) < n {
			col = append(col, 0)
		}
		s.Errors[iv.Kinds[k]] = append(col, c)
		p.ErrorsByKind[iv.Kinds[k]] += c
	}
	for k, col := range s.Errors {
		for len(col) < n+1 {
			col = append(col, 0)
		}
		s.Errors[k] = col
	}
	s.RPS = append(s.RPS, iv.RPS)
	p50, p95, p99, top := iv.P50MS, iv.P95MS, iv.P99MS, iv.MaxMS
	if iv.Requests == 0 { // no answers: no latency, not 0 ms
		p50, p95, p99, top = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	s.P50MS, s.P95MS = append(s.P50MS, p50), append(s.P95MS, p95)
	s.P99MS, s.MaxMS = append(s.P99MS, p99), append(s.MaxMS, top)
	l.sent, l.done = l.sent+iv.Sent, l.done+iv.Requests
	s.InFlight = append(s.InFlight, max(0, l.sent-l.done))
	s.CPUS = append(s.CPUS, iv.CPU.Seconds())
	s.Histograms = append(s.Histograms, iv.Histogram())
	s.LastS = iv.Length.Seconds()
	_ = iv.MergeHistogram(l.h)
	p.Requests, p.OK, p.Errors = p.Requests+iv.Requests, p.OK+iv.Counts[0], p.Errors+iv.Errors
	p.ElapsedS = iv.End.Seconds()
}

// report is the run report of the level so far.
func (l *level) report(target string, version string, started time.Time) *results.RunReport {
	r := &results.RunReport{Point: l.point}
	r.MCPBenchVersion, r.StartedAt, r.Target.URL = version, started, target
	p := &r.Point
	p.Latency.FillPercentiles(l.h)
	if p.Requests > 0 {
		p.ErrorRate = float64(p.Errors) / float64(p.Requests)
	}
	if p.ElapsedS > 0 {
		p.RPS = float64(p.Requests) / p.ElapsedS
	}
	p.Histogram, _ = hist.Encode(l.h)
	p.Hist = l.h
	return r
}
