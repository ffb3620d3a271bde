package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// WriteRunJSON writes r as indented JSON.
func WriteRunJSON(w io.Writer, r *results.RunReport) error { return writeIndented(w, r) }

// WriteRunSummary is the short human summary on stdout.
func WriteRunSummary(w io.Writer, r *results.RunReport) error {
	p := &r.Point
	var b strings.Builder
	fmt.Fprintf(&b, "target    %s\n", targetLine(r.Target))
	switch {
	case p.Sessions != nil:
		fmt.Fprintf(&b, "load      %s, %s\n", sessionLoadLine(p), textfmt.OrDash(r.Workload.Scenario))
	case p.Rate != nil:
		fmt.Fprintf(&b, "load      open loop, %s rps offered, %d in flight at most, %s\n", textfmt.Float(*p.Rate), p.Concurrency, results.OperationsLine(r.Workload.Operations))
	default:
		fmt.Fprintf(&b, "load      closed loop, %d workers, %s\n", p.Concurrency, results.OperationsLine(r.Workload.Operations))
	}
	fmt.Fprintf(&b, "requests  %d in %.2fs: %d ok, %d errors (%s)\n", p.Requests, p.ElapsedS, p.OK, p.Errors, textfmt.Percent(p.ErrorRate))
	fmt.Fprintf(&b, "rps       %.1f\n", p.RPS)
	fmt.Fprintf(&b, "latency   min %s  mean %s  p50 %s  p90 %s  p95 %s  p99 %s  p99.9 %s  max %s ms\n",
		fmtMS(p.MinMS), fmtMS(p.MeanMS), fmtMS(p.P50MS), fmtMS(p.P90MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.P999MS), fmtMS(p.MaxMS))
	if u := p.Uncorrected; u != nil {
		// A report read from a file may carry one without the other.
		var lag measure.ScheduleLag
		if p.ScheduleLagMS != nil {
			lag = *p.ScheduleLagMS
		}
		fmt.Fprintf(&b, "uncorrected (from actual send)  p50 %s  p95 %s  p99 %s  max %s ms; schedule lag p99 %s ms\n",
			fmtMS(u.P50MS), fmtMS(u.P95MS), fmtMS(u.P99MS), fmtMS(u.MaxMS), fmtMS(lag.P99))
	}
	timingSummary(&b, p)
	shapesSummary(&b, r)
	if p.Sessions != nil {
		writeSessionSummary(&b, p) // its step table is the per-operation list
	} else {
		writeOperationLines(&b, p.ByOperation)
	}
	for _, k := range sortedKeys(p.ErrorsByKind) {
		ex := p.ErrorExamples[k]
		fmt.Fprintf(&b, "  %-16s %d  e.g. %s\n", k, p.ErrorsByKind[k], ex)
	}
	writeOperationErrors(&b, p.ByOperation)
	for _, t := range r.Workload.Tools {
		if t.CardinalityNote != "" {
			fmt.Fprintf(&b, "note      %s: %s\n", t.Name, t.CardinalityNote)
		}
	}
	writeGateLines(&b, r.Gates, func(v float64) string { return textfmt.Float(textfmt.Round3(v)) })
	if r.LogScan != nil {
		fmt.Fprintf(&b, "log       %s\n", logScanLine(r.LogScan))
		b.WriteString(logWarning(r.LogScan, "WARNING   "))
	}
	writeSoakSummary(&b, r.Soak)
	writeAbandoned(&b, r)
	if p.Client.Saturated {
		fmt.Fprintf(&b, "WARNING   the generator was saturated (%s): these figures describe mcpbench, not the server\n", p.Client.SaturationReason)
	}
	if p.Interrupted {
		b.WriteString("INTERRUPTED: figures cover the part measured before the stop\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOperationLines gives each operation of a mix (or each tool of
// --gen-args) its own line: which one is slow shows in the summary, not
// only in the files.
func writeOperationLines(b *strings.Builder, ops []measure.OperationStats) {
	width := 0
	for _, o := range ops {
		width = max(width, len(results.OperationName(o.Operation)))
	}
	for _, o := range ops {
		fmt.Fprintf(b, "  %-*s  %d requests, %d errors, %.1f rps, p50 %s  p95 %s  p99 %s ms\n", width, results.OperationName(o.Operation),
			o.Requests, o.Errors, o.RPS, fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS))
	}
}

// writeOperationErrors adds a line for each operation of a mix that had
// errors, with its count of each kind: which tool fails, and how.
func writeOperationErrors(b *strings.Builder, ops []measure.OperationStats) {
	for _, o := range ops {
		if o.Errors == 0 {
			continue
		}
		var kinds []string
		for _, k := range sortedKeys(o.ErrorsByKind) {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, o.ErrorsByKind[k]))
		}
		fmt.Fprintf(b, "  by %-13s %d of %d failed: %s\n", results.OperationName(o.Operation), o.Errors, o.Requests, strings.Join(kinds, ", "))
	}
}

