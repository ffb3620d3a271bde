package sweep

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mcpbench/mcpbench/measure"
)

// Thresholds the contract fixes.
const (
	// NearBestRPS: the recommended concurrency is the lowest feasible one
	// whose throughput is within 5% of the best feasible throughput.
	NearBestRPS = 0.95
	// SustainedShare: a rate is sustained when the achieved throughput is
	// at least 99% of the offered rate.
	SustainedShare = 0.99
)

// SLO is the service-level objective a sweep judges points against. A zero
// latency bound means no bound; MaxErrorRate is a fraction (0.01 = 1%).
type SLO struct {
	P95MS        float64 `json:"p95_ms"`
	P99MS        float64 `json:"p99_ms"`
	MaxErrorRate float64 `json:"max_error_rate"`
}

// Feasible reports whether p meets the SLO.
func (s SLO) Feasible(p measure.Point) bool {
	return p.Feasible(s.P95MS, s.P99MS, s.MaxErrorRate)
}

// Sustained reports whether an open-loop point delivered what was offered
// and met the SLO. Closed-loop points are never sustained rates.
func (s SLO) Sustained(p measure.Point) bool {
	return p.Rate != nil && *p.Rate > 0 && p.RPS >= SustainedShare**p.Rate && s.Feasible(p)
}

// Met says whether p met the SLO: feasible, and for an open-loop point
// also sustained (it delivered what was offered).
func (s SLO) Met(p measure.Point) bool {
	if p.Rate != nil {
		return s.Sustained(p)
	}
	return s.Feasible(p)
}

// Recommendation is the sweep's answer to "how hard can I drive this
// server". Concurrency fields are null for a pure rate sweep and
// MaxSustainableRPS is null for a pure concurrency sweep.
type Recommendation struct {
	RecommendedConcurrency *int      `json:"recommended_concurrency"`
	MaxFeasibleConcurrency *int      `json:"max_feasible_concurrency"`
	FeasibleConcurrency    []int     `json:"feasible_concurrency"`
	KneeConcurrency        *int      `json:"knee_concurrency"`
	MaxSustainableRPS      *float64  `json:"max_sustainable_rps"`
	FeasibleRates          []float64 `json:"feasible_rates,omitempty"`
	Reason                 string    `json:"reason"`
}

// Recommend applies the SLO to the points. Closed-loop points give the
// concurrency fields; open-loop points (Rate set) give MaxSustainableRPS.
// knee may be nil.
func Recommend(points []measure.Point, slo SLO, knee *Knee) Recommendation {
	closed, open := splitPoints(points)
	rec := Recommendation{FeasibleConcurrency: []int{}}
	if knee != nil {
		rec.KneeConcurrency = ptr(knee.Concurrency)
	}
	var reasons []string
	if len(closed) > 0 {
		reasons = append(reasons, recommendConcurrency(closed, slo, &rec))
	}
	if len(open) > 0 {
		reasons = append(reasons, recommendRate(open, slo, &rec))
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no points were measured")
	}
	rec.Reason = strings.Join(reasons, "; ")
	return rec
}

