package report

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/bench"
)

// SchemaCompare names compare's JSON output.
const SchemaCompare = "mcpbench.compare/v1"

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
		return sign + fmtFloat(l.Value) + "%"
	case kind == KindLatency:
		return sign + fmtFloat(round3(l.Value)) + " ms"
	case kind == KindRPS:
		return sign + fmtFloat(l.Value) + " rps"
	default:
		return sign + fmtFloat(l.Value)
	}
}

// Gates are compare's limits.
type Gates struct {
	P95, P99, RPS, ErrorRate Limit
}

// DefaultGates are the limits compare applies when given none. They
// leave room for run-to-run noise on a shared CI machine.
func DefaultGates() Gates {
	must := func(s string, k MetricKind) Limit { l, _ := ParseLimit(s, k); return l }
	return Gates{
		P95:       must("10%", KindLatency),
		P99:       must("20%", KindLatency),
		RPS:       must("10%", KindRPS),
		ErrorRate: must("0.01", KindErrorRate),
	}
}

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
}

// Report is a run or a sweep report, whichever a file held.
type Report struct {
	Run   *RunReport
	Sweep *SweepReport
}

// Kind is "run" or "sweep".
func (r Report) Kind() string {
	if r.Sweep != nil {
		return "sweep"
	}
	return "run"
}

// ReadReport reads a run or sweep report, telling them apart by schema.
func ReadReport(rd io.Reader) (Report, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return Report{}, err
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Report{}, fmt.Errorf("not a JSON report: %w", err)
	}
	switch head.Schema {
	case SchemaRun:
		r, err := ReadRunReport(strings.NewReader(string(b)))
		return Report{Run: r}, err
	case SchemaSweep:
		r, err := ReadSweepReport(strings.NewReader(string(b)))
		return Report{Sweep: r}, err
	case "":
		return Report{}, errors.New("no schema field: not an mcpbench report")
	default:
		return Report{}, fmt.Errorf("schema %s: only run and sweep reports can be compared or merged", head.Schema)
	}
}

// CompareRuns gates new against base.
func CompareRuns(base, cur *RunReport, g Gates) *Comparison {
	c := newComparison("run", base.Header, cur.Header)
	c.pointChecks("run", &base.Point, &cur.Point, g, true)
	c.workloadNotes(&base.Workload, &cur.Workload)
	c.finish()
	return c
}

