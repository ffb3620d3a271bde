package harness

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// fakeKind is a kind of load harness does not know: it sends nothing on
// the wire, and counts the requests its workers were asked for.
type fakeKind struct {
	built atomic.Int64
	sent  atomic.Int64
}

func (k *fakeKind) Build(context.Context, *mcp.Client) (BuiltLoad, error) {
	k.built.Add(1)
	return fakeLoad{k}, nil
}

type fakeLoad struct{ k *fakeKind }

var fakeOps = []measure.Operation{{Method: "fake/one"}, {Method: "fake/two"}}

func (fakeLoad) Operations() []measure.Operation { return fakeOps }
func (fakeLoad) Kinds() []string                 { return []string{"ok", "odd"} }
func (fakeLoad) Plan(int) []workload.PlannedCall { return nil }
func (fakeLoad) Warnings() []string              { return []string{"fake"} }
func (fakeLoad) Tools() []workload.ToolInfo      { return nil }
func (l fakeLoad) Generator() bench.Work         { return l }
func (fakeLoad) Describe(w *results.Workload, pl *results.PlannedLoad) {
	w.Scenario, pl.Unit = "fake", "fakes"
}

func (l fakeLoad) NewWorker(context.Context, int) (bench.Worker, error) { return fakeWorker{l.k}, nil }

// fakeWorker answers every third request with the "odd" outcome.
type fakeWorker struct{ k *fakeKind }

func (w fakeWorker) Do(context.Context) bench.Sample {
	n := w.k.sent.Add(1)
	s := bench.Sample{Op: int(n % 2)}
	if n%3 == 0 {
		s.Kind = 1
	}
	return s
}

func (fakeWorker) Close(context.Context) error { return nil }

func TestAFakeLoadKindRunsThroughHarness(t *testing.T) {
	k := &fakeKind{}
	cfg := RunConfig{Setup: startTarget(t), Level: bench.Config{Model: bench.ClosedLoop{Concurrency: 3}, Total: 300, Warmup: 30}}
	cfg.Load = k
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if k.built.Load() != 1 || k.sent.Load() != 330 {
		t.Errorf("built %d times, %d requests sent; want 1 and 330", k.built.Load(), k.sent.Load())
	}
	p := r.Point
	if p.Requests != 300 || p.ErrorsByKind["odd"] == 0 || p.OK+p.ErrorsByKind["odd"] != 300 {
		t.Errorf("point: %d requests, %d ok, errors %v", p.Requests, p.OK, p.ErrorsByKind)
	}
	if len(p.ByOperation) != 2 || !slices.Equal(r.Workload.Operations, fakeOps) || r.Workload.Scenario != "fake" {
		t.Errorf("report: %d operations' figures, workload %+v", len(p.ByOperation), r.Workload)
	}
	plan, err := PlanRun(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Plan.Load.Unit != "fakes" || !slices.Equal(plan.Plan.Operations, fakeOps) || !slices.Equal(plan.Plan.Warnings, []string{"fake"}) {
		t.Errorf("plan: %+v", plan.Plan)
	}
}
