package bench

import (
	"math"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// Recovery tolerance: a bucket is back when its p99 is within half the
// held stage's p99 plus RecoveryP99SlackMS of it, and its error rate
// within one point of the held stage's.
const (
	RecoveryP99Factor  = 1.5
	RecoveryP99SlackMS = 5.0
	RecoveryErrorSlack = 0.01
)

// StagesOf rebuilds stages from their summaries (a report read back).
func StagesOf(ss []measure.StageSummary) Stages {
	st := make(Stages, len(ss))
	for i, s := range ss {
		st[i] = LoadStage{Duration: secs(s.ToS - s.FromS).Round(time.Millisecond), Target: s.Target}
	}
	return st
}

// SummarizeStages is each stage's summary and the spikes' recoveries,
// from s; nothing without stages or a series.
func SummarizeStages(st Stages, s *measure.Series) ([]measure.StageSummary, []measure.Spike) {
	if len(st) == 0 || s == nil || len(s.OK) == 0 {
		return nil, nil
	}
	n := len(s.OK)
	out := make([]measure.StageSummary, len(st))
	last := 0
	for k := range st {
		from, to, _, v1 := st.segment(k)
		out[k] = measure.StageSummary{FromS: from.Seconds(), ToS: to.Seconds(), Target: v1}
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
		fillStage(&out[k], s, lo, min(hi, n))
		lo = max(lo, min(hi, n))
	}
	return out, spikes(st, out, s)
}

// fillStage sums buckets [lo, hi) of s into sm.
func fillStage(sm *measure.StageSummary, s *measure.Series, lo, hi int) {
	h := hist.New()
	var secs float64
	for i := lo; i < hi; i++ {
		sm.Requests += measure.BucketRequests(s.OK, s.Errors, i)
		sm.Errors += measure.BucketRequests(s.OK, s.Errors, i) - s.OK[i]
		secs += measure.BucketS(i, len(s.OK), s.IntervalS, s.LastS)
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
func spikes(st Stages, sums []measure.StageSummary, s *measure.Series) []measure.Spike {
	var out []measure.Spike
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
		sp := measure.Spike{Stage: k, Back: j + 1, EndS: sums[j].ToS, BaselineP99MS: base.P99MS}
		sp.RecoveryS, sp.Recovered = recovery(s, sp.EndS, base)
		out = append(out, sp)
		k = j
	}
	return out
}

// recovery is the time from endS to the start of the first bucket back
// within tolerance of base, or to the end of the series when none is.
func recovery(s *measure.Series, endS float64, base measure.StageSummary) (float64, bool) {
	n := len(s.OK)
	limit := base.P99MS*RecoveryP99Factor + RecoveryP99SlackMS
	for i := int(math.Round(endS / s.IntervalS)); i < n; i++ {
		req := measure.BucketRequests(s.OK, s.Errors, i)
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
