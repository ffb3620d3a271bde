package results

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
)

// SchemaCompare names compare's JSON output.
const SchemaCompare = "mcpbench.compare/v1"

// Verdicts of a check.
const (
	VerdictPass       = "pass"
	VerdictImproved   = "improved"
	VerdictRegression = "regression"
	VerdictInfo       = "info"
)

// Check is one figure compared between the base and the new report.
type Check struct {
	// Scope is what the figure belongs to: "run", "concurrency 8",
	// "rate 100", "recommendation" or "knee".
	Scope  string   `json:"scope"`
	Metric string   `json:"metric"`
	Base   *float64 `json:"base"`
	New    *float64 `json:"new"`
	// Change is new − base; ChangePct is that relative to base, in
	// percent (null when base is 0 or either side is missing).
	Change    *float64 `json:"change"`
	ChangePct *float64 `json:"change_pct"`
	// Limit is the gate as a signed change in the bad direction; empty
	// for figures shown without a gate.
	Limit   string `json:"limit,omitempty"`
	Gated   bool   `json:"gated"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`

	kind MetricKind
}

// Source names one side of a comparison.
type Source struct {
	Path            string    `json:"path,omitempty"`
	StartedAt       time.Time `json:"started_at"`
	Target          string    `json:"target"`
	MCPBenchVersion string    `json:"mcpbench_version"`
}

// Comparison is compare's result, written as mcpbench.compare/v1.
type Comparison struct {
	Schema      string   `json:"schema"`
	Kind        string   `json:"kind"` // run or sweep
	Base        Source   `json:"base"`
	New         Source   `json:"new"`
	Checks      []Check  `json:"checks"`
	Regressions int      `json:"regressions"`
	Passed      bool     `json:"passed"`
	Notes       []string `json:"notes,omitempty"`
	// Noise is each run figure's shift as the two reports' per-interval
	// series show it (compare_noise.go); absent without series.
	Noise []Noise `json:"noise,omitempty"`

	// MCPBenchVersion is the mcpbench that compared (each side's own
	// version is in its Source).
	MCPBenchVersion string `json:"mcpbench_version,omitempty"`
	// BaseReport and NewReport are the reports compared, for renderers
	// that draw them side by side (the HTML page overlays their charts).
	BaseReport, NewReport Report `json:"-"`
}

// CompareRuns gates new against base.
func CompareRuns(base, cur *RunReport, g Limits) *Comparison {
	c := newComparison("run", base.Header, cur.Header)
	c.BaseReport, c.NewReport = Report{Run: base}, Report{Run: cur}
	c.pointChecks("run", &base.Point, &cur.Point, g, true)
	c.noiseChecks(&base.Point, &cur.Point)
	c.workloadNotes(&base.Workload, &cur.Workload)
	c.finish()
	return c
}

// CompareSweeps gates new against base: the recommendation (a lower
// recommended or feasible concurrency, or a lower sustainable rate, is a
// regression), the knee (shown, not gated: the estimate moves a step on
// noise), and every point measured in both at the same level.
func CompareSweeps(base, cur *SweepReport, g Limits) *Comparison {
	c := newComparison("sweep", base.Header, cur.Header)
	c.BaseReport, c.NewReport = Report{Sweep: base}, Report{Sweep: cur}
	br, nr := base.Recommendation, cur.Recommendation
	c.dropCheck("recommended_concurrency", intF(br.RecommendedConcurrency), intF(nr.RecommendedConcurrency))
	c.dropCheck("max_feasible_concurrency", intF(br.MaxFeasibleConcurrency), intF(nr.MaxFeasibleConcurrency))
	c.dropCheck("max_sustainable_rps", br.MaxSustainableRPS, nr.MaxSustainableRPS)
	var bk, nk *float64
	if base.Knee != nil {
		bk = ptrF(float64(base.Knee.Concurrency))
	}
	if cur.Knee != nil {
		nk = ptrF(float64(cur.Knee.Concurrency))
	}
	if bk != nil || nk != nil {
		c.add(Check{Scope: "knee", Metric: "concurrency", Base: bk, New: nk, kind: KindRPS}, Limit{Off: true})
	}
	c.add(Check{Scope: "summary", Metric: "peak_rps", Base: ptrF(base.Summary.PeakRPS), New: ptrF(cur.Summary.PeakRPS), kind: KindRPS}, Limit{Off: true})

	c.pointsAtSameLevels(base.Points, cur.Points, g)
	if base.SLO != cur.SLO {
		c.Notes = append(c.Notes, fmt.Sprintf("the SLOs differ (base %s, new %s): the recommendations answer different questions", SLOLine(base.SLO), SLOLine(cur.SLO)))
	}
	if base.Workload != nil && cur.Workload != nil {
		c.workloadNotes(base.Workload, cur.Workload)
	}
	c.finish()
	return c
}

