package results

import (
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/workload"
)

// SchemaPlan names the report of a dry run: what run or sweep would send,
// and nothing measured, so that compare and merge refuse it.
const SchemaPlan = "mcpbench.plan/v1"

// PlanReport is the mcpbench.plan/v1 report of `run --dry-run` and
// `sweep --dry-run`.
type PlanReport struct {
	Header
	// Command is run or sweep.
	Command string `json:"command"`
	Plan    Plan   `json:"plan"`
}

// Plan is what a load test would do: its operations, each tool it would
// call with what the tool's annotations say and sample arguments, and the
// load it would put on the server.
type Plan struct {
	Operations []measure.Operation    `json:"operations"`
	Calls      []workload.PlannedCall `json:"calls"`
	Load       PlannedLoad            `json:"load"`
	Warnings   []string               `json:"warnings,omitempty"`
}

// PlannedLoad is the load a plan would put on the server: closed loop at
// each concurrency, or open loop at each rate (one value for a run, the
// levels of a sweep), for a number of requests or a duration per level.
type PlannedLoad struct {
	Mode string `json:"mode"` // closed or open
	// Unit is "sessions" for a scenario file: concurrency counts users
	// and rates are sessions per second.
	Unit        string    `json:"unit,omitempty"`
	Concurrency []int     `json:"concurrency,omitempty"`
	Rates       []float64 `json:"rates,omitempty"`
	Total       int64     `json:"total,omitempty"`
	DurationS   float64   `json:"duration_s,omitempty"`
	Warmup      int64     `json:"warmup,omitempty"`
	RampUpS     float64   `json:"ramp_up_s,omitempty"`
	Seed        uint64    `json:"seed"`
}

// Plannable is a workload that can say what it would send: a plain one
// or a scenario file's.
type Plannable interface {
	Operations() []measure.Operation
	Plan(samples int) []workload.PlannedCall
	Warnings() []string
}

// NewPlanReport is the plan of wl under load, for command.
func NewPlanReport(h Header, command string, wl Plannable, load PlannedLoad) *PlanReport {
	h.Schema = SchemaPlan
	calls := wl.Plan(PlanSamples)
	if calls == nil {
		calls = []workload.PlannedCall{} // a plan with no tools says so
	}
	return &PlanReport{Header: h, Command: command, Plan: Plan{
		Operations: wl.Operations(), Calls: calls, Load: load, Warnings: wl.Warnings(),
	}}
}

// PlanSamples is how many argument sets a plan shows per tool.
const PlanSamples = 2
