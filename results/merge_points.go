package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// mergePoints sums what adds up and recomputes latency from the merged
// histogram; spanS is the wall time the merged point covers.
func mergePoints(ps []measure.Point, spanS float64) (measure.Point, []string, error) {
	var notes []string
	h := hist.New()
	out := measure.Point{Latency: measure.Latency{ErrorsByKind: map[string]int64{}}}
	var rate float64
	var open openLoopMerge
	var timings timingMerge
	for i, p := range ps {
		if p.Requests > 0 && p.Hist == nil {
			return out, nil, mismatch("report %d has %d requests but no histogram: it cannot be merged exactly", i+1, p.Requests)
		}
		if p.Hist != nil {
			// Merge returns the count of values it had to drop for being
			// out of range; the histograms share one range, so none are.
			if dropped := h.Merge(p.Hist); dropped > 0 {
				return out, nil, mismatch("report %d: %d histogram values out of range", i+1, dropped)
			}
		}
		addCounts(&out, &p)
		timings.add(&p)
		if p.Rate != nil {
			rate += *p.Rate
		}
		open.add(&out, &p)
	}
	if !open.finish(&out) {
		notes = appendNew(notes, noteUncorrected)
	}
	out.FirstEvent, out.TaskCreated = measure.NewTiming(timings.first), measure.NewTiming(timings.created)
	out.Client.NoticeDelay = measure.NewTiming(timings.notice)
	if ps[0].Rate != nil {
		out.Rate = &rate
	}
	if out.Requests > 0 {
		out.ErrorRate = float64(out.Errors) / float64(out.Requests)
	}
	out.Latency.FillPercentiles(h)
	out.Hist = h
	enc, err := hist.Encode(h)
	if err != nil {
		return out, nil, fmt.Errorf("encoding merged histogram: %w", err)
	}
	out.Histogram = enc
	if spanS <= 0 {
		spanS = math.SmallestNonzeroFloat64
	}
	out.ElapsedS = spanS
	out.RPS = float64(out.Requests) / spanS
	series, ns, err := mergeSeries(ps)
	if err != nil {
		return out, nil, err
	}
	out.Series = series
	notes = appendNew(notes, ns...)
	if err := mergeStages(&out, ps); err != nil {
		return out, nil, err
	}
	if len(ps[0].ByOperation) > 0 {
		ops, exact, err := mergeOperations(ps, spanS)
		if err != nil {
			return out, nil, err
		}
		out.ByOperation = ops
		if !exact {
			notes = appendNew(notes, noteByOperation)
		}
	}
	sessions, exact, err := mergeSessions(ps, spanS)
	if err != nil {
		return out, nil, err
	}
	out.Sessions = sessions
	if !exact {
		notes = appendNew(notes, noteSessions)
	}
	return out, notes, nil
}

// addCounts adds p's counters into out, keeps the first example of each
// error kind, and combines the generator's own figures.
func addCounts(out, p *measure.Point) {
	out.Concurrency += p.Concurrency
	out.Total += p.Total
	out.Requests += p.Requests
	out.OK += p.OK
	out.Errors += p.Errors
	for k, n := range p.ErrorsByKind {
		out.ErrorsByKind[k] += n
	}
	out.BytesSent += p.BytesSent
	out.BytesReceived += p.BytesReceived
	out.OfferedRPS += p.OfferedRPS
	out.Unsent += p.Unsent
	for k, ex := range p.ErrorExamples {
		if out.ErrorExamples == nil {
			out.ErrorExamples = map[string]string{}
		}
		if _, ok := out.ErrorExamples[k]; !ok {
			out.ErrorExamples[k] = ex
		}
	}
	out.Interrupted = out.Interrupted || p.Interrupted
	out.Client = mergeClient(out.Client, p.Client)
	for k, n := range p.Counters {
		if out.Counters == nil {
			out.Counters = map[string]int64{}
		}
		out.Counters[k] += n
	}
}

// timingMerge gathers the shards' timing histograms (first event, task
// creation, notice delay); a timing no shard reached stays nil.
type timingMerge struct{ first, created, notice *hdrhistogram.Histogram }

func (m *timingMerge) add(p *measure.Point) {
	if p.FirstEvent != nil {
		mergeEncoded(&m.first, p.FirstEvent.Histogram)
	}
	if p.TaskCreated != nil {
		mergeEncoded(&m.created, p.TaskCreated.Histogram)
	}
	if p.Client.NoticeDelay != nil {
		mergeEncoded(&m.notice, p.Client.NoticeDelay.Histogram)
	}
}

// openLoopMerge gathers the open-loop figures (latency from the actual
// send, schedule lag) of the shards. Their histograms merge exactly when
// every shard carries them; otherwise the largest shard's figures stand in.
type openLoopMerge struct {
	unc, lag *hdrhistogram.Histogram
	inexact  bool // some shard had a figure without its histogram
}

// add takes p's open-loop figures into out, keeping the largest, and
// merges their histograms.
func (m *openLoopMerge) add(out, p *measure.Point) {
	if p.Uncorrected != nil {
		out.Uncorrected = maxUncorrected(out.Uncorrected, p.Uncorrected)
		m.inexact = m.inexact || !mergeEncoded(&m.unc, p.Uncorrected.Histogram)
	}
	if p.ScheduleLagMS != nil {
		l := lagOf(out.ScheduleLagMS)
		out.ScheduleLagMS = &measure.ScheduleLag{P99: max(l.P99, p.ScheduleLagMS.P99), Max: max(l.Max, p.ScheduleLagMS.Max)}
		m.inexact = m.inexact || !mergeEncoded(&m.lag, p.ScheduleLagMS.Histogram)
	}
}