// pointsAtSameLevels compares the points measured at the same level in
// both sweeps and notes the levels only one of them measured.
func (c *Comparison) pointsAtSameLevels(basePoints, curPoints []measure.Point, g Limits) {
	newAt := map[string]*measure.Point{}
	for i := range curPoints {
		newAt[levelName(&curPoints[i])] = &curPoints[i]
	}
	matched := map[string]bool{}
	var onlyBase []string
	for i := range basePoints {
		bp := &basePoints[i]
		name := levelName(bp)
		np, ok := newAt[name]
		if !ok || matched[name] {
			onlyBase = append(onlyBase, name)
			continue
		}
		matched[name] = true
		c.pointChecks(name, bp, np, g, false)
	}
	var onlyNew []string
	for i := range curPoints {
		if name := levelName(&curPoints[i]); !matched[name] {
			onlyNew = append(onlyNew, name)
		}
	}
	if len(onlyBase) > 0 {
		c.Notes = append(c.Notes, "points only in the base, not compared: "+strings.Join(onlyBase, ", "))
	}
	if len(onlyNew) > 0 {
		c.Notes = append(c.Notes, "points only in the new report, not compared: "+strings.Join(onlyNew, ", "))
	}
}

func newComparison(kind string, b, n Header) *Comparison {
	src := func(h Header) Source {
		return Source{StartedAt: h.StartedAt, Target: h.Target.URL, MCPBenchVersion: h.MCPBenchVersion}
	}
	c := &Comparison{Schema: SchemaCompare, Kind: kind, Base: src(b), New: src(n), Checks: []Check{}}
	if b.Target.URL != n.Target.URL {
		c.Notes = append(c.Notes, fmt.Sprintf("the targets differ (base %s, new %s)", textfmt.OrDash(b.Target.URL), textfmt.OrDash(n.Target.URL)))
	}
	return c
}

func (c *Comparison) workloadNotes(b, n *Workload) {
	if b.Mode != n.Mode || OperationsLine(b.Operations) != OperationsLine(n.Operations) {
		c.Notes = append(c.Notes, fmt.Sprintf("the workloads differ (base %s loop %s, new %s loop %s)", b.Mode, textfmt.OrDash(OperationsLine(b.Operations)), n.Mode, textfmt.OrDash(OperationsLine(n.Operations))))
	}
}

// pointChecks compares the figures of one load level. full adds the
// ungated p50 and max a run's table shows.
func (c *Comparison) pointChecks(scope string, b, n *measure.Point, g Limits, full bool) {
	if full {
		c.add(Check{Scope: scope, Metric: "p50_ms", Base: ptrF(b.P50MS), New: ptrF(n.P50MS), kind: KindLatency}, Limit{Off: true})
	}
	c.add(Check{Scope: scope, Metric: "p95_ms", Base: ptrF(b.P95MS), New: ptrF(n.P95MS), kind: KindLatency}, g.P95)
	c.add(Check{Scope: scope, Metric: "p99_ms", Base: ptrF(b.P99MS), New: ptrF(n.P99MS), kind: KindLatency}, g.P99)
	if full {
		c.add(Check{Scope: scope, Metric: "max_ms", Base: ptrF(b.MaxMS), New: ptrF(n.MaxMS), kind: KindLatency}, Limit{Off: true})
	}
	c.add(Check{Scope: scope, Metric: "rps", Base: ptrF(b.RPS), New: ptrF(n.RPS), kind: KindRPS}, g.RPS)
	c.add(Check{Scope: scope, Metric: "error_rate", Base: ptrF(b.ErrorRate), New: ptrF(n.ErrorRate), kind: KindErrorRate}, g.ErrorRate)
	if b.Sessions != nil && n.Sessions != nil {
		c.sessionChecks(scope, b, n, g)
	}
	c.stageChecks(scope, b, n, g)
}

