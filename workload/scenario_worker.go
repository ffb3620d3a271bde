package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
)

// ScenarioSpec says what a session run sends, as plain values.
type ScenarioSpec struct {
	File *ScenarioFile
	// Seed makes scenario choices, pauses, random rows and generated
	// arguments repeatable.
	Seed uint64
	// Cardinality is the number of argument sets generated per tool for
	// a gen_args call that gives none; 1 when 0.
	Cardinality int
	// NewConnectionPerSession opens each session on connections of its
	// own, closed when it ends (connection churn).
	NewConnectionPerSession bool
	// ThinkScale multiplies every think time (0.5 halves them); 0 means 1.
	ThinkScale float64
	// Select is which tools a call that names none may pick, as for
	// generated arguments on the command line.
	Select Selection
}

// KindExpectFailed is the outcome of a step whose answer did not meet its
// expect, or whose arguments could not take a value from an earlier
// result: the session did not go as the scenario says it should.
const KindExpectFailed = bench.Kind(mcp.NumKinds)

// The engine counts every outcome of a scenario too.
var _ [bench.MaxKinds - int(KindExpectFailed) - 1]struct{}

var scenarioKinds = append(slices.Clip(kindNames), "expect_failed")

// ErrSessionMode: scenarios run a session of their own each, which the
// shared and per-request session modes would undo.
var ErrSessionMode = errors.New("scenarios open a session each: use the per-worker session mode")

// ScenarioWorkload runs the sessions of a scenario file; it is the
// generator's bench.SessionLoad.
type ScenarioWorkload struct {
	Client    *mcp.Client
	ops       []measure.Operation
	scenarios []scenarioPlan
	cum       []float64 // cumulative scenario weights
	seed      uint64
	fresh     bool
	think     float64    // ScenarioSpec.ThinkScale
	tools     []ToolInfo // what the scenarios call, for the report
}

var _ bench.SessionLoad = (*ScenarioWorkload)(nil)

// BuildScenarios makes the session workload spec describes on client. It
// lists the server's tools (on a session of its own) when a step calls
// one, and calls none.
func BuildScenarios(ctx context.Context, client *mcp.Client, mode mcp.SessionMode, spec ScenarioSpec) (*ScenarioWorkload, error) {
	if mode != "" && mode != mcp.SessionPerWorker {
		return nil, ErrSessionMode
	}
	if spec.File == nil || len(spec.File.Scenarios) == 0 {
		return nil, errors.New("no scenarios")
	}
	if err := spec.Select.check(); err != nil {
		return nil, err
	}
	wl := &ScenarioWorkload{Client: client, seed: spec.Seed, fresh: spec.NewConnectionPerSession, think: spec.ThinkScale}
	if wl.think <= 0 {
		wl.think = 1
	}
	p := &planner{wl: wl, spec: spec, opIndex: map[[2]string]int{}}
	info := client.Info()
	stdio := info.Transport == string(mcp.TransportStdio)
	switch {
	case mcp.IsModern(client.ProtocolVersion()):
		p.opens = "server/discover"
	case !stdio:
		p.opens, p.closes = "initialize", true
	}
	if spec.NewConnectionPerSession && stdio {
		return nil, errors.New("the stdio transport has no connections to open anew for each session")
	}
	if callsTools(spec.File) {
		var err error
		if p.cat, err = listTools(ctx, client); err != nil {
			return nil, err
		}
	}
	total := 0.0
	for i := range spec.File.Scenarios {
		plan, err := p.scenario(&spec.File.Scenarios[i])
		if err != nil {
			return nil, err
		}
		if plan.width > 1 && info.Transport == string(mcp.TransportSSE) {
			return nil, fmt.Errorf("scenario %q: %w", plan.name, mcp.ErrNoBranch)
		}
		wl.scenarios = append(wl.scenarios, plan)
		total += plan.weight
		wl.cum = append(wl.cum, total)
	}
	if total == 0 { // no weights given: all alike
		for i := range wl.cum {
			wl.cum[i] = float64(i + 1)
		}
	}
	return wl, nil
}

// callsTools tells whether any step calls a tool.
func callsTools(f *ScenarioFile) bool {
	var walk func([]Step) bool
	walk = func(steps []Step) bool {
		for _, s := range steps {
			switch {
			case s.Call != nil,
				walk(s.Parallel),
				s.Repeat != nil && walk(s.Repeat.Steps):
				return true
			}
		}
		return false
	}
	for _, sc := range f.Scenarios {
		if walk(sc.Steps) {
			return true
		}
	}
	return false
}

// Operations are the steps, each scenario's in order: the opening step,
// each named request step, the closing DELETE.
func (wl *ScenarioWorkload) Operations() []measure.Operation { return slices.Clone(wl.ops) }

// Kinds are mcp's error kinds and expect_failed.
func (wl *ScenarioWorkload) Kinds() []string { return scenarioKinds }

// Counters are the client's counts beside the steps (mcp.Client.Counters),
// abandoned sessions among them.
func (wl *ScenarioWorkload) Counters() map[string]int64 { return wl.Client.Counters() }

// Scenarios names the scenarios in the file's order.
func (wl *ScenarioWorkload) Scenarios() []string {
	names := make([]string, len(wl.scenarios))
	for i, sc := range wl.scenarios {
		names[i] = sc.name
	}
	return names
}

// Tools is each tool the scenarios call, once, in the order first met.
func (wl *ScenarioWorkload) Tools() []ToolInfo { return slices.Clone(wl.tools) }

// Warnings are the lines to print before the load, as for Workload: one
// for each named tool that may destroy data.
func (wl *ScenarioWorkload) Warnings() []string { return warnings(wl.tools) }

// noteTool adds t to the tools called, once; a tool met again with
// generated arguments keeps the larger set.
func (wl *ScenarioWorkload) noteTool(t ToolInfo) {
	for i := range wl.tools {
		if wl.tools[i].Name == t.Name {
			wl.tools[i].Named = wl.tools[i].Named || t.Named
			if t.ArgSets > wl.tools[i].ArgSets {
				wl.tools[i].ArgSets, wl.tools[i].CardinalityNote = t.ArgSets, t.CardinalityNote
			}
			return
		}
	}
	wl.tools = append(wl.tools, t)
}

// Width is the most requests a session has in flight at once: the
// connections each session needs.
func (wl *ScenarioWorkload) Width() int {
	w := 1
	for _, sc := range wl.scenarios {
		w = max(w, sc.width)
	}
	return w
}

// NewUser makes a virtual user; it opens nothing until its first session.
func (wl *ScenarioWorkload) NewUser(_ context.Context, id int) (bench.User, error) {
	u := &scenarioUser{wl: wl, rng: rand.New(rand.NewPCG(wl.seed, uint64(id)))}
	for _, sc := range wl.scenarios {
		u.prepared = append(u.prepared, make([][]*mcp.Prepared, sc.requests))
		// Users start at different argument sets, as workers do.
		next := make([]int, sc.requests)
		for i := range next {
			next[i] = id
		}
		u.next = append(u.next, next)
		u.width = max(u.width, sc.width)
	}
	for i := range u.width {
		u.branchRng = append(u.branchRng, rand.New(rand.NewPCG(wl.seed, uint64(id)<<16|uint64(i))))
	}
	return u, nil
}
