package ab

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/abstat"
)

// TestDuet: with Duet, each round measures A and B at the same time (the
// measurements overlap), both sides' figures land in their places, and
// the settings say it was a duet.
func TestDuet(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := 0, 0
	measure := func(_ context.Context, side Side, _ Target, _ bool, _ *Slices) (Figures, error) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inflight--
		mu.Unlock()
		p50 := 1.0
		if side == B {
			p50 = 2
		}
		return Figures{Requests: 100, Throughput: 100 / p50, P50MS: p50, P95MS: 2 * p50, P99MS: 3 * p50}, nil
	}
	res, err := Experiment{A: Target{URL: "a"}, B: Target{URL: "b"}, Measure: measure, Duet: true, NoWarmup: true,
		// Every round's ratio is the same, so every rank ties: the exact
		// p-value of n such rounds is 2/2^n, and 8 rounds get under the level.
		Seed: 5, Plan: abstat.Plan{MaxRounds: 8}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if peak != 2 || len(res.Rounds) != 8 || !res.Settings.Duet {
		t.Fatalf("peak in flight %d, rounds %d, duet %v", peak, len(res.Rounds), res.Settings.Duet)
	}
	for _, r := range res.Rounds {
		if r.A.P50MS != 1 || r.B.P50MS != 2 {
			t.Errorf("round %d: A %+v, B %+v", r.Index, r.A, r.B)
		}
	}
	if !res.GateFailed(false) {
		t.Errorf("B twice as slow in every round: %+v", res.Verdicts)
	}
}

// TestSlicedRounds: with Pairs, A and B are measured at once, each in
// the slices the other leaves, each pair of turns in either order and
// the first in the round's; both measured windows open together; a side
// is measured for its slices' time; the settings give the slice.
func TestSlicedRounds(t *testing.T) {
	var mu sync.Mutex
	got := map[Side][]*Slices{}
	measure := func(_ context.Context, side Side, _ Target, warmup bool, s *Slices) (Figures, error) {
		if warmup {
			return Figures{}, nil
		}
		if s == nil {
			t.Errorf("%s measured without slices", side)
			return Figures{}, nil
		}
		s.Start() // would block for ever if the other side never came
		mu.Lock()
		got[side] = append(got[side], s)
		mu.Unlock()
		return Figures{Requests: 100, Throughput: 100, P50MS: 1, P95MS: 2, P99MS: 3}, nil
	}
	res, err := Experiment{A: Target{URL: "a"}, B: Target{URL: "b"}, Measure: measure, Seed: 9,
		Slice: 50 * time.Millisecond, Pairs: 8, Plan: abstat.Plan{MaxRounds: 6}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 6 || len(got[A]) != 6 || len(got[B]) != 6 || res.Settings.SliceSeconds != 0.05 {
		t.Fatalf("%d rounds, %d and %d measurements, slice %v s", len(res.Rounds), len(got[A]), len(got[B]), res.Settings.SliceSeconds)
	}
	aFirst := 0
	for i, r := range res.Rounds {
		a, b := got[A][i], got[B][i]
		if len(a.On) != 16 || len(b.On) != 16 || a.Active() != 400*time.Millisecond || r.A.Seconds != 0.4 {
			t.Fatalf("round %d: %d and %d slices, A active %v, A's seconds %v", r.Index, len(a.On), len(b.On), a.Active(), r.A.Seconds)
		}
		if a.On[0] != (r.Order[0] == A) {
			t.Errorf("round %d: order %v, but A's first slice is %v", r.Index, r.Order, a.On[0])
		}
		for k := 0; k < 16; k += 2 {
			if a.On[k] == a.On[k+1] || a.On[k] == b.On[k] || a.On[k+1] == b.On[k+1] {
				t.Fatalf("round %d, pair %d: A %v, B %v: want one turn each", r.Index, k/2, a.On[k:k+2], b.On[k:k+2])
			}
			if a.On[k] {
				aFirst++
			}
		}
	}
	if aFirst == 0 || aFirst == 48 {
		t.Errorf("A went first in %d of 48 pairs: the orders are not drawn", aFirst)
	}
}

// TestSliceFailureStopsTheOther: a side that fails before its window
// opens releases the other from the start line, and the report names the
// failure, not the other side's stop.
func TestSliceFailureStopsTheOther(t *testing.T) {
	broken := errors.New("connection refused")
	measure := func(ctx context.Context, side Side, _ Target, warmup bool, s *Slices) (Figures, error) {
		if warmup {
			return Figures{}, nil
		}
		if side == B {
			return Figures{}, broken
		}
		s.Start()
		<-ctx.Done()
		return Figures{}, ctx.Err()
	}
	done := make(chan error, 1)
	go func() {
		_, err := Experiment{A: Target{URL: "a"}, B: Target{URL: "b"}, Measure: measure, Seed: 3,
			Slice: time.Millisecond, Pairs: 2, Plan: abstat.Plan{MaxRounds: 4}}.Run(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, broken) || !strings.Contains(err.Error(), "B: ") {
			t.Errorf("got %v: want B's failure", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("A still waits for B at the start line")
	}
}
