package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-logfmt/logfmt"

	"github.com/mcpbench/mcpbench/harness"
)

// livePrinter writes one logfmt line per finished interval on stderr, for
// runbooks that tail the output: the figures of the bucket, then each
// server gauge under its own name (counters as their running total).
func livePrinter(e env, cmd string) func(harness.Interval) {
	return func(iv harness.Interval) {
		var b strings.Builder
		enc := logfmt.NewEncoder(&b)
		kv := []any{
			"mcpbench", cmd, "t", iv.End.Round(time.Millisecond).String(),
			"requests", iv.Requests, "errors", iv.Errors, "rps", fmt.Sprintf("%.1f", iv.RPS),
			"p50_ms", fmtNum(iv.P50MS), "p99_ms", fmtNum(iv.P99MS), "max_ms", fmtNum(iv.MaxMS),
		}
		for i, g := range iv.Gauges {
			v := "-"
			if i < len(iv.Server) && !math.IsNaN(iv.Server[i]) {
				v = fmtNum(iv.Server[i])
			}
			kv = append(kv, g.Name, v)
		}
		if err := enc.EncodeKeyvals(kv...); err != nil {
			return
		}
		_ = enc.EndRecord()
		fmt.Fprint(e.stderr, b.String())
	}
}
