// Package textfmt writes figures the one way every mcpbench text does, so
// that the reasons the analysis gives (in results) and the reports that
// render them (in report) print the same number alike.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
)

// Float prints a user-supplied figure without padding zeros: 70, 0.5.
func Float(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Round3 rounds to three decimals, enough for any figure shown to people.
func Round3(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}

// Percent prints a fraction as a percentage with at most two decimals:
// 0.015 is "1.5%".
func Percent(v float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.2f", 100*v), "0")
	return strings.TrimSuffix(s, ".") + "%"
}

// OrDash stands a dash in for an empty value, so a table cell or a note
// never reads as a gap.
func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// Amount prints a measured quantity in its unit: bytes scaled to kB, MB
// or GB (powers of 1000, as memory figures usually read), seconds as
// "1.25 s", anything else as a plain number: whole from 1000 up, else
// with four significant digits.
func Amount(v float64, unit string) string {
	switch unit {
	case "bytes":
		a := v
		if a < 0 {
			a = -a
		}
		switch {
		case a >= 1e9:
			return fmt.Sprintf("%.2f GB", v/1e9)
		case a >= 1e6:
			return fmt.Sprintf("%.1f MB", v/1e6)
		case a >= 1e3:
			return fmt.Sprintf("%.1f kB", v/1e3)
		}
		return fmt.Sprintf("%.0f B", v)
	case "seconds":
		return strconv.FormatFloat(v, 'g', 3, 64) + " s"
	}
	if v == float64(int64(v)) || v >= 1000 || v <= -1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