func recommendConcurrency(points []measure.Point, slo SLO, rec *Recommendation) string {
	var feasible []measure.Point
	for _, p := range points {
		if slo.Feasible(p) {
			feasible = append(feasible, p)
			rec.FeasibleConcurrency = append(rec.FeasibleConcurrency, p.Concurrency)
		}
	}
	rec.FeasibleConcurrency = slices.Compact(rec.FeasibleConcurrency)
	if len(feasible) == 0 {
		return noneFeasible(points[0], slo, "concurrency", fmt.Sprint(points[0].Concurrency), points[0].Concurrency == 1)
	}
	best := feasible[0]
	for _, p := range feasible {
		if p.RPS > best.RPS {
			best = p
		}
	}
	var chosen measure.Point
	for _, p := range feasible {
		if p.RPS >= NearBestRPS*best.RPS {
			chosen = p
			break
		}
	}
	rec.RecommendedConcurrency = ptr(chosen.Concurrency)
	last := feasible[len(feasible)-1]
	rec.MaxFeasibleConcurrency = ptr(last.Concurrency)

	var b strings.Builder
	if chosen.Concurrency == best.Concurrency {
		fmt.Fprintf(&b, "concurrency %d met the SLO with the best feasible throughput (%.1f rps)", chosen.Concurrency, best.RPS)
	} else {
		fmt.Fprintf(&b, "concurrency %d is the lowest that met the SLO within 5%% of the best feasible throughput (%.1f rps against %.1f rps at concurrency %d)",
			chosen.Concurrency, chosen.RPS, best.RPS, best.Concurrency)
	}
	b.WriteString(failedBelow(points, last, func(p measure.Point) bool { return p.Concurrency < last.Concurrency && !slo.Feasible(p) },
		func(p measure.Point) string { return fmt.Sprintf("concurrency %d", p.Concurrency) }, slo))
	if firstBad, ok := firstInfeasibleAbove(points, slo, last.Concurrency); ok {
		fmt.Fprintf(&b, "; the SLO held up to concurrency %d and broke at %d (%s)", last.Concurrency, firstBad.Concurrency, strings.Join(failures(firstBad, slo), ", "))
	} else if last.Concurrency == points[len(points)-1].Concurrency {
		fmt.Fprintf(&b, "; every load up to the largest measured (%d) met the SLO, so the limit may lie higher: extend the sweep", last.Concurrency)
	}
	return b.String()
}

func recommendRate(points []measure.Point, slo SLO, rec *Recommendation) string {
	var sustained []measure.Point
	for _, p := range points {
		if slo.Sustained(p) {
			sustained = append(sustained, p)
			rec.FeasibleRates = append(rec.FeasibleRates, *p.Rate)
		}
	}
	rec.FeasibleRates = slices.Compact(rec.FeasibleRates)
	light := points[0]
	if len(sustained) == 0 {
		if slo.Feasible(light) {
			return fmt.Sprintf("no offered rate was sustained: at %s rps (the lightest offered) the server completed only %.1f rps (%.0f%%), below the %.0f%% needed; offer lower rates or look at the client's saturation figures",
				fmtRate(*light.Rate), light.RPS, 100*light.RPS / *light.Rate, 100*SustainedShare)
		}
		return noneFeasible(light, slo, "rate", fmtRate(*light.Rate)+" rps", false)
	}
	top := sustained[len(sustained)-1]
	// What the server sustained is what it delivered: an offer within the
	// 1% tolerance above its ceiling does not raise the ceiling.
	rec.MaxSustainableRPS = ptr(math.Min(*top.Rate, top.RPS))
	var b strings.Builder
	fmt.Fprintf(&b, "%s rps is the highest offered rate the server sustained within the SLO (%.1f rps achieved, p95 %.1f ms, p99 %.1f ms)",
		fmtRate(*top.Rate), top.RPS, top.P95MS, top.P99MS)
	b.WriteString(failedBelow(points, top, func(p measure.Point) bool { return *p.Rate < *top.Rate && !slo.Sustained(p) },
		func(p measure.Point) string { return fmtRate(*p.Rate) + " rps" }, slo))
	for _, p := range points {
		if *p.Rate > *top.Rate && !slo.Sustained(p) {
			fmt.Fprintf(&b, "; at %s rps it broke (%s)", fmtRate(*p.Rate), strings.Join(rateFailures(p, slo), ", "))
			return b.String()
		}
	}
	if *top.Rate == *points[len(points)-1].Rate {
		b.WriteString("; every offered rate was sustained, so the limit may lie higher: extend the sweep")
	}
	return b.String()
}

// rateFailures lists why an offered rate was not sustained: too little
// delivered, or the SLO missed.
func rateFailures(p measure.Point, slo SLO) []string {
	var why []string
	if p.RPS < SustainedShare**p.Rate {
		why = append(why, fmt.Sprintf("achieved %.1f rps", p.RPS))
	}
	return append(why, failures(p, slo)...)
}

