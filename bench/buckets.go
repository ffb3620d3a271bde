package bench

import (
	"bytes"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// The series is recorded in buckets of Config.Interval counted from the
// start of measuring. A request belongs to the bucket of its answer (and,
// for Sent, of its send), worked out from the timestamps the drivers take
// anyway: no extra clock read on the hot path. Workers keep buffering as
// before and flush when their bucket changes, so a flush fills one bucket.
//
// A bucket's histogram (full precision, so the buckets add up to the
// point's histogram exactly) is about 190 KB: too much to keep thousands.
// So once a bucket is over and every worker has flushed it, the series
// loop compacts it to its encoded form and hands the histogram to the next
// bucket; only the last couple of buckets are ever live.

// bucketRec is one bucket as recorded.
type bucketRec struct {
	sent  int64
	kinds [MaxKinds]int64
	hist  *hdrhistogram.Histogram // nil once compacted
	// packed is the histogram once compacted (hist.Encoder.Pack): its
	// text, near twice the size, is made only for the report.
	packed []byte
	// Percentiles taken at compaction, microseconds.
	p50, p95, p99, max int64
	cpu                time.Duration
	gauges             []float64 // raw readings at the bucket's end; nil when none
	// ops counts answers by operation and outcome, for the Observer
	// only: nil once handed over, and never made without one.
	ops [][MaxKinds]int64
	// handed: the bucket went to the Observer; late holds what was filed
	// in it since, for a LateObserver (nil when nothing was).
	handed bool
	late   *lateRec
	// opHist are the bucket's latencies by operation, made on first use
	// and only for an OperationsObserver; packed as handed over.
	opHist []*hdrhistogram.Histogram
}

// lateRec is what was filed in a bucket after it was handed over: a
// straggler stamped in the bucket that reached the series only later.
type lateRec struct {
	kinds [MaxKinds]int64
	ops   [][MaxKinds]int64
	lats  []lateLatency
}

type lateLatency struct {
	us int64
	op int32
}

// seriesRec is the buckets of one point.
type seriesRec struct {
	start    time.Time
	interval time.Duration
	nOps     int // operations counted per bucket (bucketRec.ops); 0: none
	// keepLate: what is filed in a bucket already handed over is kept
	// apart too (bucketRec.late), for a LateObserver.
	keepLate bool
	// opHists: a histogram per operation per bucket (bucketRec.opHist),
	// for an OperationsObserver of a level that mixes operations.
	opHists bool

	mu      sync.Mutex
	buckets []*bucketRec
	// lateQ are the buckets whose late answers wait to be handed over.
	lateQ []int
	spare []*hdrhistogram.Histogram // reset, for the next buckets
	enc   *hist.Encoder
}

func newSeriesRec(start time.Time, interval, expected time.Duration) *seriesRec {
	s := &seriesRec{start: start, interval: interval, enc: hist.NewEncoder()}
	if expected > 0 {
		s.buckets = make([]*bucketRec, 0, int(expected/interval)+2)
	}
	return s
}

// index is the bucket that time t falls in.
func (s *seriesRec) index(t time.Time) int {
	d := t.Sub(s.start)
	if d < 0 {
		return 0
	}
	return int(d / s.interval)
}

// bucket returns bucket i, making it (and any before it) on first use.
// The caller holds s.mu.
func (s *seriesRec) bucket(i int) *bucketRec {
	for len(s.buckets) <= i {
		b := &bucketRec{}
		if s.nOps > 0 {
			b.ops = make([][MaxKinds]int64, s.nOps)
		}
		s.buckets = append(s.buckets, b)
	}
	return s.buckets[i]
}

// histOf returns bucket b's live histogram, taking a spare one or, for a
// bucket already compacted (a straggler arriving late), decoding it back.
// The caller holds s.mu.
func (s *seriesRec) histOf(b *bucketRec) *hdrhistogram.Histogram {
	if b.hist != nil {
		return b.hist
	}
	b.hist = s.spareHist()
	if b.packed != nil {
		_ = hist.MergePacked(b.hist, b.packed) // our own packing: it reads back
		b.packed = nil
	}
	return b.hist
}

// add files a worker's buffered requests, all answered in bucket at.
func (s *seriesRec) add(at int, buf []latencies) {
	s.mu.Lock()
	b := s.bucket(at)
	h := s.histOf(b)
	late := s.lateOf(at, b)
	oh := s.opHistsOf(b)
	for i := range buf {
		l := &buf[i]
		_ = h.RecordValue(l.lat)
		b.kinds[l.kind]++
		if b.ops != nil && int(l.op) < len(b.ops) && l.op >= 0 {
			b.ops[l.op][l.kind]++
		}
		if late != nil {
			late.add(l)
		}
		if oh != nil {
			s.recordOp(oh, l)
		}
		if int(l.sentIn) == at {
			b.sent++
		} else {
			s.bucket(int(l.sentIn)).sent++
		}
	}
	s.mu.Unlock()
}

// lateOf is where answers filed now in bucket at (b) are kept apart:
// nil unless b was handed over and a LateObserver wants them. The caller
// holds s.mu.
func (s *seriesRec) lateOf(at int, b *bucketRec) *lateRec {
	if !b.handed || !s.keepLate {
		return nil
	}
	if b.late == nil {
		b.late = &lateRec{}
		if s.nOps > 0 {
			b.late.ops = make([][MaxKinds]int64, s.nOps)
		}
		s.lateQ = append(s.lateQ, at)
	}
	return b.late
}

func (lr *lateRec) add(l *latencies) {
	lr.kinds[l.kind]++
	if lr.ops != nil && l.op >= 0 && int(l.op) < len(lr.ops) {
		lr.ops[l.op][l.kind]++
	}
	lr.lats = append(lr.lats, lateLatency{l.lat, l.op})
}

// packLate is lr's latencies in the packed form of a bucket's
// histogram, and by operation when the series keeps them so. The caller
// holds s.mu.
func (s *seriesRec) packLate(lr *lateRec) (all []byte, byOp [][]byte) {
	h := s.spareHist()
	var oh []*hdrhistogram.Histogram
	if s.opHists {
		oh = make([]*hdrhistogram.Histogram, s.nOps)
	}
	for _, v := range lr.lats {
		_ = h.RecordValue(v.us)
		if oh != nil {
			s.recordOp(oh, &latencies{lat: v.us, op: v.op})
		}
	}
	return s.pack(h), s.packOps(oh)
}

// spareHist is a reset histogram, a spare one if there is one. The
// caller holds s.mu.
func (s *seriesRec) spareHist() *hdrhistogram.Histogram {
	if n := len(s.spare); n > 0 {
		h := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return h
	}
	return NewHistogram()
}

// pack encodes h and keeps it as a spare. The caller holds s.mu.
func (s *seriesRec) pack(h *hdrhistogram.Histogram) []byte {
	packed := bytes.Clone(s.enc.Pack(h))
	h.Reset()
	s.spare = append(s.spare, h)
	return packed
}

// compact encodes every bucket before upTo that is still live and keeps
// its histogram for reuse.
func (s *seriesRec) compact(upTo int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < min(upTo, len(s.buckets)); i++ {
		b := s.buckets[i]
		if b.hist == nil {
			continue
		}
		h := b.hist
		b.p50, b.p95, b.p99, b.max = h.ValueAtQuantile(50), h.ValueAtQuantile(95), h.ValueAtQuantile(99), h.Max()
		b.packed = bytes.Clone(s.enc.Pack(h))
		h.Reset()
		b.hist = nil
		s.spare = append(s.spare, h)
	}
}

// setCPU records the generator's CPU time of bucket i.
func (s *seriesRec) setCPU(i int, cpu time.Duration) {
	s.mu.Lock()
	s.bucket(i).cpu = cpu
	s.mu.Unlock()
}

// setGauges records the server readings taken at the end of bucket i.
func (s *seriesRec) setGauges(i int, v []float64) {
	s.mu.Lock()
	s.bucket(i).gauges = v
	s.mu.Unlock()
}

// boundary is the end of bucket i.
func (s *seriesRec) boundary(i int) time.Time {
	return s.start.Add(time.Duration(i+1) * s.interval)
}
