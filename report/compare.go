package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/results"
)

// checkValue prints one side of a check in its metric's unit.
func checkValue(ch *results.Check, v *float64) string {
	if v == nil {
		return "none"
	}
	switch {
	case strings.HasSuffix(ch.Metric, "_ms"):
		return fmtMS(*v) + " ms"
	case ch.Metric == "error_rate":
		return textfmt.Percent(*v)
	case strings.Contains(ch.Metric, "rps"):
		return fmt.Sprintf("%.1f", *v)
	default:
		return textfmt.Float(textfmt.Round3(*v))
	}
}

func verdictCell(v string) string {
	switch v {
	case results.VerdictRegression:
		return "❌ **regression**"
	case results.VerdictImproved:
		return "✅ improved"
	case results.VerdictPass:
		return "✅ pass"
	default:
		return "–"
	}
}

// WriteCompareMarkdown writes the comparison as Markdown fit for a pull
// request comment or $GITHUB_STEP_SUMMARY.
func WriteCompareMarkdown(w io.Writer, c *results.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcpbench compare (%s)\n\n", c.Kind)
	if c.Passed {
		b.WriteString("**✅ No regression.**\n\n")
	} else {
		fmt.Fprintf(&b, "**❌ %d regression(s).**\n\n", c.Regressions)
	}
	for _, s := range []struct {
		name string
		src  results.Source
	}{{"Base", c.Base}, {"New", c.New}} {
		fmt.Fprintf(&b, "- **%s:** ", s.name)
		if s.src.Path != "" {
			fmt.Fprintf(&b, "`%s`, ", s.src.Path)
		}
		fmt.Fprintf(&b, "%s, started %s, mcpbench %s\n", textfmt.OrDash(s.src.Target), s.src.StartedAt.UTC().Format(time.RFC3339), textfmt.OrDash(s.src.MCPBenchVersion))
	}
	if c.MCPBenchVersion != "" {
		fmt.Fprintf(&b, "- **Compared by:** mcpbench %s\n", c.MCPBenchVersion)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	rows := make([][]string, 0, len(c.Checks))
	for i := range c.Checks {
		ch := &c.Checks[i]
		rows = append(rows, []string{ch.Scope, ch.Metric, checkValue(ch, ch.Base), checkValue(ch, ch.New), ch.ChangeText(), textfmt.OrDash(ch.Limit), verdictCell(ch.Verdict)})
	}
	if err := markdownTable(w, []string{"scope", "figure", "base", "new", "change", "limit", "verdict"}, rows); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	b.Reset()
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	if line := noiseLine(c.Noise); line != "" {
		fmt.Fprintf(&b, "\n%s\n", line)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	return nil
}

// WriteCompareJSON writes the comparison as indented JSON.
func WriteCompareJSON(w io.Writer, c *results.Comparison) error {
	if err := writeIndented(w, c); err != nil {
		return fmt.Errorf("compare json: %w", err)
	}
	return nil
}

// noiseLine says, for each figure, whether its change lies within the
// noise of the two reports' per-interval series; "" without series.
func noiseLine(ns []results.Noise) string {
	if len(ns) == 0 {
		return ""
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		where := "beyond"
		if n.WithinNoise {
			where = "within"
		}
		parts[i] = fmt.Sprintf("%s %+.1f%% [%+.1f%%, %+.1f%%] %s", n.Metric, 100*n.Change, 100*n.Low, 100*n.High, where)
	}
	return "Noise of the reports' own intervals (shift, 95% interval): " + strings.Join(parts, "; ") + "."
}
