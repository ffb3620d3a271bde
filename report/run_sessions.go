package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// A session run's report: the load in users or sessions per second, then
// a table per scenario and a table per step in place of the per-operation
// one.

// sessionLoadLine is the load of a session run, for the report's head.
func sessionLoadLine(p *measure.Point) string {
	if p.Rate != nil {
		return fmt.Sprintf("open loop, %s new sessions/s offered, at most %d users at once", textfmt.Float(*p.Rate), p.Concurrency)
	}
	return fmt.Sprintf("closed loop, %d users running sessions back to back", p.Concurrency)
}

// sessionsLine says how many sessions ran, and at what rate.
func sessionsLine(s *measure.SessionStats, elapsedS float64) string {
	line := fmt.Sprintf("%d completed of %d started in %.2f s, %d failed; %.2f sessions/s; %.1f steps and %s ms of think time a session",
		s.Completed, s.Started, elapsedS, s.Failed, s.PerSecond, s.MeanSteps, fmtMS(s.MeanThinkMS))
	if s.Unstarted > 0 {
		line += fmt.Sprintf("; %d due in the window never started", s.Unstarted)
	}
	return line
}

// sessionStartLine is how an open loop kept its schedule of session
// starts, or "" for a closed loop.
func sessionStartLine(s *measure.SessionStats) string {
	if s.StartLagMS == nil {
		return ""
	}
	line := fmt.Sprintf("start lag p99 %s ms, max %s ms", fmtMS(s.StartLagMS.P99), fmtMS(s.StartLagMS.Max))
	if u := s.Uncorrected; u != nil {
		line += fmt.Sprintf("; duration from the actual start p50 %s, p95 %s, p99 %s ms", fmtMS(u.P50MS), fmtMS(u.P95MS), fmtMS(u.P99MS))
	}
	return line
}

// writeSessionMarkdown writes the head lines and the scenario and step
// tables of a session run.
func writeSessionMarkdown(w io.Writer, r *results.RunReport) error {
	p := &r.Point
	s := p.Sessions
	var b strings.Builder
	if r.Workload.Scenario != "" {
		fmt.Fprintf(&b, "- **Scenarios:** %s\n", r.Workload.Scenario)
	}
	fmt.Fprintf(&b, "- **Load:** %s", sessionLoadLine(p))
	if r.Workload.NewConnectionPerSession {
		b.WriteString(", each session on connections of its own")
	}
	fmt.Fprintf(&b, "\n- **Sessions:** %s\n", sessionsLine(s, p.ElapsedS))
	if line := sessionStartLine(s); line != "" {
		fmt.Fprintf(&b, "- **Session starts:** %s\n", line)
	}
	fmt.Fprintf(&b, "- **Steps:** %d requests, %d ok, %d errors (%s); %.1f rps\n\n", p.Requests, p.OK, p.Errors, textfmt.Percent(p.ErrorRate), p.RPS)
	b.WriteString("## Scenarios\n\nDuration counts a whole session, think time included; active leaves the think time out.\n\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	var rows [][]string
	for _, sc := range s.ByScenario {
		rows = append(rows, []string{sc.Scenario, fmt.Sprint(sc.Completed), fmt.Sprint(sc.Failed), fmt.Sprintf("%.2f", sc.PerSecond),
			fmt.Sprintf("%.1f", sc.MeanSteps), fmtMS(sc.MeanThinkMS),
			fmtMS(sc.Duration.P50MS), fmtMS(sc.Duration.P95MS), fmtMS(sc.Duration.P99MS), fmtMS(sc.Active.P50MS), fmtMS(sc.Active.P95MS)})
	}
	if err := markdownTable(w, []string{"scenario", "sessions", "failed", "sessions/s", "steps", "think ms",
		"p50 ms", "p95 ms", "p99 ms", "active p50 ms", "active p95 ms"}, rows); err != nil {
		return err
	}
	io.WriteString(w, "\n## Steps\n\n")
	rows = rows[:0]
	for _, o := range p.ByOperation {
		rows = append(rows, []string{o.Scenario, o.Step, results.OperationName(measure.Operation{Method: o.Method, Tool: o.Tool}),
			fmt.Sprint(o.Requests), fmt.Sprint(o.Errors), fmt.Sprintf("%.1f", o.RPS), fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS), fmtMS(o.MaxMS)})
	}
	return markdownTable(w, []string{"scenario", "step", "request", "requests", "errors", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms"}, rows)
}

// writeSessionSummary is the session part of the terminal summary.
func writeSessionSummary(b *strings.Builder, p *measure.Point) {
	s := p.Sessions
	fmt.Fprintf(b, "sessions  %s\n", sessionsLine(s, p.ElapsedS))
	fmt.Fprintf(b, "duration  p50 %s  p95 %s  p99 %s ms; active (no think time) p50 %s  p95 %s  p99 %s ms\n",
		fmtMS(s.Duration.P50MS), fmtMS(s.Duration.P95MS), fmtMS(s.Duration.P99MS), fmtMS(s.Active.P50MS), fmtMS(s.Active.P95MS), fmtMS(s.Active.P99MS))
	if line := sessionStartLine(s); line != "" {
		fmt.Fprintf(b, "starts    %s\n", line)
	}
	for _, o := range p.ByOperation {
		fmt.Fprintf(b, "  %-28s %6d req %4d err  p50 %s  p95 %s  p99 %s ms\n", results.StepName(o.Operation), o.Requests, o.Errors, fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS))
	}
}
