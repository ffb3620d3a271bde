package main

import (
	"context"
	"fmt"
)

// Commands not built yet answer with one line and the usage exit code.
func notYet(name string) func(context.Context, []string, env) int {
	return func(_ context.Context, _ []string, e env) int {
		fmt.Fprintf(e.stderr, "mcpbench %s: not available in this build\n", name)
		return exitUsage
	}
}
