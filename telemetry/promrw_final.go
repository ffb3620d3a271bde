package telemetry

import (
	"time"

	"github.com/prometheus/prometheus/prompb"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/results"
)

// The intervals leave out an answer filed more than an interval late,
// which only the report counts. So that a dashboard's totals are the
// report's, exactly, the final report's figures go out last, at the end,
// in place of the running totals.

// reconcile sets the totals to the final report's and queues them.
func (rw *RemoteWrite) reconcile(f harness.Final) {
	switch {
	case f.Run != nil:
		rw.settle("", f.Run.Workload.Operations, &f.Run.Point)
	case f.Sweep != nil:
		var ops []results.Operation
		if f.Sweep.Workload != nil {
			ops = f.Sweep.Workload.Operations
		}
		for i := range f.Sweep.Points {
			p := &f.Sweep.Points[i]
			rw.settle(pointLevel(p), ops, p)
		}
	default:
		return
	}
	if len(rw.hists) == 0 {
		return
	}
	ts := time.Now()
	if !ts.After(rw.last) {
		ts = rw.last.Add(time.Millisecond)
	}
	req := &prompb.WriteRequest{}
	rw.appendSamples(req, ts, false)
	rw.out.offer(req)
}

// pointLevel is a sweep point's level label, as levelLabel names it.
func pointLevel(p *results.Point) string {
	if p.Rate != nil && *p.Rate > 0 {
		return "rate=" + ftoa(*p.Rate)
	}
	return "c=" + itoa(p.Concurrency)
}

// settle puts the point's exact figures in the totals of level.
func (rw *RemoteWrite) settle(level string, ops []results.Operation, p *results.Point) {
	var h *cumulative
	if len(ops) == 1 {
		h = rw.cumulativeOf(rw.hists, append(withLevel(rw.base, level), opLabels(ops[0])...))
	} else {
		h = rw.cumulativeOf(rw.hists, append(withLevel(rw.base, level), label{LabelMethod, "all"}))
	}
	if dec, err := hist.Decode(p.Histogram); err == nil && p.Histogram != "" {
		*h = cumulative{labels: h.labels, buckets: make([]int64, len(DurationBuckets))}
		addHistogram(h, dec)
	}
	set := func(op results.Operation, l *results.Latency) {
		if l.OK > 0 {
			rw.cumulativeOf(rw.counts, append(withLevel(rw.base, level), opLabels(op)...)).count = l.OK
		}
		for kind, n := range l.ErrorsByKind {
			rw.cumulativeOf(rw.counts, append(append(withLevel(rw.base, level), opLabels(op)...), label{LabelOutcome, kind})).count = n
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
