package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mcpbench/mcpbench/bench"
)

// Series is a point's figures interval by interval, as columns so a long
// soak stays compact: element i of every column belongs to bucket i, which
// covers [StartedAt + i·IntervalS, StartedAt + (i+1)·IntervalS) of the
// measured window; the last bucket is LastS long. bench.Series is what the
// generator recorded; this package merges series across shards and judges
// their trends.
type Series struct {
	StartedAt  time.Time          `json:"started_at"`
	IntervalS  float64            `json:"interval_s"`
	LastS      float64            `json:"last_s"`
	Sent       []int64            `json:"sent"`
	OK         []int64            `json:"ok"`
	Errors     map[string][]int64 `json:"errors,omitempty"`
	RPS        Column             `json:"rps"` // null for a last bucket under half an interval
	P50MS      []float64          `json:"p50_ms"`
	P95MS      []float64          `json:"p95_ms"`
	P99MS      []float64          `json:"p99_ms"`
	MaxMS      []float64          `json:"max_ms"`
	InFlight   []int64            `json:"in_flight"`
	CPUS       []float64          `json:"cpu_s"`
	Histograms []string           `json:"histograms"`
	Server     []ServerSeries     `json:"server,omitempty"`
}

// ServerSeries is one quantity sampled from the server once a bucket.
type ServerSeries struct {
	Name   string `json:"name"`
	Unit   string `json:"unit,omitempty"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Values Column `json:"values"`
}

// Gauge kinds of a server series, as the generator names them.
const (
	GaugeLevel   = bench.GaugeLevel
	GaugeCounter = bench.GaugeCounter
)

// Len is the number of buckets.
func (s *Series) Len() int { return len(s.OK) }

// Requests is bucket i's answers, ok and errors.
func (s *Series) Requests(i int) int64 { return bench.BucketRequests(s.OK, s.Errors, i) }

// BucketS is the length of bucket i in seconds.
func (s *Series) BucketS(i int) float64 { return bench.BucketS(i, s.Len(), s.IntervalS, s.LastS) }

// Partial says whether bucket i is a last one cut to under half an
// interval: it has a count and a length, and no rate.
func (s *Series) Partial(i int) bool { return bench.PartialBucket(i, s.Len(), s.IntervalS, s.LastS) }

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
