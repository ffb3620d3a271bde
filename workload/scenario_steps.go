package workload

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/toolschema"
)

// A checked scenario becomes a plan: its steps with the operation each
// request reports under, the requests it can frame once, and what the
// others take per call. Plans are shared by every user and never change
// during a run.

// scenarioPlan is one scenario ready to run.
type scenarioPlan struct {
	name   string
	weight float64
	// open is the session's first step (discover on modern revisions,
	// the initialize handshake on stateful ones); nil where a session
	// opens with nothing sent (stdio of the initialize era).
	open *stepPlan
	// closeOp is the operation of the session's DELETE; -1 where none
	// is sent (modern revisions, stdio).
	closeOp int
	steps   []*stepPlan
	// requests counts the request steps (their ids), kept the results
	// later steps read (their slots).
	requests, kept int
	// width is the most requests in flight at once: one connection each
	// for a session on connections of its own.
	width int
}

// stepPlan is one step of a plan.
type stepPlan struct {
	kind string // list, call, ping, think, parallel, repeat; or open
	name string
	op   int // the operation it reports under (requests)
	id   int // its number among the scenario's request steps
	// variants are the requests it can send framed once: one, or one per
	// generated argument set (grouped by tool, tools[i] starting at
	// toolStart[i]).
	variants  []mcp.Request
	toolStart []int
	// dynamic calls build their arguments per call: variants are their
	// bases, data rows and values from earlier results go on top.
	dynamic bool
	data    *DataSource
	from    []fromSlot
	keep    int // the slot its result is kept in, or -1
	expect  *Expect
	think   *Think
	times   int
	body    []*stepPlan
}

// fromSlot is an argument taken from the result kept in slot.
type fromSlot struct {
	fromPath
	slot int
}

// planner compiles the scenarios of one workload, numbering operations.
type planner struct {
	wl      *ScenarioWorkload
	spec    ScenarioSpec
	cat     catalog
	opens   string // the method that opens a session, "" for none
	closes  bool   // sessions end with a DELETE
	opIndex map[[2]string]int
}

// operation returns the index of scenario's step name, adding it.
func (p *planner) operation(scenario, name string, op measure.Operation) int {
	key := [2]string{scenario, name}
	if i, ok := p.opIndex[key]; ok {
		return i
	}
	op.Scenario, op.Step = scenario, name
	p.wl.ops = append(p.wl.ops, op)
	p.opIndex[key] = len(p.wl.ops) - 1
	return len(p.wl.ops) - 1
}

func (p *planner) scenario(sc *Scenario) (scenarioPlan, error) {
	plan := scenarioPlan{name: sc.Name, weight: sc.Weight, closeOp: -1, width: 1}
	if p.opens != "" {
		name := StepInitialize
		if p.opens == "server/discover" {
			name = StepDiscover
		}
		plan.open = &stepPlan{kind: "open", name: name, keep: -1, variants: []mcp.Request{{Method: p.opens}},
			op: p.operation(sc.Name, name, measure.Operation{Method: p.opens})}
		plan.open.id = plan.requests
		plan.requests++
	}
	slots := map[string]int{}
	for name := range sc.kept {
		slots[name] = len(slots)
	}
	plan.kept = len(slots)
	var err error
	if plan.steps, err = p.steps(&plan, sc, sc.Steps, slots); err != nil {
		return plan, err
	}
	if p.closes {
		plan.closeOp = p.operation(sc.Name, StepClose, measure.Operation{Method: "DELETE"})
	}
	return plan, nil
}

