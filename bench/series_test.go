package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// checkSeriesSums holds a point's series to its totals: every column adds
// up to the point's figure exactly, and the buckets' histograms add up to
// the point's histogram bin for bin.
func checkSeriesSums(t *testing.T, p measure.Point) {
	t.Helper()
	s := p.Series
	if s == nil || s.Len() == 0 {
		t.Fatal("the point has no series")
	}
	var sent, ok int64
	for i := range s.Len() {
		sent += s.Sent[i]
		ok += s.OK[i]
	}
	if sent != p.Requests || ok != p.OK {
		t.Errorf("series sums: sent %d ok %d, point: requests %d ok %d", sent, ok, p.Requests, p.OK)
	}
	for kind, want := range p.ErrorsByKind {
		var got int64
		for _, n := range s.Errors[kind] {
			got += n
		}
		if got != want {
			t.Errorf("errors %q: series sum %d, point %d", kind, got, want)
		}
	}
	if len(s.Errors) != len(p.ErrorsByKind) {
		t.Errorf("series error kinds %v, point %v", s.Errors, p.ErrorsByKind)
	}
	if last := s.InFlight[s.Len()-1]; last != 0 {
		t.Errorf("in flight at the end %d, want 0", last)
	}
	merged := NewHistogram()
	for i, enc := range s.Histograms {
		if enc == "" {
			if s.Requests(i) > 0 {
				t.Fatalf("bucket %d has %d answers but no histogram", i, s.Requests(i))
			}
			continue
		}
		h, err := hist.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != s.Requests(i) {
			t.Errorf("bucket %d: histogram holds %d, the counts say %d", i, h.TotalCount(), s.Requests(i))
		}
		merged.Merge(h)
	}
	if !sameBins(merged, p.Hist) {
		t.Errorf("the buckets' histograms do not add up to the point's: %d vs %d values", merged.TotalCount(), p.Hist.TotalCount())
	}
	for i := range s.Len() {
		if want := float64(s.Requests(i)) / s.BucketS(i); math.Abs(s.RPS[i]-want) > 0.001 {
			t.Errorf("bucket %d: rps %v, want %v", i, s.RPS[i], want)
		}
	}
	span := float64(s.Len()-1)*s.IntervalS + s.LastS
	if math.Abs(span-p.ElapsedS) > 1e-6 {
		t.Errorf("the buckets span %.6f s, the point %.6f s", span, p.ElapsedS)
	}
}

func sameBins(a, b *hdrhistogram.Histogram) bool {
	da, db := a.Distribution(), b.Distribution()
	if len(da) != len(db) {
		return false
	}
	for i := range da {
		if da[i] != db[i] {
			return false
		}
	}
	return a.TotalCount() == b.TotalCount()
}

func TestSeriesClosedLoopSumsExactly(t *testing.T) {
	var n atomic.Int64
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 8}, Duration: 1200 * time.Millisecond, Interval: 100 * time.Millisecond},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: time.Millisecond, failEvery: 7, n: &n}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Errors == 0 || p.Requests < 100 {
		t.Fatalf("too little to check: %d requests, %d errors", p.Requests, p.Errors)
	}
	checkSeriesSums(t, p)
	if got := p.Series.Len(); got < 12 || got > 14 {
		t.Errorf("%d buckets of 100 ms over 1.2 s", got)
	}
}

func TestSeriesOpenLoopSumsExactly(t *testing.T) {
	var n atomic.Int64
	p, err := Run(context.Background(), Config{Model: OpenLoop{Rate: 1500, MaxInFlight: 8}, Duration: time.Second, Interval: 100 * time.Millisecond},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 2 * time.Millisecond, failEvery: 11, n: &n}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	checkSeriesSums(t, p)
	// About 150 sent each 100 ms: the schedule shows in the series.
	var mid int64
	for i := 1; i < p.Series.Len()-1; i++ {
		mid += p.Series.Sent[i]
	}
	if mean := float64(mid) / float64(p.Series.Len()-2); mean < 120 || mean > 180 {
		t.Errorf("%.0f sent a bucket at 1500/s", mean)
	}
}

// TestSeriesStragglers has answers slower than the interval: a worker's
// buffer holds a bucket long after it ended, and the series loop must
// flush it for the bucket to be complete.
func TestSeriesStragglers(t *testing.T) {
	var n atomic.Int64
	obs := &intervalLog{}
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 4}, Total: 24, Interval: 50 * time.Millisecond, Observer: obs},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 120 * time.Millisecond, n: &n}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	checkSeriesSums(t, p)
	var live int64
	ivs := obs.got
	for i, iv := range ivs {
		if iv.Index != i {
			t.Fatalf("live buckets out of order: %d at %d", iv.Index, i)
		}
		live += iv.Requests
	}
	if len(ivs) != p.Series.Len() || live != p.Requests {
		t.Errorf("live lines: %d buckets, %d requests; series %d buckets, %d requests", len(ivs), live, p.Series.Len(), p.Requests)
	}
}

