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
	for _, e := range ex {
		op := e.Method
		if e.Tool != "" {
			op += " " + e.Tool
		}
		rows = append(rows, []string{op, fmt.Sprintf("%.3f", e.LatencyMS), e.Outcome, e.TraceID, e.SpanID,
			e.At.Format("15:04:05.000")})
	}
	return rows
}

var exemplarHead = []string{"operation", "latency ms", "outcome", "trace id", "span id", "sent (UTC)"}

// writeExemplarsMarkdown writes the exemplars' section, when there are any.
func writeExemplarsMarkdown(w io.Writer, ex []results.Exemplar) error {
	if len(ex) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Slowest traced requests\n\n"+exemplarsIntro+"\n\n")
	return markdownTable(w, exemplarHead, exemplarRows(ex))
}

// exemplarsSection is the HTML page's section of exemplars; nil when none.
func exemplarsSection(ex []results.Exemplar) *htmlSection {
	if len(ex) == 0 {
		return nil
	}
	return &htmlSection{ID: "exemplars", Title: "Slowest traced requests", Intro: []string{exemplarsIntro},
		Tables: []htmlTable{newTable("Exemplars, slowest first within each operation", exemplarHead, exemplarRows(ex))}}
}