func (p *planner) steps(plan *scenarioPlan, sc *Scenario, steps []Step, slots map[string]int) ([]*stepPlan, error) {
	out := make([]*stepPlan, 0, len(steps))
	for i := range steps {
		s := &steps[i]
		st := &stepPlan{kind: s.kind, name: s.Name, keep: -1, expect: s.Expect, think: s.Think}
		var err error
		switch s.kind {
		case "think":
		case "repeat":
			st.times = s.Repeat.Times
			st.body, err = p.steps(plan, sc, s.Repeat.Steps, slots)
		case "parallel":
			plan.width = max(plan.width, len(s.Parallel))
			st.body, err = p.steps(plan, sc, s.Parallel, slots)
		default:
			err = p.request(plan, sc, s, st, slots)
		}
		if err != nil {
			return nil, located(sc.Name, s, i, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// request plans a list, ping or call step.
func (p *planner) request(plan *scenarioPlan, sc *Scenario, s *Step, st *stepPlan, slots map[string]int) error {
	st.id = plan.requests
	plan.requests++
	if slot, ok := slots[s.Name]; ok {
		st.keep = slot
	}
	op := measure.Operation{Method: "tools/" + s.kind}
	switch s.kind {
	case "ping":
		op.Method = "ping"
	case "request":
		e := s.Request.entry()
		reqs, err := givenSurface(e)
		if err != nil {
			return err
		}
		op.Method, op.Tool, st.variants = e.Method, reqs[0].Tool, reqs
	case "call":
		op.Tool = s.Call.Tool
		if err := p.call(s.Call, st); err != nil {
			return err
		}
		for _, f := range s.from {
			st.from = append(st.from, fromSlot{fromPath: f, slot: slots[f.step]})
		}
		st.data = s.Call.Data
		st.dynamic = st.data != nil || len(st.from) > 0
	}
	if len(st.variants) == 0 {
		st.variants = []mcp.Request{{Method: op.Method}}
	}
	st.op = p.operation(sc.Name, s.Name, op)
	return nil
}

// call sets a call step's requests: its literal arguments, or the sets
// generated for each tool it may call, with the literal ones on top. The
// tools are found as for a mix entry: the one named (naming is consent),
// which the server must list, or those the selection allows.
func (p *planner) call(cs *CallStep, st *stepPlan) error {
	var args json.RawMessage
	if len(cs.Args) > 0 {
		var err error
		if args, err = json.Marshal(cs.Args); err != nil {
			return fmt.Errorf("args: %w", err)
		}
	}
	tools, err := p.cat.toolsFor(MixEntry{Method: "tools/call", Tool: cs.Tool}, p.spec.Select)
	if err != nil {
		return err
	}
	if !cs.GenArgs {
		p.wl.noteTool(p.cat.info(cs.Tool, true))
		st.variants = []mcp.Request{{Method: "tools/call", Tool: cs.Tool, Arguments: args}}
		return nil
	}
	n := cs.Cardinality
	if n == 0 {
		n = max(p.spec.Cardinality, 1)
	}
	for _, tool := range tools {
		sets, note, err := p.cat.generate(tool, p.spec.Seed, n)
		if err != nil {
			return err
		}
		info := p.cat.info(tool, cs.Tool != "")
		info.ArgSets, info.CardinalityNote = len(sets), note
		p.wl.noteTool(info)
		st.toolStart = append(st.toolStart, len(st.variants))
		for _, set := range sets {
			if args != nil {
				if set, err = toolschema.Merge(set, args); err != nil {
					return fmt.Errorf("args: %w", err)
				}
			}
			st.variants = append(st.variants, mcp.Request{Method: "tools/call", Tool: tool, Arguments: set})
		}
	}
	return nil
}

// variant picks the request a call sends this time: a random tool of
// those it may call, then that tool's argument sets in turn, starting
// from where the user is.
func (st *stepPlan) variant(rng *rand.Rand, next *int) int {
	if len(st.variants) == 1 {
		return 0
	}
	lo, hi := 0, len(st.variants)
	if n := len(st.toolStart); n > 1 {
		t := rng.IntN(n)
		lo = st.toolStart[t]
		if t+1 < n {
			hi = st.toolStart[t+1]
		}
	}
	*next++
	return lo + *next%(hi-lo)
}

// arguments builds a dynamic call's arguments over base: a data row's
// fields, then the values taken from earlier results (kept by slot). A
// value not found is an error: the session did not go as the scenario
// expects.
func (st *stepPlan) arguments(base json.RawMessage, rng *rand.Rand, kept [][]byte) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(base) > 0 {
		if err := json.Unmarshal(base, &fields); err != nil {
			return nil, err
		}
	}
	if st.data != nil {
		for k, v := range st.data.rows.take(st.data.Order == "random", rng) {
			fields[k] = v
		}
	}
	for _, f := range st.from {
		v, ok := pick(kept[f.slot], f.path)
		if !ok {
			return nil, fmt.Errorf("%w: from %s: step %s's result has no %s", errExpect, f.arg, f.step, f.path)
		}
		fields[f.arg] = v
	}
	return json.Marshal(fields)
}

// draw is the length of one pause.
func (t *Think) draw(rng *rand.Rand) time.Duration {
	switch {
	case t.set["uniform"]:
		lo, hi := int64(t.Uniform[0]), int64(t.Uniform[1])
		return time.Duration(lo + rng.Int64N(hi-lo+1))
	case t.set["exponential"]:
		return time.Duration(rng.ExpFloat64() * float64(t.Exponential))
	}
	return time.Duration(t.Fixed)
}
