package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestClosedLoopRampUp: workers join evenly over the ramp and nothing sent
// during it is measured, so the point covers the full load only.
func TestClosedLoopRampUp(t *testing.T) {
	var sent atomic.Int64
	start := time.Now()
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 4, RampUp: 400 * time.Millisecond}, Duration: 300 * time.Millisecond},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 5 * time.Millisecond, n: &sent}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < 700*time.Millisecond {
		t.Fatalf("run took %v: the ramp (400 ms) was not waited out before the 300 ms measured", took)
	}
	// During the ramp 0, 1, 2 then 3 workers ran beside the first: some
	// requests went out unmeasured.
	if p.Requests == 0 || p.Requests >= sent.Load() {
		t.Fatalf("measured %d of %d sent: the ramp's requests were measured", p.Requests, sent.Load())
	}
	// Four workers at 5 ms each over 300 ms: about 240 measured.
	if p.Requests < 100 || p.Requests > 260 {
		t.Fatalf("measured %d requests in the 300 ms after the ramp, want about 240", p.Requests)
	}
	if p.ElapsedS < 0.29 || p.ElapsedS > 0.4 {
		t.Fatalf("elapsed %.3f s, want the 300 ms after the ramp", p.ElapsedS)
	}
}
