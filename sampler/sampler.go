// Package sampler reads what a server process is using, once an interval,
// for the soak series: from /proc for a local process (--server-pid), or
// from a Prometheus metrics endpoint (--server-metrics). It knows nothing
// of the load engine; the harness adapts a Source to bench.GaugeSource.
package sampler

import (
	"context"
	"errors"
	"math"
)

// Units of a gauge.
const (
	UnitBytes   = "bytes"
	UnitSeconds = "seconds"
)

// Gauge describes one value a Source reads.
type Gauge struct {
	Name string
	// Unit is UnitBytes, UnitSeconds or "" (a count, or not known).
	Unit string
	// Counter marks a value that only grows (CPU seconds, a request
	// total): its series shows the increase per interval, and it has no
	// leak verdict.
	Counter bool
}

// Source reads a fixed set of gauges from one place.
type Source interface {
	// Where says where the values come from, for the report.
	Where() string
	Gauges() []Gauge
	// Read fills v, one element per gauge, leaving NaN where a value could
	// not be read; the error says why the read failed, if it did.
	Read(ctx context.Context, v []float64) error
}

// Multi reads several sources as one, their gauges one after another.
type Multi []Source

// Gauges lists every source's gauges in order.
func (m Multi) Gauges() []Gauge {
	var out []Gauge
	for _, s := range m {
		out = append(out, s.Gauges()...)
	}
	return out
}

// Read reads every source into its share of v; the sources are read one
// after another (a scrape and a few /proc reads take milliseconds).
func (m Multi) Read(ctx context.Context, v []float64) error {
	var errs []error
	for _, s := range m {
		n := len(s.Gauges())
		part := v[:n]
		v = v[n:]
		if err := s.Read(ctx, part); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func fillNaN(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}