// intervalLog keeps the intervals a level hands over.
type intervalLog struct {
	NopObserver
	mu  sync.Mutex
	got []Interval
}

func (o *intervalLog) Interval(iv Interval) { o.mu.Lock(); o.got = append(o.got, iv); o.mu.Unlock() }

// fakeGauges counts its reads: a level that is the read number and a
// counter that grows by 10 a read.
type fakeGauges struct{ reads atomic.Int64 }

func (*fakeGauges) Gauges() []measure.ServerSeries {
	return []measure.ServerSeries{{Name: "level", Kind: measure.GaugeLevel}, {Name: "total", Kind: measure.GaugeCounter}}
}

func (g *fakeGauges) Read(_ context.Context, v []float64) {
	n := float64(g.reads.Add(1))
	v[0], v[1] = n, 10*n
}

func TestSeriesGauges(t *testing.T) {
	g := &fakeGauges{}
	var n atomic.Int64
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 2}, Duration: 550 * time.Millisecond, Interval: 100 * time.Millisecond, Gauges: g},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: time.Millisecond, n: &n}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	srv := p.Series.Server
	if len(srv) != 2 || len(srv[0].Values) != p.Series.Len() {
		t.Fatalf("server columns %+v for %d buckets", srv, p.Series.Len())
	}
	// Read 1 opens the window; each bucket's end reads again, the last
	// one as the point ends.
	for i, v := range srv[0].Values {
		if v != float64(i+2) {
			t.Errorf("level at bucket %d = %v, want %d", i, v, i+2)
		}
		if d := srv[1].Values[i]; d != 10 {
			t.Errorf("counter increase at bucket %d = %v, want 10", i, d)
		}
	}
}

// A compacted bucket keeps its histogram packed, about half the size of
// the text the report carries, and the text made from it at the end is
// hist.Encode's, byte for byte.
func TestCompactedBucketKeepsItsHistogramPacked(t *testing.T) {
	start := time.Now()
	sr := newSeriesRec(start, time.Second, 0)
	want := NewHistogram()
	var buf []latencies
	for v := int64(1); v < 200_000; v = v*11/10 + 1 {
		buf = append(buf, latencies{lat: v})
		_ = want.RecordValue(v)
	}
	sr.add(0, buf)
	sr.compact(1)
	b := sr.buckets[0]
	if b.hist != nil || len(b.packed) == 0 {
		t.Fatalf("after compaction: live histogram %v, %d bytes packed", b.hist != nil, len(b.packed))
	}
	wantText, err := hist.Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := sr.enc.Text(b.packed); got != wantText {
		t.Fatalf("the bucket's text differs from hist.Encode's:\n%s\n%s", got, wantText)
	}
	if 10*len(b.packed) > 6*len(wantText) {
		t.Errorf("the bucket keeps %d bytes for a text of %d: want it packed", len(b.packed), len(wantText))
	}
}

// A straggler answered in a bucket already compacted reopens it from its
// packed form: after the next compaction the bucket holds every count.
func TestStragglerReopensACompactedBucket(t *testing.T) {
	sr := newSeriesRec(time.Now(), time.Second, 0)
	want := NewHistogram()
	for _, batch := range [][]int64{{10, 20, 30, 4000}, {50, 70_000}} {
		var buf []latencies
		for _, v := range batch {
			buf = append(buf, latencies{lat: v})
			_ = want.RecordValue(v)
		}
		sr.add(0, buf)
		sr.compact(1)
	}
	wantText, err := hist.Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := sr.enc.Text(sr.buckets[0].packed); got != wantText {
		t.Fatalf("the reopened bucket's histogram differs from all its counts:\n%s\n%s", got, wantText)
	}
}

// lateLog keeps the intervals and the late answers a level hands over,
// in the order they come.
type lateLog struct {
	intervalLog
	late []Interval
	seq  []string
}

func (o *lateLog) Interval(iv Interval) {
	o.intervalLog.Interval(iv)
	o.seq = append(o.seq, fmt.Sprintf("interval %d", iv.Index))
}

func (o *lateLog) WantsOperationHistograms() bool { return true }

func (o *lateLog) Late(iv Interval) {
	o.late = append(o.late, iv)
	o.seq = append(o.seq, fmt.Sprintf("late %d", iv.Index))
}

