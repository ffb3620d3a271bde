package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// The outcome kinds the engine tests' workers report: the engine knows
// only their numbers and the names a Workload gives them.
const (
	kindTimeout Kind = iota + 1
	kindTransport
)

// funcWorkload is a Workload made of a function that starts workers, with
// the kinds above and no named operations.
type funcWorkload func(context.Context, int) (Worker, error)

func (funcWorkload) Operations() []measure.Operation { return nil }
func (funcWorkload) Kinds() []string                 { return []string{"ok", "timeout", "transport"} }
func (f funcWorkload) NewWorker(ctx context.Context, id int) (Worker, error) {
	return f(ctx, id)
}

// sleepWorker answers after a fixed delay; every failEvery-th request fails
// with a transport error.
type sleepWorker struct {
	delay     time.Duration
	failEvery int64
	n         *atomic.Int64
}

func (w *sleepWorker) Do(ctx context.Context) Sample {
	n := w.n.Add(1)
	select {
	case <-time.After(w.delay):
	case <-ctx.Done():
		return Sample{Kind: kindTimeout, Err: ctx.Err()}
	}
	if w.failEvery > 0 && n%w.failEvery == 0 {
		return Sample{Kind: kindTransport, Err: errors.New("planted"), Sent: 10, Received: 1}
	}
	return Sample{Kind: OK, Sent: 10, Received: 100}
}

func (w *sleepWorker) Close(context.Context) error { return nil }

func TestClosedLoopCountsExactly(t *testing.T) {
	var sent atomic.Int64
	p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: 4}, Total: 200, Warmup: 8},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: time.Millisecond, failEvery: 10, n: &sent}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Requests != 200 || p.OK+p.Errors != 200 {
		t.Fatalf("requests %d ok %d errors %d", p.Requests, p.OK, p.Errors)
	}
	if sent.Load() != 208 {
		t.Fatalf("sent %d, want 200 measured + 8 warm-up", sent.Load())
	}
	if p.ErrorsByKind["transport"] != p.Errors || p.Errors < 18 || p.Errors > 22 {
		t.Fatalf("errors by kind %v", p.ErrorsByKind)
	}
	if p.BytesSent != 2000 {
		t.Fatalf("bytes sent %d", p.BytesSent)
	}
	if p.P50MS < 1 || p.MaxMS < p.P99MS || p.P99MS < p.P50MS || p.MinMS > p.P50MS {
		t.Fatalf("percentiles out of order: %+v", p.Latency)
	}
	h, err := hist.Decode(p.Histogram)
	if err != nil || h.TotalCount() != 200 {
		t.Fatalf("histogram round trip: %v, count %d", err, h.TotalCount())
	}
	if p.ErrorExamples["transport"] == "" {
		t.Fatal("no error example kept")
	}
}

func TestInterruptKeepsWhatWasMeasured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var sent atomic.Int64
	time.AfterFunc(150*time.Millisecond, cancel)
	p, err := Run(ctx, Config{Model: ClosedLoop{Concurrency: 2}, Duration: time.Minute},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 5 * time.Millisecond, n: &sent}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Interrupted || p.Requests == 0 || p.Errors != 0 {
		t.Fatalf("interrupted %v requests %d errors %d", p.Interrupted, p.Requests, p.Errors)
	}
	// In-flight requests were allowed to finish: every sent one is counted.
	if p.Requests != sent.Load() {
		t.Fatalf("measured %d of %d sent", p.Requests, sent.Load())
	}
}

func TestOpenLoopKeepsSchedule(t *testing.T) {
	var sent atomic.Int64
	p, err := Run(context.Background(), Config{Model: OpenLoop{Rate: 500, MaxInFlight: 8}, Duration: time.Second},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 2 * time.Millisecond, n: &sent}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Requests != 500 {
		t.Fatalf("requests %d, want 500", p.Requests)
	}
	if p.Rate == nil || *p.Rate != 500 || p.Uncorrected == nil || p.ScheduleLagMS == nil {
		t.Fatalf("open-loop fields missing: %+v", p)
	}
}

func TestOpenLoopChargesWaitingToLatency(t *testing.T) {
	// One worker, 20 ms per request, 100/s offered: requests queue behind
	// each other, so corrected latency grows far above the 20 ms service.
	var sent atomic.Int64
	p, err := Run(context.Background(), Config{Model: OpenLoop{Rate: 100, MaxInFlight: 1}, Total: 50},
		funcWorkload(func(context.Context, int) (Worker, error) {
			return &sleepWorker{delay: 20 * time.Millisecond, n: &sent}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Uncorrected.P99MS > 40 {
		t.Fatalf("uncorrected p99 %.1f ms, want about 20", p.Uncorrected.P99MS)
	}
	if p.P99MS < 300 {
		t.Fatalf("corrected p99 %.1f ms: the queueing was not counted", p.P99MS)
	}
	if p.Client.Saturated {
		t.Fatalf("a slow server is not a saturated generator: %s", p.Client.SaturationReason)
	}
}
