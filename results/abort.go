package results

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
)

// AbortRule is a threshold that stops a run while it lasts (--abort-on):
// a figure of each settled interval against a limit, held for a time.
// "p99>500ms for 30s" holds when every interval over 30 s had its p99
// above 500 ms.
type AbortRule struct {
	Text   string
	Metric string // p50, p95, p99, max, error_rate, rps
	Above  bool   // '>' when true, '<' when false
	Limit  float64
	// For is how long the breach must last; 0: one interval.
	For time.Duration
}

var abortSyntax = regexp.MustCompile(`^\s*([a-z0-9_]+)\s*([<>])\s*([0-9.]+)\s*(ms|s|%)?\s*(?:for\s+(\S+))?\s*$`)

// ParseAbortRule reads METRIC>VALUE [for D] or METRIC<VALUE [for D]:
// latencies (p50, p95, p99, max) in ms or with a unit, error_rate as a
// fraction or a percentage, rps per second.
func ParseAbortRule(s string) (AbortRule, error) {
	m := abortSyntax.FindStringSubmatch(s)
	if m == nil {
		return AbortRule{}, fmt.Errorf("%q is not METRIC>VALUE [for DURATION], e.g. 'p99>500ms for 30s'", s)
	}
	r := AbortRule{Text: strings.TrimSpace(s), Metric: m[1], Above: m[2] == ">"}
	v, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return r, fmt.Errorf("%q: %v is not a number", s, m[3])
	}
	unit := m[4]
	switch {
	case r.Metric == "p50" || r.Metric == "p95" || r.Metric == "p99" || r.Metric == "max":
		if unit == "%" {
			return r, fmt.Errorf("%q: a latency is in ms or s", s)
		}
		if unit == "s" {
			v *= 1000
		}
	case r.Metric == "error_rate":
		if unit == "%" {
			v /= 100
		} else if unit != "" {
			return r, fmt.Errorf("%q: an error rate is a fraction or a percentage", s)
		}
	case r.Metric == "rps":
		if unit != "" {
			return r, fmt.Errorf("%q: rps takes a plain number", s)
		}
	default:
		return r, fmt.Errorf("%q: %s is none of p50, p95, p99, max, error_rate, rps", s, r.Metric)
	}
	r.Limit = v
	if m[5] != "" {
		if r.For, err = time.ParseDuration(m[5]); err != nil || r.For < 0 {
			return r, fmt.Errorf("%q: %q is not a duration", s, m[5])
		}
	}
	return r, nil
}

// IntervalFigures are what an abort rule reads of one settled interval.
type IntervalFigures struct {
	EndS, LengthS            float64
	Requests, Errors         int64
	P50MS, P95MS, P99MS, Max float64
}

// AbortWatch follows the intervals of a run against its rules and says
// when one has held long enough.
type AbortWatch struct {
	Rules  []AbortRule
	breach []float64 // seconds each rule has held without a break
}

// Observe takes the next interval and returns the abort it calls for, or
// nil. An interval without answers says nothing of latency.
func (w *AbortWatch) Observe(f IntervalFigures) *Aborted {
	if w.breach == nil {
		w.breach = make([]float64, len(w.Rules))
	}
	for i, r := range w.Rules {
		v, ok := r.value(f)
		if !ok || (r.Above && v <= r.Limit) || (!r.Above && v >= r.Limit) {
			w.breach[i] = 0
			continue
		}
		w.breach[i] += f.LengthS
		// A hair under the interval still counts: bucket lengths are
		// measured, not exact.
		if w.breach[i] >= r.For.Seconds()-1e-3 {
			return &Aborted{Reason: fmt.Sprintf("%s: %s was %s", r.Text, r.Metric, r.figure(v)), AtS: f.EndS}
		}
	}
	return nil
}

// value is the rule's figure in f, and whether f has one.
func (r AbortRule) value(f IntervalFigures) (float64, bool) {
	switch r.Metric {
	case "rps":
		return float64(f.Requests) / max(f.LengthS, 1e-9), true
	case "error_rate":
		if f.Requests == 0 {
			return 0, false
		}
		return float64(f.Errors) / float64(f.Requests), true
	}
	if f.Requests == 0 {
		return 0, false
	}
	return map[string]float64{"p50": f.P50MS, "p95": f.P95MS, "p99": f.P99MS, "max": f.Max}[r.Metric], true
}

// figure prints v in the rule's unit.
func (r AbortRule) figure(v float64) string {
	switch r.Metric {
	case "rps":
		return textfmt.Float(textfmt.Round3(v)) + "/s"
	case "error_rate":
		return textfmt.Percent(v)
	}
	return textfmt.Float(textfmt.Round3(v)) + " ms"
}
