package report

import (
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/results"
)

// The slowest traced requests (--trace) of each operation, with the trace
// ids to look up in the server's traces.

const exemplarsIntro = "The slowest requests of each operation among those sent with W3C trace context (--trace): look their trace ids up in the server's tracing backend."

func exemplarRows(ex []results.Exemplar) [][]string {
	rows := make([][]string, 0, len(ex))
	byLevel := hasLevels(ex)
	for _, e := range ex {
		op := e.Method
		if e.Tool != "" {
			op += " " + e.Tool
		}
		row := []string{op, fmt.Sprintf("%.3f", e.LatencyMS), e.Outcome, e.TraceID, e.SpanID, e.At.Format("15:04:05.000")}
		if byLevel {
			row = append([]string{e.Level}, row...)
		}
		rows = append(rows, row)
	}
	return rows
}

// exemplarHeadOf is the table's head: a sweep's begins with the level.
func exemplarHeadOf(ex []results.Exemplar) []string {
	head := []string{"operation", "latency ms", "outcome", "trace id", "span id", "sent (UTC)"}
	if hasLevels(ex) {
		return append([]string{"level"}, head...)
	}
	return head
}

// hasLevels says the exemplars are a sweep's, each of its point.
func hasLevels(ex []results.Exemplar) bool {
	for _, e := range ex {
		if e.Level != "" {
			return true
		}
	}
	return false
}

// writeExemplarsMarkdown writes the exemplars' section, when there are any.
func writeExemplarsMarkdown(w io.Writer, ex []results.Exemplar) error {
	if len(ex) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Slowest traced requests\n\n"+exemplarsIntro+"\n\n")
	return markdownTable(w, exemplarHeadOf(ex), exemplarRows(ex))
}

// exemplarsSection is the HTML page's section of exemplars; nil when none.
func exemplarsSection(ex []results.Exemplar) *htmlSection {
	if len(ex) == 0 {
		return nil
	}
	return &htmlSection{ID: "exemplars", Title: "Slowest traced requests", Intro: []string{exemplarsIntro},
		Tables: []htmlTable{newTable("Exemplars, slowest first within each operation", exemplarHeadOf(ex), exemplarRows(ex))}}
}
