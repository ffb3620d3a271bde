package results

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
)

// verdictText says what a trend found, e.g. "server rss_bytes grew
// 38.0 MB/h (+1.2 MB over 2m0s, r² 0.97): likely leak".
func verdictText(t Trend, windowS float64) string {
	over := time.Duration(windowS * float64(time.Second)).Round(time.Second)
	fit := fmt.Sprintf("r² %.2f", t.R2)
	switch {
	case t.Series == "p99_ms":
		return fmt.Sprintf("p99 latency rose %s ms/h (+%s ms over %s, %s)", num(t.SlopePerH), num(t.Change), over, fit)
	case t.Series == "error_rate":
		return fmt.Sprintf("error rate rose %s/h (+%s over %s, %s)", textfmt.Percent(t.SlopePerH), textfmt.Percent(t.Change), over, fit)
	}
	name := strings.TrimPrefix(t.Series, "server:")
	return fmt.Sprintf("server %s grew %s/h (+%s over %s, %s): likely leak", name, textfmt.Amount(t.SlopePerH, t.Unit), textfmt.Amount(t.Change, t.Unit), over, fit)
}

// num prints a figure with three significant digits.
func num(v float64) string { return textfmt.Amount(math.Round(v*1000)/1000, "") }

// drift is p99 over the first and the last tenth of the series' buckets
// (at least one each), from their merged histograms; nil for a series of
// one bucket or without histograms.
func drift(s *measure.Series) *Drift {
	n := s.Len()
	if n < 2 || len(s.Histograms) != n {
		return nil
	}
	tenth := max(1, (n+9)/10)
	first, okF := mergedP99(s, 0, tenth)
	last, okL := mergedP99(s, n-tenth, n)
	if !okF || !okL {
		return nil
	}
	d := &Drift{FirstP99MS: first.figure(), LastP99MS: last.figure(), FirstRequests: first.n, LastRequests: last.n}
	if d.Enough() && first.p99 > 0 {
		d.Ratio = ptr(last.p99 / first.p99)
	}
	return d
}

// figure is the p99, nil for a tenth without answers.
func (p p99Of) figure() *float64 {
	if p.n == 0 {
		return nil
	}
	return ptr(p.p99)
}

func ptr(v float64) *float64 { return &v }

type p99Of struct {
	p99 float64
	n   int64
}

// mergedP99 merges the histograms of buckets [from, to); false when one
// with answers has none, or it cannot be read.
func mergedP99(s *measure.Series, from, to int) (p99Of, bool) {
	h := hist.New()
	for i := from; i < to; i++ {
		if s.Histograms[i] == "" {
			if s.Requests(i) > 0 {
				return p99Of{}, false
			}
			continue
		}
		if err := hist.MergeEncoded(h, s.Histograms[i]); err != nil {
			return p99Of{}, false
		}
	}
	return p99Of{p99: float64(h.ValueAtQuantile(99)) / 1000, n: h.TotalCount()}, true
}

// Enough says whether both tenths hold enough answers for their p99s to
// be compared; a ramp-up that measured nothing in the first tenth is not
// a drift of 0x.
func (d *Drift) Enough() bool {
	return d.FirstRequests >= driftMinRequests && d.LastRequests >= driftMinRequests
}

// Line is the drift in words, for the reports (ms prints a latency): the
// two p99s with their answers, and the ratio only where it means something.
func (d *Drift) Line(ms func(float64) string) string {
	tenth := func(p99 *float64, n int64) string {
		if p99 == nil {
			return "no answers"
		}
		return fmt.Sprintf("%s ms (%d answers)", ms(*p99), n)
	}
	s := fmt.Sprintf("p99 latency: %s over the first tenth of the run, %s over the last", tenth(d.FirstP99MS, d.FirstRequests), tenth(d.LastP99MS, d.LastRequests))
	if d.Ratio == nil {
		return s + fmt.Sprintf(": not enough answers to compare (%d needed in each)", driftMinRequests)
	}
	return s + fmt.Sprintf(" (%.2fx)", *d.Ratio)
}

// driftVerdict judges a drift by the rules above.
func driftVerdict(d *Drift) (Verdict, bool) {
	if d == nil || d.Ratio == nil {
		return Verdict{}, false
	}
	first, last := *d.FirstP99MS, *d.LastP99MS
	if last < driftRatio*first || last-first < driftMinMS {
		return Verdict{}, false
	}
	return Verdict{Series: "p99_ms", Text: fmt.Sprintf("p99 latency drifted from %s ms in the first tenth of the run to %s ms in the last (%.1fx)",
		num(first), num(last), *d.Ratio)}, true
}

// Leaks counts the verdicts that are leaks (growth of a server series).
func (s *Soak) Leaks() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, v := range s.Verdicts {
		if v.Leak {
			n++
		}
	}
	return n
}
