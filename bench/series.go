package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Series is a point's figures interval by interval, kept as columns so a
// long soak stays compact in JSON: element i of every column belongs to
// bucket i, which covers [StartedAt + i·IntervalS, StartedAt + (i+1)·IntervalS)
// of the measured window (the last bucket ends where the run ended, LastS
// after its start). A request counts in the bucket where it was answered
// (Sent: where it was sent), so each column sums to the point's total.
// results.Series names the same type for the report side.
type Series struct {
	StartedAt time.Time `json:"started_at"`
	IntervalS float64   `json:"interval_s"`
	// LastS is the length of the last bucket, which the end of the run
	// usually cuts short.
	LastS float64 `json:"last_s"`
	// Sent counts measured requests by the bucket they were sent in; OK
	// and Errors (by kind, only kinds that occurred) by the bucket they
	// were answered in.
	Sent   []int64            `json:"sent"`
	OK     []int64            `json:"ok"`
	Errors map[string][]int64 `json:"errors,omitempty"`
	// RPS is answers per second of the bucket's own length.
	RPS []float64 `json:"rps"`
	// Latency percentiles of the requests answered in the bucket, from
	// its histogram; 0 for a bucket with none.
	P50MS []float64 `json:"p50_ms"`
	P95MS []float64 `json:"p95_ms"`
	P99MS []float64 `json:"p99_ms"`
	MaxMS []float64 `json:"max_ms"`
	// InFlight is the measured requests sent but not yet answered at the
	// bucket's end.
	InFlight []int64 `json:"in_flight"`
	// CPUS is the generator's own CPU time spent in the bucket, seconds.
	CPUS []float64 `json:"cpu_s"`
	// Histograms are the buckets' latency histograms (EncodeHistogram
	// form), so shard reports merge bucket by bucket exactly.
	Histograms []string `json:"histograms"`
	// Server holds what was sampled from the server at each bucket's end
	// (--server-pid, --server-metrics); empty without sampling.
	Server []ServerSeries `json:"server,omitempty"`
}

// Len is the number of buckets.
func (s *Series) Len() int { return len(s.OK) }

// Requests is bucket i's answers, ok and errors.
func (s *Series) Requests(i int) int64 {
	n := s.OK[i]
	for _, col := range s.Errors {
		n += col[i]
	}
	return n
}

// BucketS is the length of bucket i in seconds.
func (s *Series) BucketS(i int) float64 {
	if i == s.Len()-1 {
		return s.LastS
	}
	return s.IntervalS
}

// EndS is the end of bucket i in seconds from StartedAt.
func (s *Series) EndS(i int) float64 {
	return float64(i)*s.IntervalS + s.BucketS(i)
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
	Name string `json:"name"`
	// Unit is "bytes", "seconds" or "" (a count, or unknown).
	Unit string `json:"unit,omitempty"`
	// Kind is GaugeLevel or GaugeCounter.
	Kind string `json:"kind"`
	// Source says where it was read: "pid 1234", or the metrics URL.
	Source string `json:"source"`
	// Values has one element per bucket; null (NaN in Go) where the
	// sample failed or came too late.
	Values Column `json:"values"`
}

// Column is a series of measured values where some may be missing: NaN in
// Go, null in JSON (which has no NaN).
type Column []float64

// MarshalJSON writes NaN (and infinities) as null.
func (c Column) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("[]"), nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
			continue
		}
		b.Write(strconv.AppendFloat(nil, v, 'g', -1, 64))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads null as NaN.
func (c *Column) UnmarshalJSON(data []byte) error {
	var raw []*float64
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Column, len(raw))
	for i, v := range raw {
		out[i] = math.NaN()
		if v != nil {
			out[i] = *v
		}
	}
	*c = out
	return nil
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
		length := iv
		if i == n-1 {
			length = s.LastS
		}
		s.RPS = append(s.RPS, math.Round(1000*float64(answered)/length)/1000)
		s.P50MS, s.P95MS = append(s.P50MS, ms(b.p50)), append(s.P95MS, ms(b.p95))
		s.P99MS, s.MaxMS = append(s.P99MS, ms(b.p99)), append(s.MaxMS, ms(b.max))
		s.CPUS = append(s.CPUS, b.cpu.Seconds())
		s.Histograms = append(s.Histograms, sr.enc.text(b.packed))
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
		g.Values = make(Column, n)
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

// Check says what is wrong with a series read from a file, if anything:
// every column one element per bucket, a positive interval.
func (s *Series) Check() error {
	n := s.Len()
	if !(s.IntervalS > 0) || s.LastS < 0 || math.IsNaN(s.LastS) {
		return fmt.Errorf("series: interval_s %v, last_s %v", s.IntervalS, s.LastS)
	}
	lens := map[string]int{"sent": len(s.Sent), "rps": len(s.RPS), "p50_ms": len(s.P50MS), "p95_ms": len(s.P95MS),
		"p99_ms": len(s.P99MS), "max_ms": len(s.MaxMS), "in_flight": len(s.InFlight), "cpu_s": len(s.CPUS), "histograms": len(s.Histograms)}
	for kind, col := range s.Errors {
		lens["errors."+kind] = len(col)
	}
	for _, g := range s.Server {
		lens["server."+g.Name] = len(g.Values)
	}
	for name, l := range lens {
		if l != n {
			return fmt.Errorf("series: %s has %d buckets, ok has %d", name, l, n)
		}
	}
	return nil
}
