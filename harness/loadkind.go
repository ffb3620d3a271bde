package harness

import (
	"context"
	"fmt"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// The load-kind seam. What is sent is a LoadKind: plain requests
// (Requests), sessions of a scenario file (Scenarios), or a kind harness
// does not know (Setup.Load). prepare, Run, Sweep and the dry run ask
// the kind, never which kind it is.

// LoadKind is one kind of load, before the target is connected.
type LoadKind interface {
	// Build makes the load on the connected client (listing its tools
	// where needed). Its error is the workload's own; harness wraps it
	// in a *WorkloadError.
	Build(ctx context.Context, c *mcp.Client) (BuiltLoad, error)
}

// BuiltLoad is a kind of load built on the target.
type BuiltLoad interface {
	// Operations, Plan and Warnings say what it sends, for the dry run;
	// the warnings are printed before the load too.
	results.Plannable
	// Tools are the tools it calls, with their annotations.
	Tools() []workload.ToolInfo
	// Generator is what bench.Run drives: a bench.RequestLoad or a
	// bench.SessionLoad.
	Generator() bench.Work
	// Describe fills what the report says of it beyond its operations
	// and tools, and what the plan says of a level (its unit, the seed).
	Describe(w *results.Workload, l *results.PlannedLoad)
}

// Requests is plain requests, as spec describes them.
func Requests(spec workload.Spec) LoadKind { return requests{spec} }

// Scenarios is sessions of a scenario file, opened in mode.
func Scenarios(spec workload.ScenarioSpec, mode mcp.SessionMode) LoadKind {
	return scenarios{spec, mode}
}

type requests struct{ spec workload.Spec }

func (k requests) Build(ctx context.Context, c *mcp.Client) (BuiltLoad, error) {
	wl, err := workload.Build(ctx, c, k.spec)
	if err != nil {
		return nil, err
	}
	return requestLoad{wl, k.spec.Seed}, nil
}

type requestLoad struct {
	*workload.Workload
	seed uint64
}

func (l requestLoad) Generator() bench.Work { return l.Workload }

func (l requestLoad) Describe(_ *results.Workload, pl *results.PlannedLoad) { pl.Seed = l.seed }

type scenarios struct {
	spec workload.ScenarioSpec
	mode mcp.SessionMode
}

func (k scenarios) Build(ctx context.Context, c *mcp.Client) (BuiltLoad, error) {
	wl, err := workload.BuildScenarios(ctx, c, k.mode, k.spec)
	if err != nil {
		return nil, err
	}
	return scenarioLoad{wl, &k.spec}, nil
}

type scenarioLoad struct {
	*workload.ScenarioWorkload
	spec *workload.ScenarioSpec
}

func (l scenarioLoad) Generator() bench.Work { return l.ScenarioWorkload }

func (l scenarioLoad) Describe(w *results.Workload, pl *results.PlannedLoad) {
	w.Scenario = l.spec.File.Name
	w.NewConnectionPerSession = l.spec.NewConnectionPerSession
	pl.Unit = "sessions"
}

// kind is the load kind the setup names.
func (s *Setup) kind() LoadKind {
	if s.Load == nil {
		return Requests(workload.Spec{})
	}
	return s.Load
}

// Sent says in words what a kind sends, for a one-line summary.
func Sent(k LoadKind) string {
	switch k := k.(type) {
	case requests:
		switch {
		case len(k.spec.Mix) > 0:
			return "a mix"
		case k.spec.Tool != "":
			return k.spec.Method + " " + k.spec.Tool
		}
		return k.spec.Method
	case scenarios:
		return "sessions of a scenario file"
	}
	return fmt.Sprintf("%T", k)
}
