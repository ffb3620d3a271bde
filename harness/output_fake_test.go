package harness

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

// fakeOutput records everything the output seam hands it.
type fakeOutput struct {
	mu        sync.Mutex
	meta      []Meta
	intervals []PointInterval
	late      []PointInterval
	events    []Event
	progress  int
	final     []Final
}

func (f *fakeOutput) Start(m Meta) error {
	f.mu.Lock()
	f.meta = append(f.meta, m)
	f.mu.Unlock()
	return nil
}
func (f *fakeOutput) Interval(iv PointInterval) {
	f.mu.Lock()
	f.intervals = append(f.intervals, iv)
	f.mu.Unlock()
}
func (f *fakeOutput) Late(iv PointInterval)  { f.mu.Lock(); f.late = append(f.late, iv); f.mu.Unlock() }
func (f *fakeOutput) Event(e Event)          { f.mu.Lock(); f.events = append(f.events, e); f.mu.Unlock() }
func (f *fakeOutput) Progress(PointProgress) { f.mu.Lock(); f.progress++; f.mu.Unlock() }
func (f *fakeOutput) Stop(fin Final)         { f.mu.Lock(); f.final = append(f.final, fin); f.mu.Unlock() }
func (f *fakeOutput) kinds() []EventKind {
	var ks []EventKind
	for _, e := range f.events {
		if e.Kind != EventPhase && e.Kind != EventWarning {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

// checkPoint holds a point's intervals to its report: one per series
// bucket, in order, which with the late answers filed after them add up
// to the point's answers, errors and latency histogram.
func checkPoint(t *testing.T, p *measure.Point, ivs, late []PointInterval) {
	t.Helper()
	if len(ivs) != p.Series.Len() || len(ivs) == 0 {
		t.Fatalf("%d intervals for %d series buckets", len(ivs), p.Series.Len())
	}
	var requests, ok, errs int64
	h := bench.NewHistogram()
	for i, iv := range ivs {
		text, answers := iv.Histogram(), iv.Requests
		if lates := lateOf(late, i); len(lates) > 0 {
			text, answers = withLate(t, iv, lates)
			t.Logf("interval %d: %d late answers", i, answers-iv.Requests)
		}
		// Sent may still grow once handed over: a request sent near the
		// bucket's end is filed with its answer.
		if iv.Index != i || answers != p.Series.Requests(i) || iv.Sent > p.Series.Sent[i] {
			t.Errorf("interval %d: index %d, %d answers, %d sent; series %d, %d", i, iv.Index, answers, iv.Sent, p.Series.Requests(i), p.Series.Sent[i])
		}
		requests, ok, errs = requests+answers, ok+iv.Counts[bench.OK], errs+iv.Errors
		for _, l := range lateOf(late, i) {
			ok, errs = ok+l.Counts[bench.OK], errs+l.Errors
		}
		if err := hist.MergeEncoded(h, text); text != "" && err != nil {
			t.Fatal(err)
		}
		if text != p.Series.Histograms[i] {
			t.Errorf("interval %d: its histogram is not the series'", i)
		}
	}
	if requests != p.Requests || ok != p.OK || errs != p.Errors || h.TotalCount() != p.Requests {
		t.Errorf("intervals add up to %d answers (%d ok, %d errors, %d in histograms); the point has %d (%d, %d)",
			requests, ok, errs, h.TotalCount(), p.Requests, p.OK, p.Errors)
	}
}

// lateOf are the late answers of bucket i.
func lateOf(late []PointInterval, i int) []PointInterval {
	var out []PointInterval
	for _, l := range late {
		if l.Index == i {
			out = append(out, l)
		}
	}
	return out
}

// withLate is a bucket's histogram text and answers with its late ones.
func withLate(t *testing.T, iv PointInterval, lates []PointInterval) (string, int64) {
	h, n := hist.New(), iv.Requests
	for _, x := range append([]PointInterval{iv}, lates...) {
		if err := x.MergeHistogram(h); err != nil {
			t.Fatal(err)
		}
		if x.Index != iv.Index {
			t.Fatalf("late answers of %d mixed with %d", x.Index, iv.Index)
		}
	}
	for _, l := range lates {
		n += l.Requests
	}
	text, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return text, n
}

func TestOutputSeesEveryIntervalOfARun(t *testing.T) {
	out := &fakeOutput{}
	cfg := RunConfig{Setup: startTarget(t)}
	cfg.Outputs = []Output{out}
	cfg.Level = bench.Config{Model: bench.ClosedLoop{Concurrency: 2}, Duration: time.Second, Interval: 250 * time.Millisecond, ProgressEvery: 100 * time.Millisecond}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.meta) != 1 || out.meta[0].Command != "run" || out.meta[0].Interval != 250*time.Millisecond {
		t.Errorf("started with %+v", out.meta)
	}
	checkPoint(t, &r.Point, out.intervals, out.late)
	want := []EventKind{EventWorkload, EventMeasureStart, EventLoadDone, EventMeasureEnd}
	if got := out.kinds(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if e := out.events[0]; e.Kind != EventPhase || e.Phase != PhaseConnecting {
		t.Errorf("first event %+v, want the connecting stage", e)
	}
	if out.progress == 0 {
		t.Error("a Progresser got no progress")
	}
	if len(out.final) != 1 || out.final[0].Run != r || out.final[0].Err != nil {
		t.Errorf("stopped with %+v", out.final)
	}
}

func TestOutputSeesEveryIntervalOfASweep(t *testing.T) {
	out := &fakeOutput{}
	cfg := SweepConfig{Setup: startTarget(t), Plan: sweep.Plan{Concurrency: []int{1, 2}}}
	cfg.Outputs = []Output{out}
	cfg.Point = bench.Config{Duration: 600 * time.Millisecond, Interval: 200 * time.Millisecond}
	r, err := Sweep(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.meta) != 1 || out.meta[0].Command != "sweep" || len(out.meta[0].Levels) != 2 {
		t.Errorf("started with %+v", out.meta)
	}
	if len(r.Points) != 2 {
		t.Fatalf("%d points", len(r.Points))
	}
	for i := range r.Points {
		p := &r.Points[i]
		var ivs, late []PointInterval
		for _, iv := range out.intervals {
			if iv.Step.Level.Concurrency == p.Concurrency {
				ivs = append(ivs, iv)
			}
		}
		for _, iv := range out.late {
			if iv.Step.Level.Concurrency == p.Concurrency {
				late = append(late, iv)
			}
		}
		checkPoint(t, p, ivs, late)
	}
	level := []EventKind{EventLevelStart, EventMeasureStart, EventLoadDone, EventMeasureEnd, EventLevelEnd}
	want := append(append([]EventKind{EventWorkload}, level...), level...)
	if got := out.kinds(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	for _, e := range out.events {
		if e.Kind == EventLevelEnd && (e.Point == nil || e.Point.Concurrency != e.Step.Level.Concurrency) {
			t.Errorf("level %d ended without its point", e.Step.N)
		}
	}
	if len(out.final) != 1 || out.final[0].Sweep != r || out.final[0].Err != nil {
		t.Errorf("stopped with %+v", out.final)
	}
}
