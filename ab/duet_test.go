package ab

import (
	"context"
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
	measure := func(_ context.Context, side Side, _ Target, _ bool) (Figures, error) {
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
		Seed: 5, Plan: abstat.Plan{MaxRounds: 4}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if peak != 2 || len(res.Rounds) != 4 || !res.Settings.Duet {
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
