package workload

import (
	"encoding/json"
	"slices"
)

// What a workload will call, said before it calls anything: the report's
// list of tools, the warnings to print, and the plan of a dry run.

// Tools is each tool the workload calls, once, in the order of its
// operations.
func (wl *Workload) Tools() []ToolInfo {
	var out []ToolInfo
	for _, op := range wl.Ops {
		if op.Info == nil || slices.ContainsFunc(out, func(t ToolInfo) bool { return t.Name == op.Info.Name }) {
			continue
		}
		out = append(out, *op.Info)
	}
	return out
}

// Warnings are the lines to print before the load: one for each named
// tool whose annotations say, or leave the spec to presume, that it may
// destroy data.
func (wl *Workload) Warnings() []string { return warnings(wl.Tools()) }

// warnings are the warnings about tools, one for each that has one.
func warnings(tools []ToolInfo) []string {
	var out []string
	for _, t := range tools {
		if w := t.warning(); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// PlannedCall is one tools/call operation of a plan: the tool, what its
// annotations say, its weight in a mix, and the first argument sets it
// would send.
type PlannedCall struct {
	ToolInfo
	Weight     float64           `json:"weight,omitempty"`
	SampleArgs []json.RawMessage `json:"sample_args"`
}

// Plan lists the workload's tools/call operations with up to samples
// argument sets each, without sending anything.
func (wl *Workload) Plan(samples int) []PlannedCall {
	var out []PlannedCall
	for _, op := range wl.Ops {
		if op.Request.Method != "tools/call" {
			continue
		}
		pc := PlannedCall{Weight: op.Weight, SampleArgs: op.ArgSets[:min(samples, len(op.ArgSets))]}
		if op.Info != nil {
			pc.ToolInfo = *op.Info
		} else {
			pc.ToolInfo = ToolInfo{Name: op.Request.Tool}
		}
		if len(op.ArgSets) == 0 {
			args := op.Request.Arguments
			if args == nil {
				args = json.RawMessage(`{}`)
			}
			pc.SampleArgs = []json.RawMessage{args}
		}
		out = append(out, pc)
	}
	return out
}
