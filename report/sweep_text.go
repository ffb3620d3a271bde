package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// WriteSweepMarkdown writes the sweep report as a Markdown document: what
// was measured, the points table, the knee, the USL fit and the
// recommendation with its reason.
func WriteSweepMarkdown(w io.Writer, r *results.SweepReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# mcpbench sweep: %s\n\n", textfmt.OrDash(r.Target.URL))
	if r.Interrupted {
		b.WriteString("> **Interrupted:** the sweep was stopped early; the figures below cover the points measured before that.\n\n")
	}
	headerMarkdown(&b, &r.Header)
	fmt.Fprintf(&b, "- **SLO:** %s\n\n", results.SLOLine(r.SLO))

	b.WriteString("## Points\n\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}
	b.Reset()
	if err := writePointsTable(w, r, true); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}
	if err := writeSweepOperations(w, r); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}

	for _, w := range sweepWarnings(r) {
		fmt.Fprintf(&b, "\n> **WARNING** %s\n", w)
	}
	if hasClosedPoints(r) {
		// Knee and USL describe concurrency; a rate sweep has neither.
		b.WriteString("\n## Knee\n\n")
		b.WriteString(kneeLine(r.Knee) + "\n")
		b.WriteString("\n## Universal Scalability Law\n\n")
		b.WriteString(uslLine(r.USL) + "\n")
	}
	b.WriteString("\n## Recommendation\n\n")
	for _, l := range recommendationLines(r) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Recommendation.Reason)
	if r.LogScan != nil {
		b.WriteString("\n## Server log\n\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}
	if r.LogScan != nil {
		if err := logScanTable(w, r.LogScan); err != nil {
			return fmt.Errorf("sweep markdown: %w", err)
		}
	}
	if err := writeExemplarsMarkdown(w, r.Exemplars); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}
	if err := writeGates(w, r.Gates); err != nil {
		return fmt.Errorf("sweep markdown: %w", err)
	}
	return nil
}

// sweepWarnings are what a reader of the points must be told beside them,
// each a sentence: the points the generator saturated, and a point cut
// short. The text, the Markdown and the HTML page all say them.
func sweepWarnings(r *results.SweepReport) []string {
	var out []string
	if s := r.SaturationNote(); s != "" {
		out = append(out, strings.ToUpper(s[:1])+s[1:]+".")
	}
	for _, p := range r.Points {
		if p.Interrupted {
			out = append(out, "The point at "+results.LevelName(&p)+" was cut short by the interrupt: it is shown but left out of the knee, the fit and the recommendation.")
		}
	}
	return out
}

// hasClosedPoints reports whether the sweep measured concurrency levels.
func hasClosedPoints(r *results.SweepReport) bool {
	for _, p := range r.Points {
		if p.Rate == nil {
			return true
		}
	}
	return false
}

