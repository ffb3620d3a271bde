package harness

import "github.com/mcpbench/mcpbench/bench"

// The generator's names a command needs to fill a level and watch it
// run, so that cmd stays off bench (internal/house): aliases, not copies,
// since harness hands them down unchanged. What a command fills of the
// client and the workload it takes from mcp and workload themselves, and
// the measurements from measure.
type (
	// Progress is a snapshot of a level under way.
	Progress = bench.Progress
	// Interval is one settled bucket of the series (an Output gets it in
	// a PointInterval).
	Interval = bench.Interval
	// Stages are a staged level's shape (--stages, --rate-stages).
	Stages    = bench.Stages
	LoadStage = bench.LoadStage
	// LevelConfig is the generator's configuration of a level
	// (bench.Config): its load model, length, warm-up and interval; its
	// Observer is harness's, which feeds the Outputs. Model is one of
	// the load models after it (bench/model*.go).
	LevelConfig   = bench.Config
	Model         = bench.Model
	ClosedLoop    = bench.ClosedLoop
	OpenLoop      = bench.OpenLoop
	ClosedStages  = bench.ClosedStages
	RateStages    = bench.RateStages
	ScenarioUsers = bench.ScenarioUsers
)

// ParseStages reads stages written D:N[,D:N…].
func ParseStages(s string) (Stages, error) { return bench.ParseStages(s) }
