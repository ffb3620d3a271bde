package workload

import (
	"encoding/json"

	"github.com/mcpbench/mcpbench/mcp"
)

// Plan lists every call step of every scenario with the tools it may call
// and up to samples argument sets for each, without sending anything: a
// scenario file's dry run. Steps whose arguments come partly from data
// rows or earlier results show their base arguments and say so.
func (wl *ScenarioWorkload) Plan(samples int) []PlannedCall {
	var out []PlannedCall
	for _, sc := range wl.scenarios {
		out = wl.planSteps(out, sc.name, sc.weight, sc.steps, samples)
	}
	return out
}

func (wl *ScenarioWorkload) planSteps(out []PlannedCall, scenario string, weight float64, steps []*stepPlan, samples int) []PlannedCall {
	for _, st := range steps {
		if len(st.body) > 0 { // parallel, repeat
			out = wl.planSteps(out, scenario, weight, st.body, samples)
		}
		if st.kind != "call" {
			continue
		}
		starts := st.toolStart
		if len(starts) == 0 {
			starts = []int{0}
		}
		for i, lo := range starts {
			hi := len(st.variants)
			if i+1 < len(starts) {
				hi = starts[i+1]
			}
			out = append(out, wl.plannedCall(scenario, st, weight, st.variants[lo:hi], samples))
		}
	}
	return out
}

func (wl *ScenarioWorkload) plannedCall(scenario string, st *stepPlan, weight float64, variants []mcp.Request, samples int) PlannedCall {
	pc := PlannedCall{Scenario: scenario, Step: st.name, Weight: weight, Dynamic: st.dynamic}
	pc.ToolInfo = ToolInfo{Name: variants[0].Tool}
	for _, t := range wl.tools {
		if t.Name == pc.Name {
			pc.ToolInfo = t
		}
	}
	for _, v := range variants[:min(samples, len(variants))] {
		args := v.Arguments
		if args == nil {
			args = json.RawMessage(`{}`)
		}
		pc.SampleArgs = append(pc.SampleArgs, args)
	}
	return pc
}
