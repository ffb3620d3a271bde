package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// maxSeriesRows bounds the over-time table: a long soak's buckets are
// grouped into this many rows at most, each with its exact figures.
const maxSeriesRows = 20

// writeSoakSummary adds the soak findings to the human summary: each
// verdict on a line, or one line saying the run was steady.
func writeSoakSummary(b *strings.Builder, s *results.Soak) {
	switch {
	case s == nil:
		return
	case len(s.Verdicts) > 0:
		for _, v := range s.Verdicts {
			fmt.Fprintf(b, "soak      %s\n", v.Text)
		}
	case s.Note != "":
		fmt.Fprintf(b, "soak      %s\n", s.Note)
	default:
		fmt.Fprintf(b, "soak      steady from %s to %s: no trend both significant and material in %s\n",
			secondsLabel(s.FromS), secondsLabel(s.ToS), trendNames(s.Trends))
	}
}

// trendNames lists what was trended, briefly.
func trendNames(ts []results.Trend) string {
	var names []string
	for _, t := range ts {
		names = append(names, seriesLabel(t.Series))
	}
	return textfmt.OrDash(strings.Join(names, ", "))
}

func seriesLabel(s string) string {
	switch s {
	case "p99_ms":
		return "p99 latency"
	case "error_rate":
		return "error rate"
	}
	return strings.TrimPrefix(s, "server:")
}

func secondsLabel(s float64) string { return fmtNumber(s) + " s" }

func fmtNumber(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// writeSeriesMarkdown writes the "Over time" table, buckets grouped to at
// most maxSeriesRows rows, and the soak findings.
func writeSeriesMarkdown(w io.Writer, s *measure.Series, soak *results.Soak) error {
	if s == nil || s.Len() == 0 {
		return nil
	}
	group := (s.Len() + maxSeriesRows - 1) / maxSeriesRows
	fmt.Fprintf(w, "\n## Over time\n\n%d buckets of %s s", s.Len(), fmtNumber(s.IntervalS))
	if group > 1 {
		fmt.Fprintf(w, ", shown %d to a row (latency from their merged histograms)", group)
	}
	io.WriteString(w, "; every bucket is in the JSON report (`series`).\n\n")
	head := []string{"from s", "to s", "requests", "rps", "errors", "p50 ms", "p99 ms", "max ms"}
	for _, g := range s.Server {
		head = append(head, g.Name)
	}
	var rows [][]string
	for from := 0; from < s.Len(); from += group {
		rows = append(rows, seriesRow(s, from, min(from+group, s.Len())))
	}
	if err := markdownTable(w, head, rows); err != nil {
		return err
	}
	return writeSoakMarkdown(w, soak)
}

// seriesRow is buckets [from, to) as one row.
func seriesRow(s *measure.Series, from, to int) []string {
	var n, errs int64
	h := hist.New()
	for i := from; i < to; i++ {
		n += s.Requests(i)
		errs += s.Requests(i) - s.OK[i]
		if s.Histograms[i] != "" {
			_ = hist.MergeEncoded(h, s.Histograms[i]) // a bucket that cannot be read adds nothing
		}
	}
	var l measure.Latency
	l.FillPercentiles(h)
	span := s.EndS(to-1) - float64(from)*s.IntervalS
	row := []string{fmtNumber(float64(from) * s.IntervalS), fmtNumber(s.EndS(to - 1)), fmt.Sprint(n),
		fmt.Sprintf("%.1f", float64(n)/span), fmt.Sprint(errs), fmtMS(l.P50MS), fmtMS(l.P99MS), fmtMS(l.MaxMS)}
	for _, g := range s.Server {
		row = append(row, gaugeCell(g, from, to))
	}
	return row
}

// gaugeCell is a level's last reading in the rows' buckets, or a
// counter's increase over them.
func gaugeCell(g measure.ServerSeries, from, to int) string {
	if g.Kind == measure.GaugeCounter {
		sum, seen := 0.0, false
		for i := from; i < to; i++ {
			if !math.IsNaN(g.Values[i]) {
				sum, seen = sum+g.Values[i], true
			}
		}
		if !seen {
			return "–"
		}
		return "+" + textfmt.Amount(sum, g.Unit)
	}
	for i := to - 1; i >= from; i-- {
		if !math.IsNaN(g.Values[i]) {
			return textfmt.Amount(g.Values[i], g.Unit)
		}
	}
	return "–"
}

// writeSoakMarkdown writes the verdicts, the trends behind them and the
// latency drift.
func writeSoakMarkdown(w io.Writer, s *results.Soak) error {
	if s == nil {
		return nil
	}
	io.WriteString(w, "\n## Soak\n\n")
	if s.Note != "" {
		fmt.Fprintf(w, "%s.\n", s.Note)
	}
	for _, v := range s.Verdicts {
		fmt.Fprintf(w, "- **%s**\n", v.Text)
	}
	if len(s.Verdicts) == 0 && s.Note == "" {
		io.WriteString(w, "No trend both significant and material.\n")
	}
	if d := s.Drift; d != nil {
		fmt.Fprintf(w, "\n%s.\n", d.Line(fmtMS))
	}
	if len(s.Trends) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nTheil–Sen trends from %s to %s (95%% interval of the slope):\n\n", secondsLabel(s.FromS), secondsLabel(s.ToS))
	var rows [][]string
	for _, t := range s.Trends {
		unit := t.Unit
		if t.Series == "error_rate" || unit == "ms" {
			unit = "" // the name says it
		}
		rows = append(rows, []string{seriesLabel(t.Series), textfmt.Amount(t.Start, unit),
			textfmt.Amount(t.SlopePerH, unit) + "/h", textfmt.Amount(t.SlopeLowPerH, unit) + " … " + textfmt.Amount(t.SlopeHighPerH, unit),
			fmt.Sprintf("%.2f", t.R2), yesNo(t.Significant), yesNo(t.Material)})
	}
	return markdownTable(w, []string{"series", "start", "slope", "95% interval", "r²", "significant", "material"}, rows)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
