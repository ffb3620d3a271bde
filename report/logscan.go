package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/results"
)

// WriteLogscanJSON writes r as indented JSON.
func WriteLogscanJSON(w io.Writer, r *results.LogscanReport) error { return writeIndented(w, r) }

// WriteLogscanSummary is the short human summary on stdout: one figure a
// line.
func WriteLogscanSummary(w io.Writer, r *results.LogscanReport) error {
	var b strings.Builder
	for _, f := range logscanFigures(&r.WindowScan) {
		fmt.Fprintf(&b, "%-19s %s\n", f[0]+":", f[1])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// logScanLine is a log window in one line, for the summaries of the
// commands that scan one beside their load.
func logScanLine(ls *logscan.WindowScan) string {
	return fmt.Sprintf("%d stats line(s) in the window: requests +%d, cache hits +%d, misses +%d%s",
		ls.StatsLines, ls.Delta.Requests, ls.Delta.CacheHits, ls.Delta.CacheMisses, probeHitRate(ls.WindowHitRatePct))
}

// logWarning is a summary's line, after prefix, when the stats lines do
// not bracket the window: its delta then misses requests.
func logWarning(ls *logscan.WindowScan, prefix string) string {
	if ls.Coverage == nil || ls.Coverage.Complete {
		return ""
	}
	return prefix + "log window " + LogCoverage(ls.Coverage) + "\n"
}

// WriteLogscanMarkdown writes the same figures as a Markdown table.
func WriteLogscanMarkdown(w io.Writer, r *results.LogscanReport) error {
	cell := strings.NewReplacer("|", `\|`, "\n", " ").Replace
	var b strings.Builder
	b.WriteString("## mcpbench logscan\n\n")
	fmt.Fprintf(&b, "- **mcpbench:** %s\n\n| figure | value |\n| --- | --- |\n", textfmt.OrDash(r.MCPBenchVersion))
	for _, f := range logscanFigures(&r.WindowScan) {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], cell(f[1]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// logscanFigures lists the figures the summary and the Markdown share, as
// label/value pairs.
func logscanFigures(r *logscan.WindowScan) [][2]string {
	w := r.Window
	window := fmt.Sprintf("bytes %d..%d (%d read)", w.StartOffset, w.EndOffset, w.Bytes)
	if w.Rotated {
		window += ", rotated"
		if w.RotatedFrom != "" {
			window += " (tail of " + w.RotatedFrom + " read)"
		}
	}
	if w.PartialLastLine {
		window += ", partial last line not read"
	}
	d := r.Delta
	figs := [][2]string{
		{"log", r.Path},
		{"window", window},
		{"stats lines", fmt.Sprintf("%d (%d malformed), baseline %s", r.StatsLines, r.MalformedStatsLines, r.Baseline)},
		{"delta", fmt.Sprintf("requests=%d cache_hits=%d cache_misses=%d build_count=%d build_failures=%d",
			d.Requests, d.CacheHits, d.CacheMisses, d.BuildCount, d.BuildFailures)},
		{"window hit rate", optFigure(r.WindowHitRatePct, "%.1f%%")},
		{"max build_max_ms", optFigure(r.MaxBuildMaxMs, "%g")},
		{"max peak_in_flight", optFigure(r.MaxPeakInFlight, "%d")},
	}
	if c := LogCoverage(r.Coverage); c != "" {
		figs = append(figs, [2]string{"coverage", c})
	}
	if r.CounterReset {
		figs = append(figs, [2]string{"counter reset", "yes: the server restarted; deltas sum each run"})
	}
	if r.Last != nil {
		figs = append(figs, [2]string{"last", r.Last.String()})
	}
	figs = append(figs, [2]string{"other lines", fmt.Sprintf("%d lines, Dynamic Loader %d, tools/list served %d, too long %d",
		r.Lines, r.DynamicLoaderLines, r.ToolsListServedLines, r.SkippedLongLines)})
	return figs
}

func optFigure[T any](v *T, format string) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf(format, *v)
}

// LogCoverage says in words whether the stats lines bracket the measured
// window, so a partial log delta is never read as the whole count.
func LogCoverage(c *logscan.Coverage) string {
	if c == nil {
		return ""
	}
	if c.Complete {
		return fmt.Sprintf("complete: the stats lines bracket the %.1f s window (waited %.1f s for the line after it)", c.MeasuredS, c.SettledS)
	}
	var gaps []string
	if c.HeadUncoveredS > 0 {
		gaps = append(gaps, headGap(c))
	}
	if !c.TailSeen {
		gaps = append(gaps, fmt.Sprintf("no stats line after the load was seen (waited %.1f s, lines every %.1f s)", c.SettledS, c.IntervalS))
	}
	return fmt.Sprintf("partial: %s; the lines cover %.1f of %.1f s", strings.Join(gaps, "; "), c.CoveredS, c.MeasuredS)
}

// headGap says how much of the window's start no baseline covers, and
// how long the start waited for the server's first stats line.
func headGap(c *logscan.Coverage) string {
	s := fmt.Sprintf("no stats line from before the window, so its first %.2f s are not counted", c.HeadUncoveredS)
	if c.BaselineWaitS > 0 {
		s += fmt.Sprintf(" (waited %.1f s for one before the load; a longer --log-settle waits longer)", c.BaselineWaitS)
	}
	return s
}
