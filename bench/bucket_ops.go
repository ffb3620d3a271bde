package bench

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// A level that mixes operations keeps one latency histogram per bucket
// for the report's series and one per operation for the whole point. An
// output that plots each operation's latency over time (an exporter's
// duration histogram, labelled by operation) needs them per bucket too:
// the series keeps those only for an OperationsObserver, until the
// bucket is handed over, so that no one else pays for them.

// OperationsObserver is an Observer that wants each interval's latencies
// by operation (Interval.OperationHistogram) when the level mixes
// several; WantsOperationHistograms is asked once, as the level starts.
type OperationsObserver interface {
	Observer
	WantsOperationHistograms() bool
}

// opHistsOf is bucket b's histograms by operation, for filing answers in
// it; nil when the series keeps none or b was handed over (late answers
// have their own). The caller holds s.mu.
func (s *seriesRec) opHistsOf(b *bucketRec) []*hdrhistogram.Histogram {
	if !s.opHists || b.handed {
		return nil
	}
	if b.opHist == nil {
		b.opHist = make([]*hdrhistogram.Histogram, s.nOps)
	}
	return b.opHist
}

// recordOp files l in its operation's histogram of oh. The caller holds
// s.mu.
func (s *seriesRec) recordOp(oh []*hdrhistogram.Histogram, l *latencies) {
	if l.op < 0 || int(l.op) >= len(oh) {
		return
	}
	if oh[l.op] == nil {
		oh[l.op] = s.spareHist()
	}
	_ = oh[l.op].RecordValue(l.lat)
}

// packOps encodes the histograms by operation (nil where an operation
// had no answer) and keeps them as spares; nil for none. The caller holds
// s.mu.
func (s *seriesRec) packOps(oh []*hdrhistogram.Histogram) [][]byte {
	if oh == nil {
		return nil
	}
	out := make([][]byte, len(oh))
	for i, h := range oh {
		if h != nil {
			out[i] = s.pack(h)
		}
	}
	return out
}

// HasOperationHistograms says whether the interval carries its latencies
// by operation (OperationHistogram).
func (iv *Interval) HasOperationHistograms() bool { return iv.opPacked != nil }

// OperationHistogram is operation i's latencies in the bucket, in
// Histogram's form: "" when it had no answer, the level has one
// operation, or no OperationsObserver asked for them.
func (iv *Interval) OperationHistogram(i int) string {
	if i < 0 || i >= len(iv.opPacked) || iv.opPacked[i] == nil {
		return ""
	}
	var e hist.Encoder
	return e.Text(iv.opPacked[i])
}

// MergeOperationHistogram adds operation i's latencies in the bucket to
// dst, of hist.New's geometry.
func (iv *Interval) MergeOperationHistogram(i int, dst *hdrhistogram.Histogram) error {
	if i < 0 || i >= len(iv.opPacked) || iv.opPacked[i] == nil {
		return nil
	}
	return hist.MergePacked(dst, iv.opPacked[i])
}
