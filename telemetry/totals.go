package telemetry

import (
	"slices"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// totals are what a run's intervals add up to, series by series: the
// running totals both exporters send (cumulative, so a lost request
// costs only its own timestamp). Only the series loop touches them, and
// then Stop.
type totals struct {
	base    []label
	scratch *hdrhistogram.Histogram
	hists   map[string]*cumulative
	counts  map[string]*cumulative
	start   time.Time // where the first interval began
	last    time.Time // the latest sample's time
}

// cumulative is one series' running total(s).
type cumulative struct {
	labels  []label
	buckets []int64 // the histogram's, cumulative, one per DurationBuckets bound
	count   int64
	sum     float64
}

func newTotals(base []label) *totals {
	return &totals{base: base, scratch: hist.New(), hists: map[string]*cumulative{}, counts: map[string]*cumulative{}}
}

// add adds the bucket to the totals and returns the time their samples
// take; first says it is the first (the totals were zero at t.start).
func (t *totals) add(iv harness.PointInterval) (at time.Time, first, ok bool) {
	first = t.start.IsZero()
	if first {
		t.start = iv.Start
	}
	if !t.fold(iv) {
		return at, first, false
	}
	// The last bucket may end early (Length is the nominal interval);
	// a sample stamped in the future is not seen by a query until then.
	at = iv.Start.Add(iv.Length)
	if now := time.Now(); at.After(now) {
		at = now
	}
	t.last = at
	return at, first, true
}

// addLate adds answers filed in a bucket after its interval: the next
// samples carry them (a sample of their own, stamped in the past, would
// come before the latest one).
func (t *totals) addLate(iv harness.PointInterval) {
	if !t.start.IsZero() {
		t.fold(iv)
	}
}

// fold adds the bucket's histogram and counts to the running totals.
func (t *totals) fold(iv harness.PointInterval) bool {
	level := levelLabel(iv)
	if !t.foldHistograms(iv, level) {
		return false
	}
	for i, op := range iv.Operations {
		counts := iv.Counts[:]
		if iv.ByOperation != nil {
			counts = iv.ByOperation[i][:]
		}
		for k, n := range counts {
			if n == 0 || k >= len(iv.Kinds) {
				continue
			}
			ls := append(withLevel(t.base, level), opLabels(measure.Operation(op))...)
			if k > 0 {
				ls = append(ls, label{LabelOutcome, iv.Kinds[k]})
			}
			t.cumulativeOf(t.counts, ls).count += n
		}
	}
	return true
}

// foldHistograms adds the bucket's latencies to the duration
// histograms: each operation's to its own when the bucket carries them
// apart, else the bucket's to durationLabels'.
func (t *totals) foldHistograms(iv harness.PointInterval, level string) bool {
	if iv.Requests == 0 {
		// No latencies, and no operation histograms either: folding the
		// empty bucket would open a duration series for "all" operations
		// in a mix.
		return true
	}
	if !iv.HasOperationHistograms() {
		t.scratch.Reset()
		if err := iv.MergeHistogram(t.scratch); err != nil {
			return false
		}
		addHistogram(t.cumulativeOf(t.hists, durationLabels(iv, level, t.base)), t.scratch)
		return true
	}
	for i, op := range iv.Operations {
		t.scratch.Reset()
		if err := iv.MergeOperationHistogram(i, t.scratch); err != nil {
			return false
		}
		c := t.cumulativeOf(t.hists, append(withLevel(t.base, level), opLabels(measure.Operation(op))...))
		addHistogram(c, t.scratch)
	}
	return true
}

// durationLabels are the labels of the duration histogram of a bucket
// that does not carry its operations' latencies apart: the operation's
// when the level has one, else mcp_method_name="all" (an output that
// wants them apart asks for them: WantsOperationHistograms).
func durationLabels(iv harness.PointInterval, level string, base []label) []label {
	ls := withLevel(base, level)
	if len(iv.Operations) == 1 {
		return append(ls, opLabels(measure.Operation(iv.Operations[0]))...)
	}
	return append(ls, label{LabelMethod, "all"})
}

func withLevel(base []label, level string) []label {
	ls := slices.Clone(base)
	if level != "" {
		ls = append(ls, label{LabelLevel, level})
	}
	return ls
}

// cumulativeOf is the running total of the series with labels ls.
func (t *totals) cumulativeOf(m map[string]*cumulative, ls []label) *cumulative {
	k := key(ls)
	c, ok := m[k]
	if !ok {
		c = &cumulative{labels: ls, buckets: make([]int64, len(DurationBuckets))}
		m[k] = c
	}
	return c
}

// key names a label set, its labels sorted (in place).
func key(ls []label) string {
	slices.SortFunc(ls, func(a, b label) int { return strings.Compare(a.name, b.name) })
	k := ""
	for _, l := range ls {
		k += l.name + "\xff" + l.value + "\xff"
	}
	return k
}

// settleHistogram sets the duration histogram of labels ls to the
// encoded one (left as it is when that is empty or unreadable).
func (t *totals) settleHistogram(ls []label, text string) {
	dec, err := hist.Decode(text)
	if err != nil || text == "" {
		return
	}
	h := t.cumulativeOf(t.hists, ls)
	*h = cumulative{labels: h.labels, buckets: make([]int64, len(DurationBuckets))}
	addHistogram(h, dec)
}

// addHistogram adds h's latencies (microseconds) to c's buckets, count
// and sum (seconds).
func addHistogram(c *cumulative, h *hdrhistogram.Histogram) {
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		// A bar spans values the histogram cannot tell apart; its highest
		// is the one the report's percentiles give.
		v := float64(bar.To) / 1e6
		c.count += bar.Count
		c.sum += v * float64(bar.Count)
		for i, b := range DurationBuckets {
			if v <= b {
				c.buckets[i] += bar.Count
			}
		}
	}
}

