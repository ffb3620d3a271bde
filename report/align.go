package report

import (
	"regexp"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// numericCell matches a figure as the reports print one: a signed number
// with an optional unit, and an optional relative change in brackets
// ("12.5", "0.2%", "+2.00 ms (+20.0%)", "392.5 rps", "38.0 MB/h").
var numericCell = regexp.MustCompile(`^[+\-−]?\d[\d,.]*(e[+-]?\d+)? ?(%|ms|rps|s|pp|B|kB|KB|MB|GB|KiB|MiB|GiB)?(/h)?( \([+\-−]?\d[\d,.]*%\))?$`)

// blankCell is what a table prints for a missing figure.
func blankCell(s string) bool {
	switch s {
	case "", "–", "-", "none", "n/a":
		return true
	}
	return false
}

// numericColumns says, for each of n columns, whether it holds figures:
// at least one cell is a number and the others are numbers or blanks.
// Such columns are right-aligned in Markdown and HTML, so digits line up.
func numericColumns(n int, rows [][]string) []bool {
	out := make([]bool, n)
	for col := range out {
		seen, ok := false, true
		for _, r := range rows {
			if col >= len(r) || blankCell(r[col]) {
				continue
			}
			if !numericCell.MatchString(r[col]) {
				ok = false
				break
			}
			seen = true
		}
		out[col] = seen && ok
	}
	return out
}

// columnAlignment right-aligns the numeric columns of a table and
// left-aligns the rest, for header and rows alike.
func columnAlignment(n int, rows [][]string) []tablewriter.Option {
	cols := make([]tw.Align, n)
	for i, num := range numericColumns(n, rows) {
		cols[i] = tw.AlignLeft
		if num {
			cols[i] = tw.AlignRight
		}
	}
	return []tablewriter.Option{
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: cols}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: cols}),
	}
}