// CompareSweeps gates new against base: the recommendation (a lower
// recommended or feasible concurrency, or a lower sustainable rate, is a
// regression), the knee (shown, not gated: the estimate moves a step on
// noise), and every point measured in both at the same level.
func CompareSweeps(base, cur *SweepReport, g Gates) *Comparison {
	c := newComparison("sweep", base.Header, cur.Header)
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

	newAt := map[string]*bench.Point{}
	for i := range cur.Points {
		newAt[levelName(&cur.Points[i])] = &cur.Points[i]
	}
	matched := map[string]bool{}
	var onlyBase []string
	for i := range base.Points {
		bp := &base.Points[i]
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
	for i := range cur.Points {
		if name := levelName(&cur.Points[i]); !matched[name] {
			onlyNew = append(onlyNew, name)
		}
	}
	if len(onlyBase) > 0 {
		c.Notes = append(c.Notes, "points only in the base, not compared: "+strings.Join(onlyBase, ", "))
	}
	if len(onlyNew) > 0 {
		c.Notes = append(c.Notes, "points only in the new report, not compared: "+strings.Join(onlyNew, ", "))
	}
	if base.SLO != cur.SLO {
		c.Notes = append(c.Notes, fmt.Sprintf("the SLOs differ (base %s, new %s): the recommendations answer different questions", sloLine(base.SLO), sloLine(cur.SLO)))
	}
	if base.Workload != nil && cur.Workload != nil {
		c.workloadNotes(base.Workload, cur.Workload)
	}
	c.finish()
	return c
}

func newComparison(kind string, b, n Header) *Comparison {
	src := func(h Header) Source {
		return Source{StartedAt: h.StartedAt, Target: h.Target.URL, MCPBenchVersion: h.MCPBenchVersion}
	}
	c := &Comparison{Schema: SchemaCompare, Kind: kind, Base: src(b), New: src(n), Checks: []Check{}}
	if b.Target.URL != n.Target.URL {
		c.Notes = append(c.Notes, fmt.Sprintf("the targets differ (base %s, new %s)", orDash(b.Target.URL), orDash(n.Target.URL)))
	}
	return c
}

func (c *Comparison) workloadNotes(b, n *Workload) {
	if b.Mode != n.Mode || opsLine(b.Operations) != opsLine(n.Operations) {
		c.Notes = append(c.Notes, fmt.Sprintf("the workloads differ (base %s loop %s, new %s loop %s)", b.Mode, orDash(opsLine(b.Operations)), n.Mode, orDash(opsLine(n.Operations))))
	}
}

// pointChecks compares the figures of one load level. full adds the
// ungated p50 and max a run's table shows.
func (c *Comparison) pointChecks(scope string, b, n *bench.Point, g Gates, full bool) {
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
			ch.Verdict, ch.Reason = VerdictRegression, fmt.Sprintf("dropped from %s to %s", fmtFloat(*b), fmtFloat(*n))
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
		ch.Reason = fmt.Sprintf("%s %s, beyond the limit of %s", ch.Metric, ch.changeText(), ch.Limit)
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

func levelName(p *bench.Point) string {
	if p.Rate != nil {
		return "rate " + fmtFloat(math.Round(*p.Rate*100)/100)
	}
	return "concurrency " + strconv.Itoa(p.Concurrency)
}

func ptrF(v float64) *float64 { return &v }

func intF(p *int) *float64 {
	if p == nil {
		return nil
	}
	return ptrF(float64(*p))
}

// fmtValue prints a figure in its metric's unit.
func (ch *Check) fmtValue(v *float64) string {
	if v == nil {
		return "none"
	}
	switch {
	case strings.HasSuffix(ch.Metric, "_ms"):
		return fmtMS(*v) + " ms"
	case ch.Metric == "error_rate":
		return fmtPercent(*v)
	case strings.Contains(ch.Metric, "rps"):
		return fmt.Sprintf("%.1f", *v)
	default:
		return fmtFloat(round3(*v))
	}
}

// changeText is the change as people read it: "+2.10 ms (+20.0%)".
func (ch *Check) changeText() string {
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
		abs = fmt.Sprintf("%+g", round3(d))
	}
	if ch.ChangePct != nil {
		return fmt.Sprintf("%s (%+.1f%%)", abs, *ch.ChangePct)
	}
	return abs
}

func verdictCell(v string) string {
	switch v {
	case VerdictRegression:
		return "❌ **regression**"
	case VerdictImproved:
		return "✅ improved"
	case VerdictPass:
		return "✅ pass"
	default:
		return "–"
	}
}

// WriteCompareMarkdown writes the comparison as Markdown fit for a pull
// request comment or $GITHUB_STEP_SUMMARY.
func WriteCompareMarkdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcpbench compare (%s)\n\n", c.Kind)
	if c.Passed {
		b.WriteString("**✅ No regression.**\n\n")
	} else {
		fmt.Fprintf(&b, "**❌ %d regression(s).**\n\n", c.Regressions)
	}
	for _, s := range []struct {
		name string
		src  Source
	}{{"Base", c.Base}, {"New", c.New}} {
		fmt.Fprintf(&b, "- **%s:** ", s.name)
		if s.src.Path != "" {
			fmt.Fprintf(&b, "`%s`, ", s.src.Path)
		}
		fmt.Fprintf(&b, "%s, started %s\n", orDash(s.src.Target), s.src.StartedAt.UTC().Format(time.RFC3339))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	rows := make([][]string, 0, len(c.Checks))
	for i := range c.Checks {
		ch := &c.Checks[i]
		rows = append(rows, []string{ch.Scope, ch.Metric, ch.fmtValue(ch.Base), ch.fmtValue(ch.New), ch.changeText(), orDash(ch.Limit), verdictCell(ch.Verdict)})
	}
	if err := markdownTable(w, []string{"scope", "figure", "base", "new", "change", "limit", "verdict"}, rows); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	b.Reset()
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	return nil
}

// WriteCompareJSON writes the comparison as indented JSON.
func WriteCompareJSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("compare json: %w", err)
	}
	return nil
}

// JUnit XML, the subset CI systems read: one test case per gate.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteCompareJUnit writes one JUnit test case per gated figure; a
// regression is a failure.
func WriteCompareJUnit(w io.Writer, c *Comparison) error {
	s := junitSuite{Name: "mcpbench compare " + c.Kind, Time: "0", Timestamp: c.New.StartedAt.UTC().Format("2006-01-02T15:04:05")}
	for i := range c.Checks {
		ch := &c.Checks[i]
		if !ch.Gated {
			continue
		}
		detail := fmt.Sprintf("base %s, new %s, change %s, limit %s", ch.fmtValue(ch.Base), ch.fmtValue(ch.New), ch.changeText(), ch.Limit)
		tc := junitCase{Name: ch.Scope + ": " + ch.Metric, Classname: "mcpbench.compare." + c.Kind, Time: "0"}
		if ch.Verdict == VerdictRegression {
			tc.Failure = &junitFailure{Message: ch.Reason, Type: "regression", Text: detail}
			s.Failures++
		} else {
			tc.SystemOut = ch.Verdict + ": " + detail
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	doc := junitSuites{Name: "mcpbench compare", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("compare junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("compare junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
