package bench

import (
	"math"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// buildSeries assembles the point's Series from its buckets; end is the
// last answer, which closes the last bucket.
func (r *runner) buildSeries(end time.Time) *measure.Series {
	sr := r.series
	sr.mu.Lock()
	defer sr.mu.Unlock()
	n := sr.index(end) + 1
	iv := sr.interval.Seconds()
	s := &measure.Series{StartedAt: sr.start, IntervalS: iv}
	s.LastS = max(end.Sub(sr.start).Seconds()-float64(n-1)*iv, 1e-9)
	errs := make(map[int][]int64)
	var sent, done int64
	for i := range n {
		b := sr.bucket(i)
		s.Sent = append(s.Sent, b.sent)
		s.OK = append(s.OK, b.kinds[OK])
		var answered int64
		for k, c := range b.kinds {
			answered += c
			if Kind(k) == OK || c == 0 {
				continue
			}
			if errs[k] == nil {
				errs[k] = make([]int64, n)
			}
			errs[k][i] = c
		}
		sent, done = sent+b.sent, done+answered
		s.InFlight = append(s.InFlight, sent-done)
		s.RPS = append(s.RPS, math.Round(1000*measure.BucketRate(answered, i, n, iv, s.LastS))/1000)
		p50, p95, p99, top := ms(b.p50), ms(b.p95), ms(b.p99), ms(b.max)
		if answered == 0 {
			p50, p95, p99, top = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		}
		s.P50MS, s.P95MS = append(s.P50MS, p50), append(s.P95MS, p95)
		s.P99MS, s.MaxMS = append(s.P99MS, p99), append(s.MaxMS, top)
		s.CPUS = append(s.CPUS, b.cpu.Seconds())
		s.Histograms = append(s.Histograms, sr.enc.Text(b.packed))
	}
	if len(errs) > 0 {
		s.Errors = make(map[string][]int64, len(errs))
		for k, col := range errs {
			s.Errors[kindName(r.kinds, k)] = col
		}
	}
	if r.cfg.Gauges != nil {
		s.Server = r.serverColumns(n)
	}
	return s
}

// serverColumns turns the gauge readings of the first n buckets into
// columns: levels as read, counters as the increase over each bucket.
// The caller holds r.series.mu.
func (r *runner) serverColumns(n int) []measure.ServerSeries {
	gs := r.cfg.Gauges.Gauges()
	out := make([]measure.ServerSeries, len(gs))
	for j, g := range gs {
		g.Values = make([]float64, n)
		prev := math.NaN()
		if r.live.gaugeBaseSet {
			prev = r.live.gaugeBase[j]
		}
		for i := range n {
			v := math.NaN()
			if b := r.series.bucket(i); j < len(b.gauges) {
				v = b.gauges[j]
			}
			g.Values[i] = v
			if g.Kind == measure.GaugeCounter {
				// NaN when either end is missing: an increase over an
				// unknown span would mislead.
				g.Values[i] = v - prev
			}
			prev = v
		}
		out[j] = g
	}
	return out
}