// dropCheck gates a recommendation figure: any drop, or losing it
// altogether, is a regression. Absent on both sides, it is left out.
func (c *Comparison) dropCheck(metric string, b, n *float64) {
	if b == nil && n == nil {
		return
	}
	ch := Check{Scope: "recommendation", Metric: metric, Base: b, New: n, Limit: "no drop", Gated: true, kind: KindRPS}
	switch {
	case b == nil:
		ch.Verdict, ch.Reason = VerdictImproved, "the base had none"
	case n == nil:
		ch.Verdict, ch.Reason = VerdictRegression, "the new report has none: no point met the SLO"
	default:
		ch.setChange()
		switch {
		case *n < *b:
			ch.Verdict, ch.Reason = VerdictRegression, fmt.Sprintf("dropped from %s to %s", textfmt.Float(*b), textfmt.Float(*n))
		case *n > *b:
			ch.Verdict = VerdictImproved
		default:
			ch.Verdict = VerdictPass
		}
	}
	c.Checks = append(c.Checks, ch)
}

// add judges ch against lim and appends it.
func (c *Comparison) add(ch Check, lim Limit) {
	ch.setChange()
	if lim.Off {
		ch.Verdict = VerdictInfo
		c.Checks = append(c.Checks, ch)
		return
	}
	ch.Gated, ch.Limit = true, lim.label(ch.kind)
	b, n := *ch.Base, *ch.New
	worst := lim.worst(b, ch.kind)
	// A hair of slack so that equal figures never fail on rounding.
	slack := 1e-9 * max(1, math.Abs(worst))
	better := n < b
	if ch.kind == KindRPS {
		better = n > b
	}
	switch {
	case ch.kind == KindRPS && n < worst-slack, ch.kind != KindRPS && n > worst+slack:
		ch.Verdict = VerdictRegression
		ch.Reason = fmt.Sprintf("%s %s, beyond the limit of %s", ch.Metric, ch.ChangeText(), ch.Limit)
	case better:
		ch.Verdict = VerdictImproved
	default:
		ch.Verdict = VerdictPass
	}
	c.Checks = append(c.Checks, ch)
}

func (ch *Check) setChange() {
	if ch.Base == nil || ch.New == nil {
		return
	}
	d := *ch.New - *ch.Base
	ch.Change = &d
	if *ch.Base != 0 {
		ch.ChangePct = ptrF(100 * d / math.Abs(*ch.Base))
	}
}

func (c *Comparison) finish() {
	for _, ch := range c.Checks {
		if ch.Verdict == VerdictRegression {
			c.Regressions++
		}
	}
	c.Passed = c.Regressions == 0
}

func ptrF(v float64) *float64 { return &v }

func intF(p *int) *float64 {
	if p == nil {
		return nil
	}
	return ptrF(float64(*p))
}

// ChangeText is the change as people read it: "+2.10 ms (+20.0%)".
func (ch *Check) ChangeText() string {
	if ch.Change == nil {
		return "–"
	}
	d := *ch.Change
	var abs string
	switch {
	case strings.HasSuffix(ch.Metric, "_ms"):
		abs = fmt.Sprintf("%+.2f ms", d)
	case ch.Metric == "error_rate":
		abs = fmt.Sprintf("%+.2f pp", 100*d)
	case strings.Contains(ch.Metric, "rps"):
		abs = fmt.Sprintf("%+.1f", d)
	default:
		abs = fmt.Sprintf("%+g", textfmt.Round3(d))
	}
	if ch.ChangePct != nil {
		return fmt.Sprintf("%s (%+.1f%%)", abs, *ch.ChangePct)
	}
	return abs
}
