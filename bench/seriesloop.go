package bench

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// GaugeSource is what the generator samples from the server once a bucket.
// The generator knows no more about it than this, so where the figures come
// from (/proc, a metrics endpoint) is the caller's business.
type GaugeSource interface {
	// Gauges describes the values Read fills, in order: Name, Unit, Kind
	// and Source of each (Values is left empty).
	Gauges() []measure.ServerSeries
	// Read takes one sample into v (one element per gauge), leaving NaN
	// where a value could not be read. It returns when ctx ends.
	Read(ctx context.Context, v []float64)
}

// liveState is what the series loop has handed to the Observer so far.
type liveState struct {
	next         int // the next bucket to hand over
	cpuStarted   bool
	cpuMark      time.Duration
	cpuNext      int // the next bucket to be charged CPU time
	gaugeBaseSet bool
	gaugeBase    []float64 // readings as the window opened
	// gauged is the last bucket the gauge loop has read (-1: none yet);
	// gaugeTick wakes the series loop waiting for it.
	gauged    atomic.Int64
	gaugeTick chan struct{}
}

// SettleGrace is how long after a bucket's end the series loop settles
// it: time for the requests stamped in it to reach their workers'
// buffers (an interval's tenth, at most 50 ms). What comes later still
// is filed as late (LateObserver).
func SettleGrace(interval time.Duration) time.Duration {
	return min(interval/10, 50*time.Millisecond)
}

// startSeries runs the series loop (CPU time, stragglers, compaction, live
// lines) and, with cfg.Gauges, the gauge loop. stop ends both and files
// the end of the point at end.
func (r *runner) startSeries() (stop func(end time.Time)) {
	quit := make(chan struct{})
	loop := make(chan struct{})
	gauges := make(chan struct{})
	r.live.gauged.Store(-1)
	r.live.gaugeTick = make(chan struct{}, 1)
	go func() { defer close(loop); r.seriesLoop(quit) }()
	go func() {
		defer close(gauges)
		if r.cfg.Gauges != nil {
			r.gaugeLoop(quit)
		}
	}()
	return func(end time.Time) {
		close(quit)
		<-loop
		<-gauges
		r.finishSeries(end)
	}
}

// waitUntil sleeps on t until at, or until quit; false on quit.
func waitUntil(t *time.Timer, at time.Time, quit <-chan struct{}) bool {
	t.Reset(time.Until(at))
	select {
	case <-t.C:
		return true
	case <-quit:
		t.Stop()
		return false
	}
}

// seriesLoop wakes at the end of every bucket k: it charges k the CPU
// time spent since the last wake, and settles k a grace later, so that a
// process killed at any moment has handed over every bucket but the one
// in progress.
func (r *runner) seriesLoop(quit <-chan struct{}) {
	sr := r.series
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	if !waitUntil(t, sr.start, quit) {
		return
	}
	r.live.cpuMark, r.live.cpuStarted = cpuTime(), true
	for k := 0; ; k++ {
		if !waitUntil(t, sr.boundary(k), quit) {
			return
		}
		now := cpuTime()
		sr.setCPU(k, now-r.live.cpuMark)
		r.live.cpuMark, r.live.cpuNext = now, k+1
		if !r.awaitSettle(t, k, quit) {
			return
		}
		r.settle(k)
	}
}

// awaitSettle waits out bucket k's grace and, with gauges, their reading
// of its end (until the gauge loop's own deadline for it); false on quit.
func (r *runner) awaitSettle(t *time.Timer, k int, quit <-chan struct{}) bool {
	sr := r.series
	if !waitUntil(t, sr.boundary(k).Add(SettleGrace(sr.interval)), quit) {
		return false
	}
	if r.cfg.Gauges == nil || r.live.gauged.Load() >= int64(k) {
		return true
	}
	t.Reset(time.Until(sr.boundary(k).Add(sr.interval)))
	defer t.Stop()
	for r.live.gauged.Load() < int64(k) {
		select {
		case <-r.live.gaugeTick:
		case <-t.C:
			return true
		case <-quit:
			return false
		}
	}
	return true
}

// settle flushes what workers still hold of buckets up to upTo, compacts
// those buckets and hands them to the Observer.
func (r *runner) settle(upTo int) {
	if upTo < 0 {
		return
	}
	for _, s := range r.states {
		s.flushStale(upTo)
	}
	r.series.compact(upTo + 1)
	r.handOver(upTo)
}

// handOver passes the late answers filed since the last call, then the
// buckets up to upTo, to the Observer.
func (r *runner) handOver(upTo int) {
	if r.cfg.Observer == nil {
		return
	}
	if lo, ok := r.cfg.Observer.(LateObserver); ok {
		for _, iv := range r.lateIntervals() {
			lo.Late(iv)
		}
	}
	for ; r.live.next <= upTo; r.live.next++ {
		r.cfg.Observer.Interval(r.interval(r.live.next))
	}
}

