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
}

// seriesRec is the buckets of one point.
type seriesRec struct {
	start    time.Time
	interval time.Duration

	mu      sync.Mutex
	buckets []*bucketRec
	spare   []*hdrhistogram.Histogram // reset, for the next buckets
	enc     *hist.Encoder
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
		s.buckets = append(s.buckets, &bucketRec{})
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
	if n := len(s.spare); n > 0 {
		b.hist, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		b.hist = NewHistogram()
	}
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
	for i := range buf {
		l := &buf[i]
		_ = h.RecordValue(l.lat)
		b.kinds[l.kind]++
		if int(l.sentIn) == at {
			b.sent++
		} else {
			s.bucket(int(l.sentIn)).sent++
		}
	}
	s.mu.Unlock()
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
