package results

import (
	"fmt"
	"strings"

	"github.com/mcpbench/mcpbench/measure"
)

// sessionChecks compares two session levels: the rate of completed
// sessions (gated as rps is), a session's duration at p95 with its think
// time (shown) and without it (gated as p95 is), and every step both
// measured, gated as a point's latency and errors are.
func (c *Comparison) sessionChecks(scope string, b, n *measure.Point, g Limits) {
	bs, ns := b.Sessions, n.Sessions
	c.add(Check{Scope: scope, Metric: "sessions_per_s", Base: ptrF(bs.PerSecond), New: ptrF(ns.PerSecond), kind: KindRPS}, g.RPS)
	c.add(Check{Scope: scope, Metric: "session_p95_ms", Base: ptrF(bs.Duration.P95MS), New: ptrF(ns.Duration.P95MS), kind: KindLatency}, Limit{Off: true})
	c.add(Check{Scope: scope, Metric: "session_active_p95_ms", Base: ptrF(bs.Active.P95MS), New: ptrF(ns.Active.P95MS), kind: KindLatency}, g.P95)
	steps := map[measure.Operation]*measure.OperationStats{}
	for i := range n.ByOperation {
		steps[n.ByOperation[i].Operation] = &n.ByOperation[i]
	}
	var only []string
	for i := range b.ByOperation {
		bo := &b.ByOperation[i]
		no, ok := steps[bo.Operation]
		if !ok {
			only = append(only, StepName(bo.Operation))
			continue
		}
		delete(steps, bo.Operation)
		s := "step " + StepName(bo.Operation)
		if scope != "run" {
			s = scope + ", " + s
		}
		c.add(Check{Scope: s, Metric: "p95_ms", Base: ptrF(bo.P95MS), New: ptrF(no.P95MS), kind: KindLatency}, g.P95)
		c.add(Check{Scope: s, Metric: "p99_ms", Base: ptrF(bo.P99MS), New: ptrF(no.P99MS), kind: KindLatency}, g.P99)
		c.add(Check{Scope: s, Metric: "error_rate", Base: ptrF(bo.ErrorRate), New: ptrF(no.ErrorRate), kind: KindErrorRate}, g.ErrorRate)
	}
	if len(only) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: steps only in the base, not compared: %s", scope, strings.Join(only, ", ")))
	}
	if len(steps) > 0 {
		var names []string
		for i := range n.ByOperation {
			if _, left := steps[n.ByOperation[i].Operation]; left {
				names = append(names, StepName(n.ByOperation[i].Operation))
			}
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%s: steps only in the new report, not compared: %s", scope, strings.Join(names, ", ")))
	}
}
