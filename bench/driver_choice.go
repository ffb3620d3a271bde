package bench

import "github.com/mcpbench/mcpbench/internal/evloop"

// loopsFit says whether a level's workers run as tasks of event loops:
// asked for (loops > 0), on a system that has them (Linux), without a rate
// cap (the token bucket waits on a timer of its own) and with a workload
// whose waiting all goes through evloop. Anywhere else the goroutine
// driver runs them; on darwin and windows always, and the report's
// client.driver says goroutines. A pure function of its inputs, so the
// choice for another system can be tested on this one.
func loopsFit(goos string, loops int, maxRate float64, onLoops bool) bool {
	return loops > 0 && evloop.SupportedOn(goos) && maxRate <= 0 && onLoops
}
