package bench

import (
	"cmp"
	"math"
)

// ClosedStages is a closed loop whose workers (or users) follow Stages,
// worker i working while the target is above i; MaxRate caps it as it
// does a ClosedLoop. The stages give the level's length, and the point
// summarises each.
type ClosedStages struct {
	Stages  Stages
	MaxRate float64
}

// Validate checks the cap, and the stages against the level.
func (m ClosedStages) Validate(c Config) error {
	return cmp.Or(negative("max rate", m.MaxRate), m.Stages.check(c))
}

func (m ClosedStages) pace() pace {
	return pace{concurrency: int(math.Ceil(m.Stages.Peak())), maxRate: m.MaxRate, stages: m.Stages, duration: m.Stages.Total()}
}
