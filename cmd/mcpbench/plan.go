package main

import (
	"fmt"

	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// dryRunExit ends a --dry-run: the plan goes to stdout and to --json-out
// and --md-out when given, and the exit is 0; or the reason there is no
// plan, exactly as a run would have failed.
func dryRunExit(e env, cmd string, r *results.PlanReport, err error, o *outputFlags) int {
	if err != nil {
		return harnessExit(e, cmd, "request", err)
	}
	if err := writeFormats(report.PlanFormats, r, o.outputs(e), e); err != nil {
		return exitFor(e, cmd, err)
	}
	return exitOK
}

// announce prints on stderr, before the load, the warnings about the
// tools about to be called and the one line that names them all.
func announce(e env, cmd string) func([]workload.ToolInfo, []string) {
	return func(tools []workload.ToolInfo, warnings []string) {
		for _, w := range warnings {
			fmt.Fprintf(e.stderr, "mcpbench %s: warning: %s\n", cmd, w)
		}
		if len(tools) > 0 {
			fmt.Fprintf(e.stderr, "mcpbench %s: %s\n", cmd, report.ToolsLine(tools))
		}
	}
}