// interval is bucket k as it stands, for the Observer. Its per-operation
// counts are handed over with it and not kept: the report has no column
// for them.
func (r *runner) interval(k int) Interval {
	sr := r.series
	iv := Interval{Index: k, Start: sr.start.Add(time.Duration(k) * sr.interval), End: time.Duration(k+1) * sr.interval,
		Length: sr.interval, Kinds: r.kinds, Operations: r.ops}
	sr.mu.Lock()
	b := sr.bucket(k)
	iv.P50MS, iv.P95MS, iv.P99MS, iv.MaxMS = ms(b.p50), ms(b.p95), ms(b.p99), ms(b.max)
	iv.Counts, iv.Sent, iv.CPU, iv.Server, iv.packed = b.kinds, b.sent, b.cpu, b.gauges, b.packed
	iv.ByOperation, b.ops = b.ops, nil
	iv.opPacked, b.opHist = sr.packOps(b.opHist), nil
	b.handed = true
	sr.mu.Unlock()
	for kind, n := range iv.Counts {
		iv.Requests += n
		if Kind(kind) != OK {
			iv.Errors += n
		}
	}
	if r.cfg.Gauges != nil {
		iv.Gauges = r.cfg.Gauges.Gauges()
	}
	iv.RPS = float64(iv.Requests) / sr.interval.Seconds()
	return iv
}

// lateIntervals takes the late answers waiting, a bucket each.
func (r *runner) lateIntervals() []Interval {
	sr := r.series
	sr.mu.Lock()
	defer sr.mu.Unlock()
	var out []Interval
	for _, k := range sr.lateQ {
		b := sr.bucket(k)
		lr := b.late
		b.late = nil
		iv := Interval{Index: k, Start: sr.start.Add(time.Duration(k) * sr.interval), End: time.Duration(k+1) * sr.interval,
			Length: sr.interval, Kinds: r.kinds, Operations: r.ops, Counts: lr.kinds, ByOperation: lr.ops}
		iv.packed, iv.opPacked = sr.packLate(lr)
		for kind, n := range iv.Counts {
			iv.Requests += n
			if Kind(kind) != OK {
				iv.Errors += n
			}
		}
		out = append(out, iv)
	}
	sr.lateQ = sr.lateQ[:0]
	return out
}

// gaugeLoop reads the gauges as the window opens and at the end of every
// bucket. A read may take up to an interval; a bucket whose end it
// overran by more than half an interval gets no reading.
func (r *runner) gaugeLoop(quit <-chan struct{}) {
	sr := r.series
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	if !waitUntil(t, sr.start, quit) {
		return
	}
	r.live.gaugeBase = r.readGauges(ctx, sr.start.Add(sr.interval))
	r.live.gaugeBaseSet = true
	for k := 0; ; {
		if !waitUntil(t, sr.boundary(k), quit) {
			return
		}
		v := r.readGauges(ctx, sr.boundary(k).Add(sr.interval))
		if ctx.Err() != nil {
			return
		}
		sr.setGauges(k, v)
		r.live.gauged.Store(int64(k))
		select {
		case r.live.gaugeTick <- struct{}{}:
		default:
		}
		// Next, the following bucket's end, unless the wake or the read
		// came so late that it is more than half an interval gone: then
		// the end of the bucket under way.
		k++
		if time.Since(sr.boundary(k)) > sr.interval/2 {
			k = sr.index(time.Now())
		}
	}
}

// readGauges takes one reading, giving up at deadline.
func (r *runner) readGauges(ctx context.Context, deadline time.Time) []float64 {
	v := make([]float64, len(r.cfg.Gauges.Gauges()))
	for i := range v {
		v[i] = math.NaN()
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	r.cfg.Gauges.Read(ctx, v)
	return v
}

// finishSeries files the end of the point: the CPU time of the last
// bucket, a last reading of the gauges if it has none, every worker's
// buffer, and the intervals not yet handed over.
func (r *runner) finishSeries(end time.Time) {
	sr := r.series
	last := sr.index(end)
	if r.live.cpuStarted && r.live.cpuNext <= last {
		sr.setCPU(last, cpuTime()-r.live.cpuMark)
	}
	if g := r.cfg.Gauges; g != nil && !time.Now().Before(sr.start) {
		sr.mu.Lock()
		missing := sr.bucket(last).gauges == nil
		sr.mu.Unlock()
		if missing {
			wait := min(sr.interval, 5*time.Second)
			sr.setGauges(last, r.readGauges(context.Background(), time.Now().Add(wait)))
		}
	}
	for _, s := range r.states {
		s.flush()
	}
	sr.compact(math.MaxInt)
	r.handOver(last)
}