// WriteRunMarkdown writes the Markdown report of a run.
func WriteRunMarkdown(w io.Writer, r *results.RunReport) error {
	p := &r.Point
	var b strings.Builder
	fmt.Fprintf(&b, "# mcpbench run: %s\n\n", textfmt.OrDash(r.Target.URL))
	if p.Interrupted {
		b.WriteString("> **Interrupted:** the figures cover what was measured before the stop.\n\n")
	}
	if r.Aborted != nil {
		b.WriteString("> **" + abortedLine(r.Aborted) + "**\n\n")
	}
	headerMarkdown(&b, &r.Header)
	if p.Sessions != nil {
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		if err := writeSessionMarkdown(w, r); err != nil {
			return err
		}
		return writeRunTail(w, r)
	}
	fmt.Fprintf(&b, "- **Workload:** %s\n", results.OperationsLine(r.Workload.Operations))
	if p.Rate != nil {
		fmt.Fprintf(&b, "- **Load:** open loop, %s requests/s offered, at most %d in flight\n", textfmt.Float(*p.Rate), p.Concurrency)
	} else {
		fmt.Fprintf(&b, "- **Load:** closed loop, %d workers\n", p.Concurrency)
	}
	fmt.Fprintf(&b, "- **Requests:** %d in %.2f s, %d ok, %d errors (%s); **%.1f rps**\n\n", p.Requests, p.ElapsedS, p.OK, p.Errors, textfmt.Percent(p.ErrorRate), p.RPS)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	rows := [][]string{{
		fmtMS(p.MinMS), fmtMS(p.MeanMS), fmtMS(p.P50MS), fmtMS(p.P90MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.P999MS), fmtMS(p.MaxMS),
	}}
	head := []string{"min ms", "mean ms", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "p99.9 ms", "max ms"}
	if u := p.Uncorrected; u != nil {
		rows[0] = append([]string{"from intended send"}, rows[0]...)
		rows = append(rows, []string{"from actual send", "", "", fmtMS(u.P50MS), "", fmtMS(u.P95MS), fmtMS(u.P99MS), "", fmtMS(u.MaxMS)})
		head = append([]string{"latency"}, head...)
	}
	if err := markdownTable(w, head, rows); err != nil {
		return err
	}
	if len(p.ByOperation) > 0 {
		io.WriteString(w, "\n## By operation\n\n")
		var rows [][]string
		for _, o := range p.ByOperation {
			rows = append(rows, []string{results.OperationName(o.Operation), fmt.Sprint(o.Requests), fmt.Sprint(o.Errors), fmt.Sprintf("%.1f", o.RPS), fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS), fmtMS(o.MaxMS)})
		}
		if err := markdownTable(w, []string{"operation", "requests", "errors", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms"}, rows); err != nil {
			return err
		}
	}
	return writeRunTail(w, r)
}

