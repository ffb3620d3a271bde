package bench

import (
	"math"
	"time"
)

// Series is a point's figures interval by interval, kept as columns so a
// long soak stays compact: element i of every column belongs to
// bucket i, which covers [StartedAt + i·IntervalS, StartedAt + (i+1)·IntervalS)
// of the measured window (the last bucket ends where the run ended, LastS
// after its start). A request counts in the bucket where it was answered
// (Sent: where it was sent), so each column sums to the point's total.
// results.Series is its report form.
type Series struct {
	StartedAt time.Time
	IntervalS float64
	// LastS is the length of the last bucket, which the end of the run
	// usually cuts short.
	LastS float64
	// Sent counts measured requests by the bucket they were sent in; OK
	// and Errors (by kind, only kinds that occurred) by the bucket they
	// were answered in.
	Sent   []int64
	OK     []int64
	Errors map[string][]int64
	// RPS is answers per second of the bucket's own length; NaN for a
	// last bucket cut to under half an interval (BucketRate).
	RPS []float64
	// Latency percentiles of the requests answered in the bucket, from
	// its histogram; 0 for a bucket with none.
	P50MS []float64
	P95MS []float64
	P99MS []float64
	MaxMS []float64
	// InFlight is the measured requests sent but not yet answered at the
	// bucket's end.
	InFlight []int64
	// CPUS is the generator's own CPU time spent in the bucket, seconds.
	CPUS []float64
	// Histograms are the buckets' latency histograms (hist.Encode's
	// form), so shard reports merge bucket by bucket exactly.
	Histograms []string
	// Server holds what was sampled from the server at each bucket's end
	// (--server-pid, --server-metrics); empty without sampling.
	Server []ServerSeries
}

// BucketS is the length in seconds of bucket i of a series of n buckets:
// the interval, but lastS for the last, which the end of the run cut.
func BucketS(i, n int, intervalS, lastS float64) float64 {
	if i == n-1 {
		return lastS
	}
	return intervalS
}

// BucketRate is bucket i's answers per second of its own length, or NaN
// (no rate) for a last bucket that the end of the run cut to under half
// an interval: its few answers are the run's stragglers, and over a few
// milliseconds they would read as several times the real rate. Its count
// and length still stand (OK, Errors, LastS).
func BucketRate(answered int64, i, n int, intervalS, lastS float64) float64 {
	if PartialBucket(i, n, intervalS, lastS) {
		return math.NaN()
	}
	return float64(answered) / BucketS(i, n, intervalS, lastS)
}

// PartialBucket says whether bucket i is a last one cut to under half an
// interval, which has a count and a length but no rate.
func PartialBucket(i, n int, intervalS, lastS float64) bool {
	return n > 1 && i == n-1 && lastS < intervalS/2
}

// BucketRequests is bucket i's answers, ok and errors of every kind.
func BucketRequests(ok []int64, errors map[string][]int64, i int) int64 {
	n := ok[i]
	for _, col := range errors {
		n += col[i]
	}
	return n
}

// Gauge kinds of a server series.
const (
	// GaugeLevel is a value read as it stands (memory, open files).
	GaugeLevel = "gauge"
	// GaugeCounter is a counter that only grows (CPU seconds); its column
	// holds the increase over each bucket rather than the running total.
	GaugeCounter = "counter"
)

// ServerSeries is one quantity sampled from the server once a bucket.
type ServerSeries struct {
	// Name is the metric's name: a Prometheus metric name, or for a
	// process read from /proc one of rss_bytes, open_fds, threads, cpu_s.
	Name string
	// Unit is "bytes", "seconds" or "" (a count, or unknown).
	Unit string
	// Kind is GaugeLevel or GaugeCounter.
	Kind string
	// Source says where it was read: "pid 1234", or the metrics URL.
	Source string
	// Values has one element per bucket; NaN where the sample failed or
	// came too late.
	Values []float64
}

// buildSeries assembles the point's Series from its buckets; end is the
// last answer, which closes the last bucket.
func (r *runner) buildSeries(end time.Time) *Series {
	sr := r.series
	sr.mu.Lock()
	defer sr.mu.Unlock()
	n := sr.index(end) + 1
	iv := sr.interval.Seconds()
	s := &Series{StartedAt: sr.start, IntervalS: iv}
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
		s.RPS = append(s.RPS, math.Round(1000*BucketRate(answered, i, n, iv, s.LastS))/1000)
		s.P50MS, s.P95MS = append(s.P50MS, ms(b.p50)), append(s.P95MS, ms(b.p95))
		s.P99MS, s.MaxMS = append(s.P99MS, ms(b.p99)), append(s.MaxMS, ms(b.max))
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
func (r *runner) serverColumns(n int) []ServerSeries {
	gs := r.cfg.Gauges.Gauges()
	out := make([]ServerSeries, len(gs))
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
			if g.Kind == GaugeCounter {
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
