package results

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mcpbench/mcpbench/measure"
)

// mergeSessions merges the session figures of session runs: counts summed,
// durations from their merged histograms, rates over the merged span.
// exact is false when some report carried a duration without its
// histogram; the figures are then the largest report's. Reports of plain
// runs have none, and give nil.
func mergeSessions(ps []measure.Point, spanS float64) (out *measure.SessionStats, exact bool, err error) {
	first := ps[0].Sessions
	for i, p := range ps {
		if (p.Sessions == nil) != (first == nil) {
			return nil, false, mismatch("report %d and report 1 differ in whether they ran sessions", i+1)
		}
	}
	if first == nil {
		return nil, true, nil
	}
	out = &measure.SessionStats{ByScenario: make([]measure.ScenarioStats, len(first.ByScenario))}
	m := sessionMerge{scenarios: make([]timesMerge, len(first.ByScenario))}
	for i, p := range ps {
		s := p.Sessions
		if len(s.ByScenario) != len(out.ByScenario) {
			return nil, false, mismatch("report %d has %d scenarios, report 1 has %d", i+1, len(s.ByScenario), len(out.ByScenario))
		}
		out.Started += s.Started
		out.Add(&s.SessionFigures)
		out.Unstarted += s.Unstarted
		out.Abandoned += s.Abandoned
		// Each shard's process holds its own sessions: the open add up,
		// the memory per session is their weighted mean.
		out.MemoryPerSession += s.MemoryPerSession * float64(s.PeakOpen)
		out.PeakOpen += s.PeakOpen
		m.all.add(&s.Duration, &s.Active)
		for k := range s.ByScenario {
			sc, into := &s.ByScenario[k], &out.ByScenario[k]
			if i > 0 && sc.Scenario != into.Scenario {
				return nil, false, mismatch("report %d: scenario %d is %q, report 1 has %q", i+1, k+1, sc.Scenario, into.Scenario)
			}
			into.Scenario = sc.Scenario
			into.Add(&sc.SessionFigures)
			m.scenarios[k].add(&sc.Duration, &sc.Active)
		}
	}
	if out.PeakOpen > 0 {
		out.MemoryPerSession /= float64(out.PeakOpen)
	}
	exact = m.all.finish(&out.Duration, &out.Active)
	for k := range out.ByScenario {
		sc := &out.ByScenario[k]
		exact = m.scenarios[k].finish(&sc.Duration, &sc.Active) && exact
		sc.Means(spanS)
	}
	out.Means(spanS)
	open := measure.Point{}
	for _, p := range ps {
		m.open.add(&open, &measure.Point{Uncorrected: p.Sessions.Uncorrected, ScheduleLagMS: p.Sessions.StartLagMS})
	}
	exact = m.open.finish(&open) && exact
	out.Uncorrected, out.StartLagMS = open.Uncorrected, open.ScheduleLagMS
	return out, exact, nil
}

// sessionMerge gathers the duration histograms of all reports.
type sessionMerge struct {
	all       timesMerge
	scenarios []timesMerge
	open      openLoopMerge
}

// timesMerge merges a pair of session duration figures (with and without
// think time) from many reports.
type timesMerge struct {
	duration, active *hdrhistogram.Histogram
	largest          [2]measure.SessionTimes
	inexact          bool
}

func (m *timesMerge) add(duration, active *measure.SessionTimes) {
	for i, t := range []*measure.SessionTimes{duration, active} {
		into := &m.duration
		if i == 1 {
			into = &m.active
		}
		m.inexact = m.inexact || !mergeEncoded(into, t.Histogram)
		l := &m.largest[i]
		l.MeanMS, l.P50MS, l.P90MS = max(l.MeanMS, t.MeanMS), max(l.P50MS, t.P50MS), max(l.P90MS, t.P90MS)
		l.P95MS, l.P99MS, l.MaxMS = max(l.P95MS, t.P95MS), max(l.P99MS, t.P99MS), max(l.MaxMS, t.MaxMS)
	}
}

// finish fills the merged figures and reports whether they are exact.
func (m *timesMerge) finish(duration, active *measure.SessionTimes) bool {
	if m.inexact || m.duration == nil || m.active == nil {
		*duration, *active = m.largest[0], m.largest[1]
		return false
	}
	duration.Fill(m.duration)
	active.Fill(m.active)
	return true
}
