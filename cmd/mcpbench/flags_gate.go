package main

import (
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// gateFlags define the SLO.
type gateFlags struct {
	p95SLO       float64
	p99SLO       float64
	maxErrorRate float64
	allowErrors  bool
	failOnSLO    bool
	countToolErr bool
}

// flags declares the SLO; failOnSLO is --fail-on-slo's help, which says
// what fails the command.
func (g *gateFlags) flags(failOnSLO string) []flagDecl {
	return []flagDecl{
		{name: "p95-slo-ms", to: &g.p95SLO, group: "SLO and gates", rng: zeroOrMore(maxSLOMillis), usage: "p95 latency target in ms (0 = none)"},
		{name: "p99-slo-ms", to: &g.p99SLO, group: "SLO and gates", rng: zeroOrMore(maxSLOMillis), usage: "p99 latency target in ms (0 = none)"},
		{name: "max-error-rate", to: &g.maxErrorRate, group: "SLO and gates", rng: fraction, usage: "highest acceptable error rate, 0..1"},
		{name: "allow-request-errors", to: &g.allowErrors, group: "SLO and gates", usage: "any error rate is acceptable"},
		{name: "fail-on-slo", to: &g.failOnSLO, group: "SLO and gates", usage: failOnSLO},
		{name: "count-tool-errors", to: &g.countToolErr, group: "SLO and gates", usage: "with --gen-args: count tool_error answers in the --max-error-rate gate (by default made-up arguments a tool turns down do not fail a run)"},
	}
}

// apply lets --allow-request-errors lift the error-rate limit.
func (g *gateFlags) apply() {
	if g.allowErrors {
		g.maxErrorRate = 1
	}
}

// gates are the pass/fail rules the flags set; results.Gates evaluates
// them for run and sweep alike.
func (g *gateFlags) gates() results.Gates {
	return results.Gates{
		SLO:             sweep.SLO{P95MS: g.p95SLO, P99MS: g.p99SLO, MaxErrorRate: g.maxErrorRate},
		FailOnSLO:       g.failOnSLO,
		CountToolErrors: g.countToolErr,
	}
}
