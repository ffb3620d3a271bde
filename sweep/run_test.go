package sweep

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// fakeMeasure records the levels it is asked for and answers from curve.
type fakeMeasure struct {
	curve    func(Level) measure.Point
	measured []Level
	steps    []Step // what measure was told of each
	// fail, when set, is called before each measurement and may end it.
	fail func(n int, l Level) (measure.Point, error, bool)
}

func (f *fakeMeasure) measure(_ context.Context, st Step) (measure.Point, error) {
	l := st.Level
	f.measured = append(f.measured, l)
	f.steps = append(f.steps, st)
	if f.fail != nil {
		if p, err, stop := f.fail(len(f.measured), l); stop {
			return p, err
		}
	}
	return f.curve(l), nil
}

func capacityCurve(srv capacityServer) func(Level) measure.Point {
	return func(l Level) measure.Point { return srv.point(l.Concurrency) }
}

// openCurve is a server that serves up to limit requests/s; beyond it the
// achieved rate stays at limit and the queue pushes p95 over 100 ms.
func openCurve(limit float64) func(Level) measure.Point {
	return func(l Level) measure.Point {
		if l.Rate <= limit {
			return ratePoint(l.Rate, l.Rate, 20, 30, 0)
		}
		return ratePoint(l.Rate, limit, 400, 800, 0)
	}
}

func concurrencies(ls []Level) []int {
	out := make([]int, len(ls))
	for i, l := range ls {
		out[i] = l.Concurrency
	}
	return out
}

func TestRunMeasuresListedLevelsInOrderAndSorts(t *testing.T) {
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	points, err := Run(context.Background(), Plan{Concurrency: []int{8, 1, 4, 2}}, f.measure)
	if err != nil {
		t.Fatal(err)
	}
	if got := concurrencies(f.measured); !slices.Equal(got, []int{8, 1, 4, 2}) {
		t.Errorf("measured %v, want the listed order", got)
	}
	var got []int
	for _, p := range points {
		got = append(got, p.Concurrency)
	}
	if !slices.Equal(got, []int{1, 2, 4, 8}) {
		t.Errorf("returned %v, want sorted by concurrency", got)
	}
}

func TestRunRefinesConcurrency(t *testing.T) {
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	plan := Plan{
		Concurrency: []int{1, 2, 4, 8, 16, 32},
		SLO:         SLO{P95MS: 50}, // feasible up to 13 on this server
		Refine:      true,
	}
	points, err := Run(context.Background(), plan, f.measure)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 4, 8, 16, 32, 12, 14, 13}
	if got := concurrencies(f.measured); !slices.Equal(got, want) {
		t.Errorf("measured %v, want %v", got, want)
	}
	if len(points) != len(want) {
		t.Fatalf("%d points, want %d", len(points), len(want))
	}
	// The progress line counts the refine steps into the total as they come.
	wantTotals := []int{6, 6, 6, 6, 6, 6, 7, 8, 9}
	steps := f.steps
	for i, s := range steps {
		if s.N != i+1 || s.Total != wantTotals[i] || s.Level != f.measured[i] {
			t.Errorf("step %d = %+v, want N %d of %d at %+v", i, s, i+1, wantTotals[i], f.measured[i])
		}
	}
	if len(steps) != len(want) {
		t.Errorf("%d steps told, want %d", len(steps), len(want))
	}
}

func TestRunRefinesRate(t *testing.T) {
	f := &fakeMeasure{curve: openCurve(340)}
	plan := Plan{Rates: []float64{100, 200, 300, 400, 500}, SLO: SLO{P95MS: 100}, Refine: true}
	points, err := Run(context.Background(), plan, f.measure)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, l := range f.measured {
		got = append(got, l.Rate)
	}
	// Bisects 300..400 until the bracket is within 1% of the sustained rate.
	want := []float64{100, 200, 300, 400, 500, 350, 325, 338, 344, 341}
	if !slices.Equal(got, want) {
		t.Errorf("measured rates %v, want %v", got, want)
	}
	for i := 1; i < len(points); i++ {
		if *points[i-1].Rate > *points[i].Rate {
			t.Fatalf("points not sorted by rate at %d: %v then %v", i, *points[i-1].Rate, *points[i].Rate)
		}
	}
}

