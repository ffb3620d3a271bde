package bench

import (
	"fmt"
	"math"
	"time"
)

// A Model is how a level paces its work: ClosedLoop, OpenLoop,
// ClosedStages, RateStages or ScenarioUsers, each in a file of its own
// with its settings and checks. A Config holds one; the drivers read it
// once, as a pace, and nothing rewrites it.
type Model interface {
	// Validate says what cannot work in the model, or beside it in the
	// rest of the level.
	Validate(c Config) error
	pace() pace
}

// Models are the load models by name, unset (as k6 registers its
// executors). They are values, as Config holds them and as the drivers
// and harness tell them apart.
var Models = map[string]Model{
	"closed-loop":    ClosedLoop{},
	"open-loop":      OpenLoop{},
	"closed-stages":  ClosedStages{},
	"rate-stages":    RateStages{},
	"scenario-users": ScenarioUsers{},
}

// pace is what the drivers read of a model: a closed loop of concurrency
// workers (or stages of them), or an open loop at rate (or its stages).
type pace struct {
	concurrency int     // closed: the workers (users), or their peak
	rate        float64 // open: requests (sessions) per second, or the peak
	maxInFlight int     // open: the workers' bound; 0 for the default
	rampUp      time.Duration
	maxRate     float64       // closed: a cap on requests per second
	stages      Stages        // the workers' stages (closed) or the rate's
	duration    time.Duration // how long: the stages', else Config.Duration
}

// open says whether the level runs on a schedule.
func (p pace) open() bool { return p.rate > 0 }

// workers is how many workers the pace runs: see Config.Workers.
func (p pace) workers() int {
	switch {
	case !p.open():
		return p.concurrency
	case p.maxInFlight > 0:
		return p.maxInFlight
	}
	return int(min(1000, max(16, math.Ceil(p.rate))))
}

// Shape is the level's stages, workers' or rate's; nil without.
func (c Config) Shape() Stages { return c.pace().stages }

// RampUp is the model's ramp; 0 for stages.
func (c Config) RampUp() time.Duration { return c.pace().rampUp }

// finite says whether v is a number of 0 or more.
func finite(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// negative refuses a setting below 0 (or not a number) by its name.
func negative(name string, v float64) error {
	if !finite(v) {
		return fmt.Errorf("%s must not be negative", name)
	}
	return nil
}
