package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-logfmt/logfmt"

	"github.com/mcpbench/mcpbench/harness"
)

// liveLines is the output of --live: one logfmt line per finished
// interval on stderr, for runbooks that tail the output: the figures of
// the bucket, then each server gauge under its own name (counters as
// their running total). Answers filed in a bucket after its line was
// printed (a worker a busy machine held back) get a late line of their
// own, so that the lines' requests add up to the report's.
type liveLines struct {
	harness.NopOutput
	e   env
	cmd string
}

func (l liveLines) Interval(iv harness.PointInterval) {
	p50, p99, top := "-", "-", "-" // no answers: no latency, not 0 ms
	if iv.Requests > 0 {
		p50, p99, top = fmtNum(iv.P50MS), fmtNum(iv.P99MS), fmtNum(iv.MaxMS)
	}
	kv := []any{
		"mcpbench", l.cmd, "t", iv.End.Round(time.Millisecond).String(),
		"requests", iv.Requests, "errors", iv.Errors, "rps", fmt.Sprintf("%.1f", iv.RPS),
		"p50_ms", p50, "p99_ms", p99, "max_ms", top,
	}
	for i, g := range iv.Gauges {
		v := "-"
		if i < len(iv.Server) && !math.IsNaN(iv.Server[i]) {
			v = fmtNum(iv.Server[i])
		}
		kv = append(kv, g.Name, v)
	}
	l.print(kv)
}

// Late says the answers filed in a bucket after its line: how many, and
// how many failed (they come with no percentiles).
func (l liveLines) Late(iv harness.PointInterval) {
	l.print([]any{"mcpbench", l.cmd, "t", iv.End.Round(time.Millisecond).String(), "late", true,
		"requests", iv.Requests, "errors", iv.Errors})
}

func (l liveLines) print(kv []any) {
	var b strings.Builder
	enc := logfmt.NewEncoder(&b)
	if err := enc.EncodeKeyvals(kv...); err != nil {
		return
	}
	_ = enc.EndRecord()
	fmt.Fprint(l.e.stderr, b.String())
}
