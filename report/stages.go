package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// A staged run (--stages, --rate-stages) reports each stage, each spike's
// recovery, and, when a threshold stopped it, why. Nothing is written for
// a run without them.

// stageTableHead and stageTableRows are the stages as a table.
var stageTableHead = []string{"stage", "from s", "to s", "target", "requests", "rps", "p50 ms", "p95 ms", "p99 ms", "errors", "error rate"}

func stageTableRows(p *measure.Point) [][]string {
	rows := make([][]string, 0, len(p.Stages))
	for i, st := range p.Stages {
		rows = append(rows, []string{fmt.Sprint(i + 1), textfmt.Float(st.FromS), textfmt.Float(st.ToS), textfmt.Float(st.Target),
			fmt.Sprint(st.Requests), fmt.Sprintf("%.1f", st.RPS), fmtMS(st.P50MS), fmtMS(st.P95MS), fmtMS(st.P99MS),
			fmt.Sprint(st.Errors), textfmt.Percent(st.ErrorRate)})
	}
	return rows
}

var spikeTableHead = []string{"spike after stage", "back at stage", "ended at s", "baseline p99 ms", "recovery s"}

func spikeTableRows(p *measure.Point) [][]string {
	rows := make([][]string, 0, len(p.Spikes))
	for _, sp := range p.Spikes {
		rec := textfmt.Float(textfmt.Round3(sp.RecoveryS))
		if !sp.Recovered {
			rec = "not recovered (" + rec + " s to the end)"
		}
		rows = append(rows, []string{fmt.Sprint(sp.Stage), fmt.Sprint(sp.Back), textfmt.Float(sp.EndS), fmtMS(sp.BaselineP99MS), rec})
	}
	return rows
}

// abortedLine says which threshold stopped the run.
func abortedLine(a *results.Aborted) string {
	return fmt.Sprintf("Aborted at %.1f s: %s. The figures cover what was measured until then.", a.AtS, a.Reason)
}

// writeShapesMarkdown writes the stages and spikes sections.
func writeShapesMarkdown(w io.Writer, p *measure.Point) error {
	if len(p.Stages) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Load stages\n\n")
	if err := markdownTable(w, stageTableHead, stageTableRows(p)); err != nil {
		return err
	}
	if len(p.Spikes) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Spikes and recovery\n\n")
	return markdownTable(w, spikeTableHead, spikeTableRows(p))
}

// shapesSummary is the terminal summary's lines for stages and spikes.
func shapesSummary(b *strings.Builder, r *results.RunReport) {
	if r.Aborted != nil {
		fmt.Fprintf(b, "aborted   at %.1f s: %s\n", r.Aborted.AtS, r.Aborted.Reason)
	}
	for _, row := range stageTableRows(&r.Point) {
		fmt.Fprintf(b, "stage %-3s %s-%s s, target %s: %s requests, %s rps, p99 %s ms, %s errors\n", row[0], row[1], row[2], row[3], row[4], row[5], row[8], row[9])
	}
	for _, row := range spikeTableRows(&r.Point) {
		fmt.Fprintf(b, "spike     after stage %s, back at stage %s: recovery %s s\n", row[0], row[1], row[4])
	}
}

// shapesSection is the HTML report's stages section, nil without stages.
func shapesSection(p *measure.Point) *htmlSection {
	if len(p.Stages) == 0 {
		return nil
	}
	sec := &htmlSection{ID: "stages", Title: "Load stages", Tables: []htmlTable{newTable("Each stage of the load, from the series buckets it spans", stageTableHead, stageTableRows(p))}}
	if len(p.Spikes) > 0 {
		sec.Tables = append(sec.Tables, newTable("Each spike: the time from the load's return to the baseline until p99 and errors were back", spikeTableHead, spikeTableRows(p)))
	}
	return sec
}

// stageMarks are the stage boundaries as vertical lines over time.
func stageMarks(p *measure.Point) []refMark {
	var out []refMark
	for i, st := range p.Stages {
		if i > 0 && st.ToS > st.FromS {
			out = append(out, refMark{At: st.FromS, Label: fmt.Sprintf("stage %d", i+1), Color: "#888"})
		}
	}
	return out
}