// failedBelow names the lighter loads that failed although a heavier one,
// top, passed. A series that passes, fails and passes again was measured
// on a server whose limit moved (or with too few requests a point), so the
// highest passing figure alone would overstate what can be relied on.
func failedBelow(points []measure.Point, top measure.Point, failed func(measure.Point) bool, level func(measure.Point) string, slo SLO) string {
	var notes []string
	for _, p := range points {
		if failed(p) {
			why := failures(p, slo)
			if p.Rate != nil {
				why = rateFailures(p, slo)
			}
			notes = append(notes, fmt.Sprintf("%s (%s)", level(p), strings.Join(why, ", ")))
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return fmt.Sprintf("; but the lighter %s failed although %s passed: the limit moved during the sweep, so measure again (longer points) before relying on %s",
		strings.Join(notes, " and "), level(top), level(top))
}

// noneFeasible explains an empty feasible set from the lightest load, the
// point most likely to pass: if even it fails, which bound and by how much
// tells the reader whether lowering the load can help.
func noneFeasible(light measure.Point, slo SLO, axis, level string, lightest bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no point met the SLO: at %s %s (the lightest load) %s", axis, level, strings.Join(failures(light, slo), ", "))
	latency := (slo.P95MS > 0 && light.P95MS > slo.P95MS) || (slo.P99MS > 0 && light.P99MS > slo.P99MS)
	errs := light.ErrorRate > slo.MaxErrorRate
	switch {
	case errs && len(light.ErrorsByKind) > 0:
		fmt.Fprintf(&b, "; most errors were %s: fix those before tuning load", topErrorKind(light.ErrorsByKind))
	case errs:
		b.WriteString("; fix the errors before tuning load")
	case latency && lightest:
		b.WriteString("; lower load will not help — the server's service time alone exceeds the target")
	case latency:
		b.WriteString("; try lower loads, or relax the target if one request alone takes this long")
	}
	return b.String()
}

// failures lists the SLO bounds p misses, in the order the contract names
// them, with the measured figure beside the bound.
func failures(p measure.Point, slo SLO) []string {
	var out []string
	if slo.P95MS > 0 && p.P95MS > slo.P95MS {
		out = append(out, fmt.Sprintf("p95 was %.1f ms, above the %s ms target", p.P95MS, fmtNum(slo.P95MS)))
	}
	if slo.P99MS > 0 && p.P99MS > slo.P99MS {
		out = append(out, fmt.Sprintf("p99 was %.1f ms, above the %s ms target", p.P99MS, fmtNum(slo.P99MS)))
	}
	if p.ErrorRate > slo.MaxErrorRate {
		out = append(out, fmt.Sprintf("error rate was %s, above the %s allowed", fmtPct(p.ErrorRate), fmtPct(slo.MaxErrorRate)))
	}
	return out
}

func firstInfeasibleAbove(points []measure.Point, slo SLO, c int) (measure.Point, bool) {
	for _, p := range points {
		if p.Concurrency > c && !slo.Feasible(p) {
			return p, true
		}
	}
	return measure.Point{}, false
}

func topErrorKind(m map[string]int64) string {
	kinds := slices.Sorted(maps.Keys(m))
	top := kinds[0]
	for _, k := range kinds {
		if m[k] > m[top] {
			top = k
		}
	}
	return top
}

// splitPoints separates closed-loop from open-loop points, each sorted by
// its load axis.
func splitPoints(points []measure.Point) (closed, open []measure.Point) {
	for _, p := range points {
		if p.Rate != nil {
			open = append(open, p)
		} else {
			closed = append(closed, p)
		}
	}
	slices.SortStableFunc(closed, func(a, b measure.Point) int { return cmp.Compare(a.Concurrency, b.Concurrency) })
	slices.SortStableFunc(open, func(a, b measure.Point) int { return cmp.Compare(*a.Rate, *b.Rate) })
	return closed, open
}

func ptr[T any](v T) *T { return &v }

// fmtNum prints a bound as the user typed it: 70, not 70.0; 0.5, not 0.50.
func fmtNum(v float64) string { return fmt.Sprint(v) }

func fmtRate(v float64) string { return fmt.Sprint(roundSig(v)) }

func fmtPct(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*v), "0"), ".") + "%"
}