func TestRunWithoutRefineStopsAtTheList(t *testing.T) {
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	points, err := Run(context.Background(), Plan{Concurrency: []int{1, 8, 32}, SLO: SLO{P95MS: 50}}, f.measure)
	if err != nil || len(points) != 3 || len(f.measured) != 3 {
		t.Errorf("got %d points, %d measured, err %v; want 3, 3, nil", len(points), len(f.measured), err)
	}
}

func TestRunCancelledMidSeriesKeepsPoints(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	f.fail = func(n int, _ Level) (measure.Point, error, bool) {
		if n == 3 {
			cancel()
			return measure.Point{}, ctx.Err(), true
		}
		return measure.Point{}, nil, false
	}
	points, err := Run(ctx, Plan{Concurrency: []int{4, 2, 1, 8}}, f.measure)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(points) != 2 || points[0].Concurrency != 2 || points[1].Concurrency != 4 {
		t.Errorf("points %+v, want the two measured, sorted", points)
	}
}

func TestRunCancelledDuringCooldown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	f.fail = func(n int, _ Level) (measure.Point, error, bool) {
		cancel() // the cooldown after this first point is cut short
		return measure.Point{}, nil, false
	}
	done := make(chan struct{})
	var points []measure.Point
	var err error
	go func() {
		points, err = Run(ctx, Plan{Concurrency: []int{1, 2}, Cooldown: time.Hour}, f.measure)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run waited out the cooldown after cancellation")
	}
	if !errors.Is(err, context.Canceled) || len(points) != 1 || len(f.measured) != 1 {
		t.Errorf("got %d points, %d measured, err %v; want 1, 1, context.Canceled", len(points), len(f.measured), err)
	}
}

func TestRunInterruptedPointEndsSweep(t *testing.T) {
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	f.fail = func(n int, l Level) (measure.Point, error, bool) {
		if n == 2 {
			p := capacityServer{k: 8, svc: 0.020}.point(l.Concurrency)
			p.Interrupted = true
			return p, nil, true
		}
		return measure.Point{}, nil, false
	}
	points, err := Run(context.Background(), Plan{Concurrency: []int{1, 2, 4}, Refine: true}, f.measure)
	if err != nil || len(points) != 2 || !points[1].Interrupted {
		t.Errorf("got %+v, err %v; want two points, the last interrupted, no error", points, err)
	}
}

func TestRunErrorWhileRefiningKeepsSeries(t *testing.T) {
	f := &fakeMeasure{curve: capacityCurve(capacityServer{k: 8, svc: 0.020})}
	f.fail = func(n int, _ Level) (measure.Point, error, bool) {
		if n == 4 { // the first refine step
			return measure.Point{}, errors.New("connection reset"), true
		}
		return measure.Point{}, nil, false
	}
	plan := Plan{Concurrency: []int{1, 8, 32}, SLO: SLO{P95MS: 50}, Refine: true}
	points, err := Run(context.Background(), plan, f.measure)
	if err != nil || len(points) != 3 || len(f.measured) != 4 {
		t.Errorf("got %d points, %d measured, err %v; want 3, 4, nil", len(points), len(f.measured), err)
	}
}

func TestRunRejectsBothKinds(t *testing.T) {
	f := &fakeMeasure{curve: openCurve(100)}
	if _, err := Run(context.Background(), Plan{Concurrency: []int{1}, Rates: []float64{10}}, f.measure); err == nil {
		t.Error("Run accepted both concurrency levels and rates")
	}
	if len(f.measured) != 0 {
		t.Errorf("measured %v", f.measured)
	}
}