// The intervals leave out an answer filed more than an interval late,
// which only the report counts. So that a dashboard's totals are the
// report's, exactly, the final report's figures go out last, at the end,
// in place of the running totals.

// reconcile sets the totals to the final report's and returns the time
// their samples take; false when there is nothing to send.
func (t *totals) reconcile(f harness.Final) (time.Time, bool) {
	switch {
	case f.Run != nil:
		t.settle("", f.Run.Workload.Operations, &f.Run.Point)
	case f.Sweep != nil:
		var ops []measure.Operation
		if f.Sweep.Workload != nil {
			ops = f.Sweep.Workload.Operations
		}
		for i := range f.Sweep.Points {
			p := &f.Sweep.Points[i]
			t.settle(pointLevel(p), ops, p)
		}
	default:
		return time.Time{}, false
	}
	if len(t.hists) == 0 {
		return time.Time{}, false
	}
	ts := time.Now()
	if !ts.After(t.last) {
		ts = t.last.Add(time.Millisecond)
	}
	t.last = ts
	return ts, true
}

// pointLevel is a sweep point's level label, as levelLabel names it.
func pointLevel(p *measure.Point) string {
	if p.Rate != nil && *p.Rate > 0 {
		return "rate=" + ftoa(*p.Rate)
	}
	return "c=" + itoa(p.Concurrency)
}

// settle puts the point's exact figures in the totals of level.
func (t *totals) settle(level string, ops []measure.Operation, p *measure.Point) {
	switch {
	case len(ops) == 1:
		t.settleHistogram(append(withLevel(t.base, level), opLabels(ops[0])...), p.Histogram)
	case len(p.ByOperation) > 0 && p.ByOperation[0].Histogram != "":
		for i := range p.ByOperation {
			t.settleHistogram(append(withLevel(t.base, level), opLabels(p.ByOperation[i].Operation)...), p.ByOperation[i].Histogram)
		}
	default:
		// A plain mix's report keeps no histogram per operation: the
		// running totals by operation, late answers added, are its own.
		if _, ok := t.hists[key(append(withLevel(t.base, level), label{LabelMethod, "all"}))]; ok {
			t.settleHistogram(append(withLevel(t.base, level), label{LabelMethod, "all"}), p.Histogram)
		}
	}
	set := func(op measure.Operation, l *measure.Latency) {
		if l.OK > 0 {
			t.cumulativeOf(t.counts, append(withLevel(t.base, level), opLabels(op)...)).count = l.OK
		}
		for kind, n := range l.ErrorsByKind {
			t.cumulativeOf(t.counts, append(append(withLevel(t.base, level), opLabels(op)...), label{LabelOutcome, kind})).count = n
		}
	}
	switch {
	case len(p.ByOperation) > 0:
		for i := range p.ByOperation {
			set(p.ByOperation[i].Operation, &p.ByOperation[i].Latency)
		}
	case len(ops) == 1:
		set(ops[0], &p.Latency)
	}
}
