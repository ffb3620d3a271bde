package results

import "github.com/mcpbench/mcpbench/bench"

// StageSummary is one stage of a staged run (--stages, --rate-stages):
// its span in seconds from the start of measuring, the target it reached
// (workers or requests/s), and what was answered in it.
type StageSummary struct {
	FromS     float64 `json:"from_s"`
	ToS       float64 `json:"to_s"`
	Target    float64 `json:"target"`
	Requests  int64   `json:"requests"`
	RPS       float64 `json:"rps"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	P99MS     float64 `json:"p99_ms"`
	Errors    int64   `json:"errors"`
	ErrorRate float64 `json:"error_rate"`
}

// Spike is a rise of the load above a held stage and the time the run
// took to recover after the load came back (bench.Spike).
type Spike struct {
	Stage         int     `json:"stage"`
	Back          int     `json:"back"`
	EndS          float64 `json:"end_s"`
	BaselineP99MS float64 `json:"baseline_p99_ms"`
	RecoveryS     float64 `json:"recovery_s"`
	Recovered     bool    `json:"recovered"`
}

// Restage recomputes p's stage summaries and spikes from its series, as
// the generator computed them: after a merge, the series is the shards'
// sum and the summaries follow it.
func (p *Point) Restage() {
	if len(p.Stages) == 0 || p.Series == nil {
		return
	}
	st := bench.StagesOf(convert[[]bench.StageSummary](p.Stages))
	sums, spikes := bench.SummarizeStages(st, convert[*bench.Series](p.Series))
	p.Stages, p.Spikes = convert[[]StageSummary](sums), convert[[]Spike](spikes)
}

// mergeStages gives out the shards' stages, each target the shards' sum,
// and recomputes their figures from the merged series.
func mergeStages(out *Point, ps []Point) error {
	if len(ps[0].Stages) == 0 {
		return nil
	}
	out.Stages = append([]StageSummary(nil), ps[0].Stages...)
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
	out.Restage()
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
func recoveryGates(spikes []Spike, limit float64) []Gate {
	out := make([]Gate, 0, len(spikes))
	for _, sp := range spikes {
		g := gate("recovery_s", limit, sp.RecoveryS)
		g.Passed = g.Passed && sp.Recovered
		out = append(out, g)
	}
	return out
}
