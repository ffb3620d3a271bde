package bench

import (
	"math"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// StageSummary is what one stage of a staged level measured, from the
// series buckets it spans (stages end on bucket boundaries). The last
// stage also takes the answers that came after the load stopped.
type StageSummary struct {
	FromS     float64
	ToS       float64
	Target    float64
	Requests  int64
	RPS       float64
	P50MS     float64
	P95MS     float64
	P99MS     float64
	Errors    int64
	ErrorRate float64
}

// Spike is a rise of the load above a held stage and its way back: the
// recovery runs from the end of the stage that brought the load back to
// the held stage's target until the first bucket whose p99 and error rate
// are within the tolerance of that held stage's.
type Spike struct {
	// Stage is the held stage before the spike and Back the one that
	// brought the load back (1-based, as a user counts them).
	Stage, Back   int
	EndS          float64
	BaselineP99MS float64
	RecoveryS     float64
	// Recovered is false when the run ended first; RecoveryS then runs
	// to the end of the run.
	Recovered bool
}

// Recovery tolerance: a bucket is back when its p99 is within half the
// held stage's p99 plus RecoveryP99SlackMS of it, and its error rate
// within one point of the held stage's.
const (
	RecoveryP99Factor  = 1.5
	RecoveryP99SlackMS = 5.0
	RecoveryErrorSlack = 0.01
)

// StagesOf rebuilds stages from their summaries (a report read back).
func StagesOf(ss []StageSummary) Stages {
	st := make(Stages, len(ss))
	for i, s := range ss {
		st[i] = LoadStage{Duration: secs(s.ToS - s.FromS).Round(time.Millisecond), Target: s.Target}
	}
	return st
}

// SummarizeStages is each stage's summary and the spikes' recoveries,
// from s; nothing without stages or a series.
func SummarizeStages(st Stages, s *Series) ([]StageSummary, []Spike) {
	if len(st) == 0 || s == nil || len(s.OK) == 0 {
		return nil, nil
	}
	n := len(s.OK)
	out := make([]StageSummary, len(st))
	last := 0
	for k := range st {
		from, to, _, v1 := st.segment(k)
		out[k] = StageSummary{FromS: from.Seconds(), ToS: to.Seconds(), Target: v1}
		if to > from {
			last = k
		}
	}
	lo := 0
	for k := range st {
		hi := int(math.Round(out[k].ToS / s.IntervalS))
		if k == last {
			hi = n
		}
		out[k].fill(s, lo, min(hi, n))
		lo = max(lo, min(hi, n))
	}
	return out, spikes(st, out, s)
}

// fill sums buckets [lo, hi) of s into the summary.
func (sm *StageSummary) fill(s *Series, lo, hi int) {
	h := hist.New()
	var secs float64
	for i := lo; i < hi; i++ {
		sm.Requests += BucketRequests(s.OK, s.Errors, i)
		sm.Errors += BucketRequests(s.OK, s.Errors, i) - s.OK[i]
		secs += BucketS(i, len(s.OK), s.IntervalS, s.LastS)
		if i < len(s.Histograms) {
			_ = hist.MergeEncoded(h, s.Histograms[i])
		}
	}
	if sm.Requests == 0 || secs <= 0 {
		return
	}
	sm.RPS = math.Round(1000*float64(sm.Requests)/secs) / 1000
	sm.P50MS, sm.P95MS, sm.P99MS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95)), ms(h.ValueAtQuantile(99))
	sm.ErrorRate = float64(sm.Errors) / float64(sm.Requests)
}

// spikes finds each rise above a held stage that came back to its target,
// and how long the series took to recover after it.
func spikes(st Stages, sums []StageSummary, s *Series) []Spike {
	var out []Spike
	for k := 1; k < len(st); k++ {
		_, _, v0, v1 := st.segment(k - 1)
		if st[k-1].Duration == 0 || v0 != v1 || st[k].Target <= v1 {
			continue
		}
		base := sums[k-1]
		j := k
		for j < len(st) && st[j].Target > v1 {
			j++
		}
		// A load that never came back, or came back as the stages ended,
		// leaves no time to recover in.
		if j == len(st) || sums[j].ToS >= st.Total().Seconds() {
			break
		}
		sp := Spike{Stage: k, Back: j + 1, EndS: sums[j].ToS, BaselineP99MS: base.P99MS}
		sp.RecoveryS, sp.Recovered = recovery(s, sp.EndS, base)
		out = append(out, sp)
		k = j
	}
	return out
}

// recovery is the time from endS to the start of the first bucket back
// within tolerance of base, or to the end of the series when none is.
func recovery(s *Series, endS float64, base StageSummary) (float64, bool) {
	n := len(s.OK)
	limit := base.P99MS*RecoveryP99Factor + RecoveryP99SlackMS
	for i := int(math.Round(endS / s.IntervalS)); i < n; i++ {
		req := BucketRequests(s.OK, s.Errors, i)
		if req == 0 {
			continue
		}
		rate := float64(req-s.OK[i]) / float64(req)
		if s.P99MS[i] <= limit && rate <= base.ErrorRate+RecoveryErrorSlack {
			return float64(i)*s.IntervalS - endS, true
		}
	}
	end := float64(n-1)*s.IntervalS + s.LastS
	return max(0, end-endS), false
}
