package measure

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Series is a point's figures interval by interval, kept as columns so a
// long soak stays compact: element i of every column belongs to bucket i,
// which covers [StartedAt + i·IntervalS, StartedAt + (i+1)·IntervalS) of
// the measured window (the last bucket ends where the run ended, LastS
// after its start). A request counts in the bucket where it was answered
// (Sent: where it was sent), so each column sums to the point's total.
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
	// RPS is answers per second of the bucket's own length; NaN (null)
	// for a last bucket cut to under half an interval (BucketRate).
	RPS Column `json:"rps"`
	// Latency percentiles of the requests answered in the bucket, from
	// its histogram; NaN (null) for a bucket with none: not computed is
	// not 0 ms.
	P50MS Column `json:"p50_ms"`
	P95MS Column `json:"p95_ms"`
	P99MS Column `json:"p99_ms"`
	MaxMS Column `json:"max_ms"`
	// InFlight is the measured requests sent but not yet answered at the
	// bucket's end.
	InFlight []int64 `json:"in_flight"`
	// CPUS is the generator's own CPU time spent in the bucket, seconds.
	CPUS []float64 `json:"cpu_s"`
	// Histograms are the buckets' latency histograms (hist.Encode's
	// form), so shard reports merge bucket by bucket exactly.
	Histograms []string `json:"histograms"`
	// Server holds what was sampled from the server at each bucket's end
	// (--server-pid, --server-metrics); empty without sampling.
	Server []ServerSeries `json:"server,omitempty"`
}

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
	// Values has one element per bucket; NaN where the sample failed or
	// came too late.
	Values Column `json:"values"`
}

// Gauge kinds of a server series.
const (
	// GaugeLevel is a value read as it stands (memory, open files).
	GaugeLevel = "gauge"
	// GaugeCounter is a counter that only grows (CPU seconds); its column
	// holds the increase over each bucket rather than the running total.
	GaugeCounter = "counter"
)

// Len is the number of buckets.
func (s *Series) Len() int { return len(s.OK) }

// Requests is bucket i's answers, ok and errors.
func (s *Series) Requests(i int) int64 { return BucketRequests(s.OK, s.Errors, i) }

// BucketS is the length of bucket i in seconds.
func (s *Series) BucketS(i int) float64 { return BucketS(i, s.Len(), s.IntervalS, s.LastS) }

// Partial says whether bucket i is a last one cut to under half an
// interval: it has a count and a length, and no rate.
func (s *Series) Partial(i int) bool { return PartialBucket(i, s.Len(), s.IntervalS, s.LastS) }

// EndS is the end of bucket i in seconds from StartedAt.
func (s *Series) EndS(i int) float64 {
	return float64(i)*s.IntervalS + s.BucketS(i)
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

// Column is a series of measured values where some may be missing: NaN in
// Go, null in JSON (which has no NaN).
type Column []float64

// MarshalJSON writes NaN (and infinities) as null.
func (c Column) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("[]"), nil
	}
	b := []byte{'['}
	for i, v := range c {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFigure(b, v)
	}
	return append(b, ']'), nil
}

// appendFigure appends v as JSON, null for NaN and infinities.
func appendFigure(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// Figure is one measured value that may be missing, as Column's are:
// NaN in Go, null in JSON.
type Figure float64

// MarshalJSON writes NaN (and infinities) as null.
func (f Figure) MarshalJSON() ([]byte, error) { return appendFigure(nil, float64(f)), nil }

// UnmarshalJSON reads null as NaN.
func (f *Figure) UnmarshalJSON(data []byte) error {
	var v *float64
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = Figure(math.NaN())
	if v != nil {
		*f = Figure(*v)
	}
	return nil
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

// StageSummary is what one load stage of a staged level (--stages,
// --rate-stages) measured: its span in seconds from the start of
// measuring, the target it reached (workers or requests/s), and what was
// answered in it, from the series buckets it spans (stages end on bucket
// boundaries). The last stage also takes the answers that came after the
// load stopped.
type StageSummary struct {
	FromS     float64 `json:"from_s"`
	ToS       float64 `json:"to_s"`
	Target    float64 `json:"target"`
	Requests  int64   `json:"requests"`
	RPS       float64 `json:"rps"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	P99MS     float64 `json:"p99_ms"`
	Errors    int64   `json:"errors"`
	ErrorRate float64 `json:"error_rate"`
}

// Spike is a rise of the load above a held stage and its way back: the
// recovery runs from the end of the stage that brought the load back to
// the held stage's target until the first bucket whose p99 and error rate
// are within the tolerance of that held stage's.
type Spike struct {
	// Stage is the held stage before the spike and Back the one that
	// brought the load back (1-based, as a user counts them).
	Stage         int     `json:"stage"`
	Back          int     `json:"back"`
	EndS          float64 `json:"end_s"`
	BaselineP99MS float64 `json:"baseline_p99_ms"`
	RecoveryS     float64 `json:"recovery_s"`
	// Recovered is false when the run ended first; RecoveryS then runs
	// to the end of the run.
	Recovered bool `json:"recovered"`
}