// finish fills out's open-loop figures from the merged histograms when
// every shard carried them, and reports whether they are exact; without
// them it drops the histograms, which would describe only some shards.
func (m *openLoopMerge) finish(out *measure.Point) bool {
	if out.Uncorrected == nil && out.ScheduleLagMS == nil {
		return true
	}
	if !m.inexact && m.unc != nil && m.lag != nil && out.Uncorrected != nil && out.ScheduleLagMS != nil {
		out.Uncorrected.Fill(m.unc)
		out.ScheduleLagMS.Fill(m.lag)
		return true
	}
	if out.Uncorrected != nil {
		out.Uncorrected.Histogram = ""
	}
	if out.ScheduleLagMS != nil {
		out.ScheduleLagMS.Histogram = ""
	}
	return false
}

// mergeEncoded adds the encoded histogram enc into *into (made on first
// use) and reports whether it could: false for a report without one.
func mergeEncoded(into **hdrhistogram.Histogram, enc string) bool {
	if enc == "" {
		return false
	}
	h := *into
	if h == nil {
		h = hist.New()
	}
	if hist.MergeEncoded(h, enc) != nil {
		return false // one that cannot be read leaves *into as it was, unmade if it was
	}
	*into = h
	return true
}

// lagOf returns *l, or zeros for nil.
func lagOf(l *measure.ScheduleLag) measure.ScheduleLag {
	if l == nil {
		return measure.ScheduleLag{}
	}
	return *l
}

func mergeClient(a, b measure.ClientStats) measure.ClientStats {
	a.PoolMaxConns += b.PoolMaxConns
	a.PoolWaits += b.PoolWaits
	a.Dials += b.Dials
	a.CPUS += b.CPUS
	if b.Saturated {
		a.Saturated = true
		if !strings.Contains(a.SaturationReason, b.SaturationReason) {
			a.SaturationReason = strings.TrimPrefix(a.SaturationReason+"; "+b.SaturationReason, "; ")
		}
	}
	if a.Engine == "" {
		a.Engine = b.Engine
	}
	switch {
	case a.LatencyClock == "":
		a.LatencyClock = b.LatencyClock
	case b.LatencyClock != "" && b.LatencyClock != a.LatencyClock:
		a.LatencyClock = "mixed" // shards whose clocks differ
	}
	return a
}

func maxUncorrected(a, b *measure.Uncorrected) *measure.Uncorrected {
	if a == nil {
		c := *b
		return &c
	}
	return &measure.Uncorrected{P50MS: max(a.P50MS, b.P50MS), P95MS: max(a.P95MS, b.P95MS), P99MS: max(a.P99MS, b.P99MS), MaxMS: max(a.MaxMS, b.MaxMS)}
}

// mergeOperations merges per-operation figures: exactly from their
// histograms when every report carries them (a session run's steps), else
// with percentiles that are upper bounds (the largest report's). exact
// says which.
func mergeOperations(ps []measure.Point, spanS float64) (ops []measure.OperationStats, exact bool, err error) {
	out := slices.Clone(ps[0].ByOperation)
	hists := make([]*hdrhistogram.Histogram, len(out))
	exact = true
	for i := range out {
		out[i].ErrorsByKind = map[string]int64{}
		out[i].Requests, out[i].OK, out[i].Errors = 0, 0, 0
		out[i].MinMS, out[i].MeanMS, out[i].P50MS, out[i].P90MS, out[i].P95MS, out[i].P99MS, out[i].P999MS, out[i].MaxMS = math.Inf(1), 0, 0, 0, 0, 0, 0, 0
	}
	for j, p := range ps {
		if len(p.ByOperation) != len(out) {
			return nil, false, mismatch("report %d has %d operations, report 1 has %d", j+1, len(p.ByOperation), len(out))
		}
		for i, o := range p.ByOperation {
			m := &out[i]
			if o.Operation != m.Operation {
				return nil, false, mismatch("report %d: operation %d is %s, report 1 has %s", j+1, i+1, OperationName(o.Operation), OperationName(m.Operation))
			}
			exact = exact && mergeEncoded(&hists[i], o.Histogram)
			addOperation(m, &o.Latency)
		}
	}
	for i := range out {
		m := &out[i]
		if m.Requests > 0 {
			m.MeanMS /= float64(m.Requests)
			m.ErrorRate = float64(m.Errors) / float64(m.Requests)
		} else {
			m.MinMS = 0
		}
		m.RPS = float64(m.Requests) / spanS
		m.Histogram = ""
		if exact && hists[i] != nil {
			m.FillPercentiles(hists[i])
			m.Histogram, _ = hist.Encode(hists[i])
		}
	}
	return out, exact, nil
}

// addOperation adds one report's figures of an operation into m: counts
// summed, the mean weighted by requests (summed here, divided at the end),
// the percentiles the largest seen.
func addOperation(m *measure.OperationStats, o *measure.Latency) {
	m.MeanMS += o.MeanMS * float64(o.Requests)
	m.Requests += o.Requests
	m.OK += o.OK
	m.Errors += o.Errors
	for k, n := range o.ErrorsByKind {
		m.ErrorsByKind[k] += n
	}
	if o.Requests > 0 {
		m.MinMS = min(m.MinMS, o.MinMS)
	}
	m.P50MS, m.P90MS, m.P95MS = max(m.P50MS, o.P50MS), max(m.P90MS, o.P90MS), max(m.P95MS, o.P95MS)
	m.P99MS, m.P999MS, m.MaxMS = max(m.P99MS, o.P99MS), max(m.P999MS, o.P999MS), max(m.MaxMS, o.MaxMS)
}