// writeSweepOperations adds, for a mix, each operation's figures at each
// level, so a slow tool shows where it starts to hurt.
func writeSweepOperations(w io.Writer, r *results.SweepReport) error {
	var rows [][]string
	for _, p := range r.Points {
		level := fmt.Sprint(p.Concurrency)
		if p.Rate != nil {
			level = textfmt.Float(*p.Rate) + " rps"
		}
		for _, o := range p.ByOperation {
			rows = append(rows, []string{level, results.OperationName(o.Operation), fmt.Sprint(o.Requests), fmt.Sprint(o.Errors),
				fmt.Sprintf("%.1f", o.RPS), fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	title, column := "By operation", "operation"
	if r.Workload != nil && r.Workload.Scenario != "" {
		title, column = "By step", "step"
	}
	if _, err := fmt.Fprintf(w, "\n## %s\n\n", title); err != nil {
		return err
	}
	return markdownTable(w, []string{"level", column, "requests", "errors", "rps", "p50 ms", "p95 ms", "p99 ms"}, rows)
}

// WriteSweepTable writes the human summary for a terminal: the points as
// an ASCII table, then the knee, the fit and the recommendation.
func WriteSweepTable(w io.Writer, r *results.SweepReport) error {
	if _, err := fmt.Fprintf(w, "sweep of %s — SLO %s\n", textfmt.OrDash(r.Target.URL), results.SLOLine(r.SLO)); err != nil {
		return fmt.Errorf("sweep table: %w", err)
	}
	if err := writePointsTable(w, r, false); err != nil {
		return fmt.Errorf("sweep table: %w", err)
	}
	var b strings.Builder
	if r.Interrupted {
		b.WriteString("interrupted: analysis covers the points measured so far\n")
	}
	for _, w := range sweepWarnings(r) {
		b.WriteString("WARNING " + w + "\n")
	}
	if hasClosedPoints(r) {
		fmt.Fprintf(&b, "knee: %s\n", kneeLine(r.Knee))
		fmt.Fprintf(&b, "usl:  %s\n", uslLine(r.USL))
	}
	for _, l := range recommendationLines(r) {
		b.WriteString(strings.ReplaceAll(l, "**", "") + "\n")
	}
	fmt.Fprintf(&b, "reason: %s\n", r.Recommendation.Reason)
	if ops := sweepOperationTotals(r.Points); len(ops) > 0 {
		writeOperationErrors(&b, ops)
	}
	if ls := r.LogScan; ls != nil {
		fmt.Fprintf(&b, "log:  %s\n", logScanLine(ls))
		b.WriteString(logWarning(ls, "WARNING: "))
	}
	writeGateLines(&b, r.Gates, textfmt.Float)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("sweep table: %w", err)
	}
	return nil
}

// sweepOperationTotals adds up each operation's requests and errors over
// the points, for the summary's errors by tool.
func sweepOperationTotals(points []measure.Point) []measure.OperationStats {
	var out []measure.OperationStats
	for _, p := range points {
		for _, o := range p.ByOperation {
			i := slices.IndexFunc(out, func(t measure.OperationStats) bool { return t.Operation == o.Operation })
			if i < 0 {
				out = append(out, measure.OperationStats{Operation: o.Operation, Latency: measure.Latency{ErrorsByKind: map[string]int64{}}})
				i = len(out) - 1
			}
			out[i].Requests += o.Requests
			out[i].Errors += o.Errors
			for k, n := range o.ErrorsByKind {
				out[i].ErrorsByKind[k] += n
			}
		}
	}
	return out
}

// writePointsTable renders one row per point, as Markdown or as an ASCII
// table for a terminal. The load columns follow the kind of sweep:
// concurrency, rate, or both for a mixed report.
func writePointsTable(w io.Writer, r *results.SweepReport, markdown bool) error {
	var hasClosed, hasOpen bool
	for _, p := range r.Points {
		if p.Rate != nil {
			hasOpen = true
		} else {
			hasClosed = true
		}
	}
	var header []string
	if hasClosed || !hasOpen {
		header = append(header, "concurrency")
	}
	if hasOpen {
		header = append(header, "rate")
	}
	header = append(header, "requests", "ok", "errors", "error rate", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms", "feasible")
	sessions := slices.ContainsFunc(r.Points, func(p measure.Point) bool { return p.Sessions != nil })
	if sessions {
		header = append(header, "sessions/s", "session p95 ms")
	}

	var rows [][]string
	for _, p := range r.Points {
		var row []string
		if hasClosed || !hasOpen {
			if p.Rate != nil && p.Concurrency <= 0 {
				row = append(row, "–")
			} else {
				row = append(row, strconv.Itoa(p.Concurrency))
			}
		}
		if hasOpen {
			if p.Rate != nil {
				row = append(row, textfmt.Float(*p.Rate))
			} else {
				row = append(row, "–")
			}
		}
		row = append(row,
			strconv.FormatInt(p.Requests, 10),
			strconv.FormatInt(p.OK, 10),
			strconv.FormatInt(p.Errors, 10),
			textfmt.Percent(p.ErrorRate),
			fmt.Sprintf("%.1f", p.RPS),
			fmtMS(p.P50MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.MaxMS),
			feasibleMark(p, r.SLO),
		)
		if sessions {
			row = append(row, sessionCells(p.Sessions)...)
		}
		rows = append(rows, row)
	}
	if markdown {
		return markdownTable(w, header, rows)
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignRight),
		tablewriter.WithRowAlignment(tw.AlignRight),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// sessionCells are a session point's own columns: completed sessions a
// second and a session's p95 duration.
func sessionCells(s *measure.SessionStats) []string {
	if s == nil {
		return []string{"–", "–"}
	}
	return []string{fmt.Sprintf("%.2f", s.PerSecond), fmtMS(s.Duration.P95MS)}
}

func feasibleMark(p measure.Point, slo sweep.SLO) string {
	if p.Interrupted {
		return "cut short"
	}
	if slo.Met(p) {
		return "✓"
	}
	return "✗"
}

// headerMarkdown writes the lines every Markdown report opens with, in the
// same form for each: the target, the start time and the mcpbench that
// measured.
func headerMarkdown(b *strings.Builder, h *results.Header) {
	fmt.Fprintf(b, "- **Target:** %s\n", targetLine(h.Target))
	if !h.StartedAt.IsZero() {
		fmt.Fprintf(b, "- **Started:** %s\n", h.StartedAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(b, "- **mcpbench:** %s\n", textfmt.OrDash(h.MCPBenchVersion))
}

func targetLine(t results.Target) string {
	parts := []string{"`" + textfmt.OrDash(t.URL) + "`"}
	var extra []string
	if t.Transport != "" {
		extra = append(extra, t.Transport)
	}
	if t.ProtocolVersion != "" {
		extra = append(extra, "protocol "+t.ProtocolVersion)
	}
	if t.ServerName != "" {
		extra = append(extra, strings.TrimSpace(t.ServerName+" "+t.ServerVersion))
	}
	if len(extra) > 0 {
		parts = append(parts, "("+strings.Join(extra, ", ")+")")
	}
	return strings.Join(parts, " ")
}

func kneeLine(k *sweep.Knee) string {
	if k == nil {
		return "no knee: no closed-loop points."
	}
	if k.Method == sweep.KneePeak {
		return fmt.Sprintf("concurrency %d (%s: the highest throughput; too few points or no bend for Kneedle).", k.Concurrency, k.Method)
	}
	return fmt.Sprintf("concurrency %d (%s).", k.Concurrency, k.Method)
}

func uslLine(u *sweep.USL) string {
	if u == nil {
		return "not fitted: too few concurrency levels, a zero or invalid throughput, or data the law does not describe."
	}
	s := fmt.Sprintf("σ = %.4g (contention), κ = %.4g (coherency), λ = %.4g rps per worker, r² = %.3f",
		u.Sigma, u.Kappa, u.Lambda, u.R2)
	switch {
	case u.PeakConcurrency != nil && u.PeakRPS != nil:
		s += fmt.Sprintf("; modelled peak %.1f rps at concurrency %.1f.", *u.PeakRPS, *u.PeakConcurrency)
	case u.PeakRPS != nil:
		s += fmt.Sprintf("; no retrograde peak (κ = 0), throughput approaches %.1f rps.", *u.PeakRPS)
	default:
		s += "; linear scaling over the range measured, no ceiling in sight."
	}
	return s
}

// recommendationLines are the recommendation's figures for the kinds of
// point the sweep measured: concurrency figures for concurrency levels,
// the sustainable rate for rates.
func recommendationLines(r *results.SweepReport) []string {
	rec := r.Recommendation
	var out []string
	if hasClosedPoints(r) || len(r.Points) == 0 {
		out = append(out,
			"**Recommended concurrency:** "+intOrNone(rec.RecommendedConcurrency),
			"**Max feasible concurrency:** "+intOrNone(rec.MaxFeasibleConcurrency),
			"**Feasible concurrency:** "+intsOrNone(rec.FeasibleConcurrency),
			"**Knee concurrency:** "+intOrNone(rec.KneeConcurrency),
		)
	}
	if len(r.Points) > 0 && r.Points[len(r.Points)-1].Rate != nil {
		rate := "none"
		if rec.MaxSustainableRPS != nil {
			rate = textfmt.Float(*rec.MaxSustainableRPS) + " rps"
		}
		out = append(out, "**Max sustainable rate:** "+rate)
	}
	return out
}

func intOrNone(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}

func intsOrNone(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// fmtMS keeps two decimals below 10 ms, where they still mean something,
// and one above.
func fmtMS(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
