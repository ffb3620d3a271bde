package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// The soak analysis of a run (results.Soak): its trends drawn over the
// charts they were fitted to, a table of them, and its verdicts at the top
// of the page.

// soakVerdicts are the soak's findings in the page's verdict: a leak or a
// drift is a warning (a failure only through the leaks gate, which the
// verdict's gates already say).
func soakVerdicts(s *results.Soak) []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.Verdicts))
	for _, v := range s.Verdicts {
		out = append(out, upperFirst(v.Text)+".")
	}
	return out
}

// trendFor finds the trend fitted to series name ("p99_ms",
// "server:rss_bytes"), nil when there is none.
func trendFor(s *results.Soak, name string) *results.Trend {
	if s == nil {
		return nil
	}
	for i := range s.Trends {
		if s.Trends[i].Series == name {
			return &s.Trends[i]
		}
	}
	return nil
}

// trendLine is a trend drawn over the buckets of its window, in the
// chart's unit (scale times the series' unit); gaps elsewhere.
func trendLine(se *measure.Series, soak *results.Soak, t *results.Trend, scale float64) htmlSeries {
	ys := make([]jsNum, shown(se))
	x0 := -1.0
	for i := range ys {
		ys[i] = gap
		start, end := float64(i)*se.IntervalS, se.EndS(i)
		if start < soak.FromS || end > soak.ToS {
			continue
		}
		if x0 < 0 {
			x0 = end
		}
		ys[i] = jsNum(scale * (t.Start + t.SlopePerH/3600*(end-x0)))
	}
	label := "trend"
	if t.Significant && t.Material {
		label = "trend (finding)"
	}
	return htmlSeries{Label: label, Color: hexTrend, Dash: true, Y: ys}
}

// soakTable lists every trend with its slope, fit and whether it counts.
func soakTable(s *results.Soak) (htmlTable, bool) {
	if s == nil || len(s.Trends) == 0 {
		return htmlTable{}, false
	}
	t := htmlTable{
		Caption: fmt.Sprintf("Trends from %s s to %s s (Theil–Sen, 95%% interval of the slope)", seconds(s.FromS), seconds(s.ToS)),
		Head:    []string{"series", "slope", "95% interval", "r²", "change over the window", "finding"},
	}
	for _, tr := range s.Trends {
		finding := "–"
		if tr.Significant && tr.Material {
			finding = "yes"
		}
		t.Rows = append(t.Rows, []string{
			strings.TrimPrefix(tr.Series, "server:"),
			trendAmount(tr.SlopePerH, tr.Series, tr.Unit) + "/h",
			trendAmount(tr.SlopeLowPerH, tr.Series, tr.Unit) + "/h to " + trendAmount(tr.SlopeHighPerH, tr.Series, tr.Unit) + "/h",
			strconv.FormatFloat(tr.R2, 'f', 2, 64),
			trendAmount(tr.Change, tr.Series, tr.Unit),
			finding,
		})
		t.Bad = append(t.Bad, finding == "yes")
	}
	t.Numeric = numericColumns(len(t.Head), t.Rows)
	return t, true
}

// trendAmount prints a trend figure in its series' unit.
func trendAmount(v float64, series, unit string) string {
	switch series {
	case "error_rate":
		return textfmt.Percent(v)
	case "p99_ms":
		return fmtMS(v) + " ms"
	}
	return textfmt.Amount(v, unit)
}

// soakIntro says what the soak analysis covered, and why it found no
// trend when it could not.
func soakIntro(s *results.Soak) []string {
	if s == nil {
		return nil
	}
	var out []string
	if d := s.Drift; d != nil {
		out = append(out, d.Line(fmtMS)+".")
	}
	if s.Note != "" {
		out = append(out, "No trends: "+s.Note+".")
	}
	if len(s.Verdicts) == 0 && s.Note == "" {
		out = append(out, "No trend is both significant and material: nothing grows as a leak would.")
	}
	return out
}
