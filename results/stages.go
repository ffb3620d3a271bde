package results

import (
	"fmt"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/measure"
)

// restage recomputes p's stage summaries and spikes from its series, as
// the generator computed them: after a merge, the series is the shards'
// sum and the summaries follow it.
func restage(p *measure.Point) {
	if len(p.Stages) == 0 || p.Series == nil {
		return
	}
	p.Stages, p.Spikes = bench.SummarizeStages(bench.StagesOf(p.Stages), p.Series)
}

// mergeStages gives out the shards' stages, each target the shards' sum,
// and recomputes their figures from the merged series.
func mergeStages(out *measure.Point, ps []measure.Point) error {
	if len(ps[0].Stages) == 0 {
		return nil
	}
	out.Stages = append([]measure.StageSummary(nil), ps[0].Stages...)
	for i, p := range ps[1:] {
		if len(p.Stages) != len(out.Stages) {
			return mismatch("report %d has %d stages, report 1 has %d", i+2, len(p.Stages), len(out.Stages))
		}
		for k, st := range p.Stages {
			if st.FromS != out.Stages[k].FromS || st.ToS != out.Stages[k].ToS {
				return mismatch("report %d: stage %d spans %g-%g s, report 1's %g-%g s", i+2, k+1, st.FromS, st.ToS, out.Stages[k].FromS, out.Stages[k].ToS)
			}
			out.Stages[k].Target += st.Target
		}
	}
	restage(out)
	return nil
}

// Aborted says which threshold stopped a run, and when (seconds from the
// start of measuring).
type Aborted struct {
	Reason string  `json:"reason"`
	AtS    float64 `json:"at_s"`
}

// recoveryGates are one recovery_s gate per spike: a spike that never
// recovered fails whatever its time.
func recoveryGates(spikes []measure.Spike, limit float64) []Gate {
	out := make([]Gate, 0, len(spikes))
	for _, sp := range spikes {
		g := gate("recovery_s", limit, sp.RecoveryS)
		g.Passed = g.Passed && sp.Recovered
		out = append(out, g)
	}
	return out
}

// stageChecks compares two staged points stage by stage, as a point's
// figures are gated, when their stages span the same times; a spike's
// recovery is shown beside them, not gated (its limit is --max-recovery).
func (c *Comparison) stageChecks(scope string, b, n *measure.Point, g Limits) {
	if len(b.Stages) == 0 && len(n.Stages) == 0 {
		return
	}
	if !sameSpans(b.Stages, n.Stages) {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: the stages differ (%d and %d, or other spans): not compared stage by stage", scope, len(b.Stages), len(n.Stages)))
		return
	}
	for k := range b.Stages {
		bs, ns := &b.Stages[k], &n.Stages[k]
		s := fmt.Sprintf("%s, stage %d", scope, k+1)
		c.add(Check{Scope: s, Metric: "rps", Base: ptrF(bs.RPS), New: ptrF(ns.RPS), kind: KindRPS}, g.RPS)
		c.add(Check{Scope: s, Metric: "p95_ms", Base: ptrF(bs.P95MS), New: ptrF(ns.P95MS), kind: KindLatency}, g.P95)
		c.add(Check{Scope: s, Metric: "p99_ms", Base: ptrF(bs.P99MS), New: ptrF(ns.P99MS), kind: KindLatency}, g.P99)
		c.add(Check{Scope: s, Metric: "error_rate", Base: ptrF(bs.ErrorRate), New: ptrF(ns.ErrorRate), kind: KindErrorRate}, g.ErrorRate)
	}
	if len(b.Spikes) == len(n.Spikes) {
		for i := range b.Spikes {
			s := fmt.Sprintf("%s, spike %d", scope, i+1)
			c.add(Check{Scope: s, Metric: "recovery_s", Base: ptrF(b.Spikes[i].RecoveryS), New: ptrF(n.Spikes[i].RecoveryS), kind: KindLatency}, Limit{Off: true})
		}
	}
}

// sameSpans says whether two stage lists cover the same times.
func sameSpans(a, b []measure.StageSummary) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].FromS != b[i].FromS || a[i].ToS != b[i].ToS {
			return false
		}
	}
	return true
}
