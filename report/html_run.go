package report

import (
	"fmt"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// runPage lays out the HTML report of a run (or of merged shards).
func runPage(r *results.RunReport) *htmlPage {
	p := &r.Point
	page := &htmlPage{
		Title:    "mcpbench run: " + textfmt.OrDash(r.Target.URL),
		Subtitle: runSubtitle(r),
		Version:  r.MCPBenchVersion,
		Verdict:  runVerdict(r),
	}
	page.add(htmlSection{ID: "summary", Title: "Summary", Tables: append([]htmlTable{countsTable(p), latencyTable(p)}, gatesTable(r.Gates)...)})
	for _, s := range runSeriesSections(r) {
		page.add(s)
	}
	if s := shapesSection(p); s != nil {
		page.add(*s)
	}
	page.add(htmlSection{ID: "spectrum", Title: "Latency by percentile", Charts: []*htmlChart{pointSpectrum("spectrum", "Latency by percentile", p)}})
	if len(p.ByOperation) > 0 {
		head, rows := operationsTable("", p.ByOperation)
		page.add(htmlSection{ID: "operations", Title: "By operation", Tables: []htmlTable{newTable("Each operation (method and tool) of the mix", head, rows)}})
	}
	if p.Errors > 0 {
		page.add(htmlSection{ID: "errors", Title: "Errors", Intro: []string{errorsLine(p)}, Tables: []htmlTable{errorsTable(p)}})
	}
	if s := exemplarsSection(r.Exemplars); s != nil {
		page.add(*s)
	}
	if s := serverSection(r.Health, r.LogScan); s != nil {
		page.add(*s)
	}
	page.Env = append(headerEnv(&r.Header), workloadEnv(&r.Workload, p), clientEnv(p.Client))
	page.Env = append(page.Env, shardEnv(r.Shard, r.Merged)...)
	return page
}

func runSubtitle(r *results.RunReport) string {
	parts := []string{loadText(&r.Point), results.OperationsLine(r.Workload.Operations)}
	if s := startedText(r.StartedAt); s != "" {
		parts = append(parts, "started "+s)
	}
	if r.Merged != nil {
		parts = append(parts, fmt.Sprintf("merged from %d reports", r.Merged.Reports))
	}
	return strings.Join(parts, " · ")
}

// runVerdict says in plain words whether the run passed and what a reader
// should know before trusting its figures.
func runVerdict(r *results.RunReport) htmlVerdict {
	p := &r.Point
	v := htmlVerdict{Level: levelPass}
	var failed []string
	for _, g := range r.Gates {
		if !g.Passed {
			failed = append(failed, gateSentence(g))
		}
	}
	switch {
	case len(failed) > 0:
		v.Level, v.Headline = levelFail, "Failed: "+strings.Join(failed, "; ")
	case len(r.Gates) > 0:
		v.Headline = "Passed: every gate held"
	default:
		v.Headline = "Measured; this report carries no gates"
	}
	v.Lines = append(v.Lines, fmt.Sprintf("%d requests in %.1f s at %.1f rps; p50 %s ms, p95 %s ms, p99 %s ms, max %s ms.",
		p.Requests, p.ElapsedS, p.RPS, fmtMS(p.P50MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.MaxMS)))
	v.Lines = append(v.Lines, errorsLine(p))
	if p.Rate != nil {
		v.Lines = append(v.Lines, openLoopLine(p))
		if p.Unsent > 0 {
			v.warn(fmt.Sprintf("%d requests due in the window were never sent: the generator fell behind the schedule.", p.Unsent))
		}
	}
	if p.Client.Saturated {
		v.warn("The generator was saturated: " + p.Client.SaturationReason + ". These figures describe mcpbench, not the server.")
	}
	if p.Interrupted && r.Aborted == nil {
		v.warn("Interrupted: the figures cover what was measured before the stop.")
	}
	if r.Aborted != nil {
		v.Level, v.Headline = levelFail, abortedLine(r.Aborted)
	}
	v.addMerge(r.Merged)
	for _, l := range runSeriesVerdicts(r) {
		v.warn(l)
	}
	if v.Level == levelWarn && len(failed) == 0 && len(r.Gates) > 0 {
		v.Headline = "Passed every gate, with warnings"
	}
	return v
}

// openLoopLine compares what an open loop offered with what it achieved.
func openLoopLine(p *measure.Point) string {
	s := fmt.Sprintf("Open loop: %s rps offered, %.1f rps achieved", textfmt.Float(*p.Rate), p.RPS)
	if u := p.Uncorrected; u != nil {
		s += fmt.Sprintf("; p99 %s ms from the intended send against %s ms from the actual send", fmtMS(p.P99MS), fmtMS(u.P99MS))
	}
	if l := p.ScheduleLagMS; l != nil {
		s += fmt.Sprintf("; schedule lag p99 %s ms", fmtMS(l.P99))
	}
	return s + "."
}

// gateSentence is a failed or passed gate in words.
func gateSentence(g results.Gate) string {
	rel := "within"
	if !g.Passed {
		rel = "above"
	}
	return fmt.Sprintf("%s %s %s the limit of %s", gateLabel(g.Name), gateFigure(g.Name, g.Value), rel, gateFigure(g.Name, g.Limit))
}

// gatesTable lists the gates with their verdicts, failed ones highlighted.
func gatesTable(gates []results.Gate) []htmlTable {
	if len(gates) == 0 {
		return nil
	}
	t := htmlTable{Caption: "Gates", Head: []string{"gate", "value", "limit", "verdict"}}
	for _, g := range gates {
		verdict := "pass"
		if !g.Passed {
			verdict = "FAIL"
		}
		t.Rows = append(t.Rows, []string{gateLabel(g.Name), gateFigure(g.Name, g.Value), gateFigure(g.Name, g.Limit), verdict})
		t.Bad = append(t.Bad, !g.Passed)
	}
	t.Numeric = numericColumns(len(t.Head), t.Rows)
	return []htmlTable{t}
}

// pointSpectrum is the percentile spectrum of one point: the latency as
// recorded and, for an open loop, measured from the actual send.
func pointSpectrum(id, title string, p *measure.Point) *htmlChart {
	corrected, uncorrected := pointHistograms(p)
	xs := spectrumX(max(histCount(corrected), histCount(uncorrected)))
	c := newSpectrumChart(xs, p.Uncorrected != nil)
	c.ID, c.Title = id, title
	if p.Uncorrected != nil {
		c.Series = []htmlSeries{
			{Label: "from intended send", Color: hexP99, Y: spectrumValues(corrected, xs)},
			{Label: "from actual send", Color: hexRPS, Y: spectrumValues(uncorrected, xs), Dash: true},
		}
		return c
	}
	c.Series = []htmlSeries{{Label: "latency", Color: hexP99, Y: spectrumValues(corrected, xs)}}
	return c
}