// A bucket is handed over as soon as it is settled; what is filed in it
// afterwards reaches a LateObserver alone, by operation and with its
// histogram, before the next bucket, and the two add up to the bucket
// the report keeps.
func TestLateAnswersReachALateObserver(t *testing.T) {
	obs := &lateLog{}
	r := newRunner(Config{Interval: time.Second, Observer: obs}, context.Background(), context.Background(), nil,
		[]measure.Operation{{Method: "a"}, {Method: "b"}}, []string{"ok", "timeout"})
	r.series.start = time.Now()
	r.series.add(0, []latencies{{lat: 100, op: 0}, {lat: 200, op: 1}})
	r.settle(0)
	r.series.add(0, []latencies{{lat: 90_000, op: 1, kind: 1}}) // a straggler
	r.series.add(1, []latencies{{lat: 300, op: 0}})
	r.settle(1)
	r.settle(1) // nothing new: no second late
	if got := strings.Join(obs.seq, ", "); got != "interval 0, late 0, interval 1" {
		t.Fatalf("handed over: %s", got)
	}
	iv, late := obs.got[0], obs.late[0]
	if iv.Requests != 2 || late.Requests != 1 || late.Errors != 1 || late.Counts[1] != 1 || late.ByOperation[1][1] != 1 || late.ByOperation[0] != [MaxKinds]int64{} {
		t.Fatalf("interval %d answers; late %d answers, %d errors, by operation %v", iv.Requests, late.Requests, late.Errors, late.ByOperation[:2])
	}
	h := NewHistogram()
	if err := late.MergeHistogram(h); err != nil || h.TotalCount() != 1 || h.Max() < 89_000 {
		t.Fatalf("late histogram: %v, %d values, max %d", err, h.TotalCount(), h.Max())
	}
	if err := iv.MergeHistogram(h); err != nil {
		t.Fatal(err)
	}
	sum, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	r.series.compact(2)
	if whole := r.series.enc.Text(r.series.buckets[0].packed); whole != sum {
		t.Fatalf("interval and late do not add up to the bucket:\n%s\n%s", sum, whole)
	}
	// By operation: a's and b's answers apart, the straggler b's.
	for _, c := range []struct {
		iv       Interval
		op       int
		n, maxUS int64
	}{{iv, 0, 1, 100}, {iv, 1, 1, 200}, {late, 0, 0, 0}, {late, 1, 1, 90_000}, {obs.got[1], 0, 1, 300}, {obs.got[1], 1, 0, 0}} {
		h := NewHistogram()
		if err := c.iv.MergeOperationHistogram(c.op, h); err != nil || !c.iv.HasOperationHistograms() {
			t.Fatal(err)
		}
		if h.TotalCount() != c.n || (c.n > 0 && !h.ValuesAreEquivalent(h.Max(), c.maxUS)) || (c.n == 0) != (c.iv.OperationHistogram(c.op) == "") {
			t.Errorf("bucket %d operation %d: %d answers, max %d µs; want %d, %d", c.iv.Index, c.op, h.TotalCount(), h.Max(), c.n, c.maxUS)
		}
	}
}

// Without an OperationsObserver the series keeps no histogram by
// operation.
func TestNoOperationHistogramsUnasked(t *testing.T) {
	obs := &intervalLog{}
	r := newRunner(Config{Interval: time.Second, Observer: obs}, context.Background(), context.Background(), nil,
		[]measure.Operation{{Method: "a"}, {Method: "b"}}, []string{"ok"})
	r.series.start = time.Now()
	r.series.add(0, []latencies{{lat: 100, op: 0}, {lat: 200, op: 1}})
	if r.series.buckets[0].opHist != nil {
		t.Fatal("histograms by operation kept for an observer that did not ask")
	}
	r.settle(0)
	if iv := obs.got[0]; iv.HasOperationHistograms() || iv.ByOperation == nil {
		t.Fatalf("interval: by operation %v, histograms %v", iv.ByOperation, iv.HasOperationHistograms())
	}
}

// TestEmptyBucketsHaveNoLatency: a bucket with no answers has no
// percentiles, and the report writes them as null, not as 0 ms.
func TestEmptyBucketsHaveNoLatency(t *testing.T) {
	var n atomic.Int64
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 1}, Total: 2, Interval: 50 * time.Millisecond},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 180 * time.Millisecond, n: &n}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Series
	empty, answered := 0, 0
	for i := range s.Len() {
		got := []float64{s.P50MS[i], s.P95MS[i], s.P99MS[i], s.MaxMS[i]}
		if s.Requests(i) == 0 {
			empty++
			for _, v := range got {
				if !math.IsNaN(v) {
					t.Errorf("bucket %d has no answers but percentiles %v", i, got)
					break
				}
			}
			continue
		}
		answered++
		if s.P99MS[i] < 170 {
			t.Errorf("bucket %d: p99 %v ms for 180 ms answers", i, s.P99MS[i])
		}
	}
	if empty == 0 || answered == 0 {
		t.Fatalf("%d empty and %d answered buckets: nothing to check", empty, answered)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"p99_ms":[null,`)) {
		t.Errorf("the first bucket's p99 is not null: %s", b)
	}
}
