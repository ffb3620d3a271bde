package harness

import "github.com/mcpbench/mcpbench/bench"

// The generator's names a command needs to fill a level and watch it
// run, so that cmd stays off bench (internal/house): aliases, not copies,
// since harness hands them down unchanged. What a command fills of the
// client and the workload it takes from mcp and workload themselves, and
// the measurements from measure.
type (
	// Load is the generator's configuration of a level (bench.Config):
	// workers, rate, duration, warm-up, ramp, interval; its Observer is
	// harness's, which feeds the Outputs.
	Load = bench.Config
	// Progress is a snapshot of a level under way.
	Progress = bench.Progress
	// Interval is one settled bucket of the series (an Output gets it in
	// a PointInterval).
	Interval = bench.Interval
	// Stages are a staged level's shape (--stages, --rate-stages).
	Stages = bench.Stages
)

// ParseStages reads stages written D:N[,D:N…].
func ParseStages(s string) (Stages, error) { return bench.ParseStages(s) }
