package main

import (
	"github.com/spf13/pflag"

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

func (g *gateFlags) register(fs *pflag.FlagSet) {
	fs.Float64Var(&g.p95SLO, "p95-slo-ms", 0, "p95 latency target in ms (0 = none)")
	fs.Float64Var(&g.p99SLO, "p99-slo-ms", 0, "p99 latency target in ms (0 = none)")
	fs.Float64Var(&g.maxErrorRate, "max-error-rate", 0, "highest acceptable error rate, 0..1")
	fs.BoolVar(&g.allowErrors, "allow-request-errors", false, "any error rate is acceptable")
	fs.BoolVar(&g.failOnSLO, "fail-on-slo", false, "exit 1 when the p95/p99 targets are missed")
	fs.BoolVar(&g.countToolErr, "count-tool-errors", false, "with --gen-args: count tool_error answers in the --max-error-rate gate (by default made-up arguments a tool turns down do not fail a run)")
}

func (g *gateFlags) validate() error {
	if g.p95SLO < 0 || g.p99SLO < 0 {
		return usagef("SLO targets must not be negative")
	}
	if g.maxErrorRate < 0 || g.maxErrorRate > 1 {
		return usagef("--max-error-rate must be between 0 and 1")
	}
	if g.allowErrors {
		g.maxErrorRate = 1
	}
	return nil
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
