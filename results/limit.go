package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
)

// Metric kinds decide what an absolute limit is measured in and which
// direction is worse.
type MetricKind int

const (
	// KindLatency: milliseconds, higher is worse.
	KindLatency MetricKind = iota
	// KindRPS: requests per second, lower is worse.
	KindRPS
	// KindErrorRate: a fraction 0..1, higher is worse.
	KindErrorRate
)

// Limit is how far a figure may move in the bad direction before compare
// calls it a regression: a percentage of the base figure, or an absolute
// amount in the metric's unit. Off disables the gate.
type Limit struct {
	Off     bool
	Percent bool
	Value   float64 // percent (10 = 10%), or ms, rps or an error-rate fraction
	Text    string  // as the user gave it, for tables
}

// ParseLimit reads a limit for a metric of the given kind:
//
//	"10%"          relative to the base figure, for every kind
//	"5ms", "1.5s"  latency: absolute, any Go duration
//	"5"            latency: absolute milliseconds; rps: absolute requests/s;
//	               error rate: absolute fraction (0.01 = one percentage point)
//	"off", "none"  no gate: the figure is shown but never fails
func ParseLimit(s string, kind MetricKind) (Limit, error) {
	t := strings.TrimSpace(s)
	l := Limit{Text: t}
	switch {
	case t == "off" || t == "none":
		l.Off = true
		return l, nil
	case strings.HasSuffix(t, "%"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
		if err != nil || !validLimit(v) {
			return l, fmt.Errorf("limit %q: want a percentage like 10%%", s)
		}
		l.Percent, l.Value = true, v
		return l, nil
	}
	if v, err := strconv.ParseFloat(t, 64); err == nil {
		if !validLimit(v) {
			return l, fmt.Errorf("limit %q: must be a finite number >= 0", s)
		}
		if kind == KindErrorRate && v > 1 {
			return l, fmt.Errorf("limit %q: an absolute error-rate increase is a fraction 0..1 (0.01 = one percentage point); write %s%% for a relative one", s, t)
		}
		l.Value = v
		return l, nil
	}
	if kind == KindLatency {
		d, err := time.ParseDuration(t)
		if err == nil && d >= 0 {
			l.Value = float64(d) / float64(time.Millisecond)
			return l, nil
		}
	}
	want := map[MetricKind]string{
		KindLatency:   "10%, 5ms or 5 (ms)",
		KindRPS:       "10% or 50 (requests/s)",
		KindErrorRate: "50% or 0.01 (a fraction)",
	}[kind]
	return l, fmt.Errorf("limit %q: want %s, or off", s, want)
}

func validLimit(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// worst is the worst figure the limit allows given the base: the highest
// latency or error rate, or the lowest throughput.
func (l Limit) worst(base float64, kind MetricKind) float64 {
	d := l.Value
	if l.Percent {
		d = math.Abs(base) * l.Value / 100
	}
	if kind == KindRPS {
		return base - d
	}
	return base + d
}

// label is the limit as a signed change in the bad direction, e.g. "+10%",
// "+5 ms", "-10%".
func (l Limit) label(kind MetricKind) string {
	if l.Off {
		return "off"
	}
	sign := "+"
	if kind == KindRPS {
		sign = "-"
	}
	switch {
	case l.Percent:
		return sign + textfmt.Float(l.Value) + "%"
	case kind == KindLatency:
		return sign + textfmt.Float(textfmt.Round3(l.Value)) + " ms"
	case kind == KindRPS:
		return sign + textfmt.Float(l.Value) + " rps"
	default:
		return sign + textfmt.Float(l.Value)
	}
}

// Limits are compare's regression limits, one per gated figure.
type Limits struct {
	P95, P99, RPS, ErrorRate Limit
}

// DefaultLimits are the limits compare applies when given none. They
// leave room for run-to-run noise on a shared CI machine.
func DefaultLimits() Limits {
	must := func(s string, k MetricKind) Limit { l, _ := ParseLimit(s, k); return l }
	return Limits{
		P95:       must("10%", KindLatency),
		P99:       must("20%", KindLatency),
		RPS:       must("10%", KindRPS),
		ErrorRate: must("0.01", KindErrorRate),
	}
}
