package bench

import (
	"context"
	"testing"
)

// nopWorker answers at once: the benchmarks below measure the engine's own
// cost per request (timing, recording, histograms), not a server's.
type nopWorker struct{ ops, n int }

func (w *nopWorker) Do(context.Context) Sample {
	w.n++
	return Sample{Op: w.n % w.ops, Sent: 10, Received: 100}
}

func (w *nopWorker) Close(context.Context) error { return nil }

// benchmarkRun sends b.N requests through the engine; the set-up of a run
// (histograms, workers) is spread over them.
func benchmarkRun(b *testing.B, cfg Config) {
	cfg.Total = int64(b.N)
	ops := max(len(cfg.Operations), 1)
	b.ReportAllocs()
	b.ResetTimer()
	p, err := Run(context.Background(), cfg, func(context.Context, int) (Worker, error) {
		return &nopWorker{ops: ops}, nil
	})
	if err != nil || p.Requests != int64(b.N) {
		b.Fatalf("requests %d of %d: %v", p.Requests, b.N, err)
	}
}

// BenchmarkClosedLoop is one worker's cost per request in a closed loop.
func BenchmarkClosedLoop(b *testing.B) { benchmarkRun(b, Config{Concurrency: 1}) }

// BenchmarkClosedLoopMix adds per-operation figures (three operations).
func BenchmarkClosedLoopMix(b *testing.B) {
	benchmarkRun(b, Config{Concurrency: 1, Operations: []Operation{{Method: "a"}, {Method: "b"}, {Method: "c"}}})
}

// BenchmarkOpenLoop is the open loop at a rate no worker can keep up
// with, so it never sleeps: the schedule and the four histograms.
func BenchmarkOpenLoop(b *testing.B) { benchmarkRun(b, Config{Rate: 1e9, MaxInFlight: 1}) }

// BenchmarkOpenLoopPaced is the open loop at a rate the worker keeps up
// with, so it waits for every request's time: the cost of pacing.
func BenchmarkOpenLoopPaced(b *testing.B) { benchmarkRun(b, Config{Rate: 100_000, MaxInFlight: 1}) }
