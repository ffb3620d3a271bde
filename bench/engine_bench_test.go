package bench

import (
	"context"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

// nopWorker answers at once: the benchmarks below measure the engine's own
// cost per request (timing, recording, histograms), not a server's.
type nopWorker struct{ ops, n int }

func (w *nopWorker) Do(context.Context) Sample {
	w.n++
	return Sample{Op: w.n % w.ops, Sent: 10, Received: 100}
}

func (w *nopWorker) Close(context.Context) error { return nil }

// nopWorkload starts nopWorkers over its operations.
type nopWorkload struct{ ops []measure.Operation }

func (wl nopWorkload) Operations() []measure.Operation { return wl.ops }
func (nopWorkload) Kinds() []string                    { return []string{"ok"} }
func (wl nopWorkload) NewWorker(context.Context, int) (Worker, error) {
	return &nopWorker{ops: max(len(wl.ops), 1)}, nil
}

// benchmarkRun sends b.N requests of wl through the engine; the set-up of
// a run (histograms, workers) is spread over them.
func benchmarkRun(b *testing.B, cfg Config, wl nopWorkload) {
	cfg.Total = int64(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	p, err := Run(context.Background(), cfg, wl)
	if err != nil || p.Requests != int64(b.N) {
		b.Fatalf("requests %d of %d: %v", p.Requests, b.N, err)
	}
}

// BenchmarkClosedLoop is one worker's cost per request in a closed loop.
func BenchmarkClosedLoop(b *testing.B) {
	benchmarkRun(b, Config{Model: ClosedLoop{Concurrency: 1}}, nopWorkload{})
}

// BenchmarkClosedLoopMix adds per-operation figures (three operations).
func BenchmarkClosedLoopMix(b *testing.B) {
	benchmarkRun(b, Config{Model: ClosedLoop{Concurrency: 1}}, nopWorkload{ops: []measure.Operation{{Method: "a"}, {Method: "b"}, {Method: "c"}}})
}

// BenchmarkOpenLoop is the open loop at a rate no worker can keep up
// with, so it never sleeps: the schedule and the four histograms.
func BenchmarkOpenLoop(b *testing.B) {
	benchmarkRun(b, Config{Model: OpenLoop{Rate: 1e9, MaxInFlight: 1}}, nopWorkload{})
}

// BenchmarkOpenLoopPaced is the open loop at a rate the worker keeps up
// with, so it waits for every request's time: the cost of pacing.
func BenchmarkOpenLoopPaced(b *testing.B) {
	benchmarkRun(b, Config{Model: OpenLoop{Rate: 100_000, MaxInFlight: 1}}, nopWorkload{})
}

// BenchmarkClosedLoopMixObserved is the mix with an Observer, as harness
// always sets one: each bucket then counts answers per operation too.
func BenchmarkClosedLoopMixObserved(b *testing.B) {
	benchmarkRun(b, Config{Model: ClosedLoop{Concurrency: 1}, Observer: NopObserver{}}, nopWorkload{ops: []measure.Operation{{Method: "a"}, {Method: "b"}, {Method: "c"}}})
}

// BenchmarkClosedLoopMixByOperation is the mix with an observer that
// wants each bucket's latencies by operation (an --out exporter): a
// histogram per operation per bucket besides the bucket's.
func BenchmarkClosedLoopMixByOperation(b *testing.B) {
	benchmarkRun(b, Config{Model: ClosedLoop{Concurrency: 1}, Observer: opsObserver{}}, nopWorkload{ops: []measure.Operation{{Method: "a"}, {Method: "b"}, {Method: "c"}}})
}

type opsObserver struct{ NopObserver }

func (opsObserver) WantsOperationHistograms() bool { return true }
