package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/measure"
)

// What a point says beside its latency: the time to the first event of
// streamed answers and to a task's creation, and the workload's counters
// (requests from the server, progress events, extra round trips, token
// refreshes). Nothing is written for a point that has none.

// timingRows are the point's timings as table rows.
func timingRows(p *measure.Point) [][]string {
	var rows [][]string
	for _, st := range []struct {
		name string
		s    *measure.Timing
	}{{"first SSE event", p.FirstEvent}, {"task created", p.TaskCreated}} {
		if st.s != nil {
			rows = append(rows, []string{st.name, fmt.Sprint(st.s.Count), fmtMS(st.s.P50MS), fmtMS(st.s.P90MS), fmtMS(st.s.P99MS), fmtMS(st.s.MaxMS)})
		}
	}
	return rows
}

// timingSummary is the human summary's lines for timings and counters.
func timingSummary(b *strings.Builder, p *measure.Point) {
	for _, r := range timingRows(p) {
		fmt.Fprintf(b, "%-9s %s of them: p50 %s  p90 %s  p99 %s  max %s ms\n", r[0], r[1], r[2], r[3], r[4], r[5])
	}
	if len(p.Counters) > 0 {
		parts := make([]string, 0, len(p.Counters))
		for _, k := range sortedKeys(p.Counters) {
			parts = append(parts, fmt.Sprintf("%s %d", k, p.Counters[k]))
		}
		fmt.Fprintf(b, "counted   %s\n", strings.Join(parts, ", "))
	}
}

// writeTimingsMarkdown writes the timings (under the heading "Stages",
// as reports have always had it) and the Counters sections.
func writeTimingsMarkdown(w io.Writer, p *measure.Point) error {
	if rows := timingRows(p); len(rows) > 0 {
		io.WriteString(w, "\n## Stages\n\n")
		if err := markdownTable(w, []string{"stage", "requests", "p50 ms", "p90 ms", "p99 ms", "max ms"}, rows); err != nil {
			return err
		}
	}
	if len(p.Counters) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Counters\n\n")
	var rows [][]string
	for _, k := range sortedKeys(p.Counters) {
		rows = append(rows, []string{k, fmt.Sprint(p.Counters[k])})
	}
	return markdownTable(w, []string{"counter", "count"}, rows)
}
