package report

import (
	"fmt"
	"strings"

	"github.com/mcpbench/mcpbench/results"
)

// writeAbandoned says how many sessions went without a DELETE and, where
// the server was sampled, what each one kept of its memory.
func writeAbandoned(b *strings.Builder, r *results.RunReport) {
	n := r.Counters[results.AbandonedSeries]
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "abandoned %d sessions ended without a DELETE\n", n)
	if a := r.AbandonedMemory; a != nil {
		fmt.Fprintf(b, "  server  %.0f bytes of %s kept per abandoned session (95%% interval %.0f to %.0f, r² %.2f, %d points)\n",
			a.BytesPerSession, a.Series, a.Low, a.High, a.R2, a.Points)
		if a.Verdict != "" {
			fmt.Fprintf(b, "LEAK      %s\n", a.Verdict)
		}
	}
}