// writeRunTail writes the sections every run report ends with: timings,
// errors, gates, and the generator.
func writeRunTail(w io.Writer, r *results.RunReport) error {
	p := &r.Point
	if err := writeToolsTable(w, r.Workload.Tools); err != nil {
		return err
	}
	if err := writeTimingsMarkdown(w, p); err != nil {
		return err
	}
	if err := writeShapesMarkdown(w, p); err != nil {
		return err
	}
	if len(p.ErrorsByKind) > 0 {
		io.WriteString(w, "\n## Errors\n\n")
		var rows [][]string
		for _, k := range sortedKeys(p.ErrorsByKind) {
			rows = append(rows, []string{k, fmt.Sprint(p.ErrorsByKind[k]), p.ErrorExamples[k]})
		}
		if err := markdownTable(w, []string{"kind", "count", "first example"}, rows); err != nil {
			return err
		}
	}
	if err := writeExemplarsMarkdown(w, r.Exemplars); err != nil {
		return err
	}
	if err := writeGates(w, r.Gates); err != nil {
		return err
	}
	if err := writeSeriesMarkdown(w, p.Series, r.Soak); err != nil {
		return err
	}
	if r.LogScan != nil {
		io.WriteString(w, "\n## Server log\n\n")
		if err := logScanTable(w, r.LogScan); err != nil {
			return err
		}
	}
	c := p.Client
	fmt.Fprintf(w, "\n## Generator\n\npool %d connections, %.2f s CPU", c.PoolMaxConns, c.CPUS)
	if c.Saturated {
		fmt.Fprintf(w, "; **saturated**: %s. These figures describe the generator, not the server.", c.SaturationReason)
	}
	io.WriteString(w, "\n")
	return nil
}

// writeToolsTable lists the tools a run called with what their
// annotations say (nothing when it called none).
func writeToolsTable(w io.Writer, tools []workload.ToolInfo) error {
	if len(tools) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Tools called\n\n")
	var rows [][]string
	for _, t := range tools {
		rows = append(rows, []string{t.Name, toolTraits(t, 0)})
	}
	return markdownTable(w, []string{"tool", "annotations"}, rows)
}

func markdownTable(w io.Writer, head []string, rows [][]string) error {
	opts := append([]tablewriter.Option{
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
	}, columnAlignment(len(head), rows)...)
	t := tablewriter.NewTable(w, opts...)
	t.Header(head)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeGateLines writes a summary line for each gate, its value formatted
// by value.
func writeGateLines(b *strings.Builder, gates []results.Gate, value func(float64) string) {
	for _, g := range gates {
		verdict := "passed"
		if !g.Passed {
			verdict = "FAILED"
		}
		note := ""
		if g.Note != "" {
			note = "; " + g.Note
		}
		fmt.Fprintf(b, "gate      %s: %s (%s, limit %s%s)\n", g.Name, verdict, value(g.Value), textfmt.Float(g.Limit), note)
	}
}

// writeGates writes the Gates section (nothing when there are none), each
// value and limit in its figure's unit.
func writeGates(w io.Writer, gates []results.Gate) error {
	if len(gates) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Gates\n\n")
	var rows [][]string
	for _, g := range gates {
		v := "pass"
		if !g.Passed {
			v = "**FAIL**"
		}
		if g.Note != "" {
			v += " (" + g.Note + ")"
		}
		rows = append(rows, []string{g.Name, gateFigure(g.Name, g.Value), gateFigure(g.Name, g.Limit), v})
	}
	return markdownTable(w, []string{"gate", "value", "limit", "verdict"}, rows)
}

// gateLabel names a gate for people: "error rate", "p95".
func gateLabel(name string) string {
	switch name {
	case "error_rate":
		return "error rate"
	case "p95_ms":
		return "p95"
	case "p99_ms":
		return "p99"
	}
	return name
}

// gateFigure prints a gate's value or limit in its unit: a percentage
// for an error rate, milliseconds for a latency.
func gateFigure(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "error_rate"):
		return textfmt.Percent(v)
	case strings.HasSuffix(name, "_ms"):
		return fmtMS(v) + " ms"
	}
	return textfmt.Float(textfmt.Round3(v))
}
