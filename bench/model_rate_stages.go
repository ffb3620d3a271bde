package bench

import (
	"cmp"
	"fmt"
)

// RateStages is an open loop whose rate follows Stages, MaxInFlight
// bounding its workers as in an OpenLoop. The stages give the level's
// length, and the point summarises each. MaxRate must be 0 (the stages
// fix the rate): it is here so that a cap asked for is refused, not
// dropped.
type RateStages struct {
	Stages      Stages
	MaxInFlight int
	MaxRate     float64
}

// Validate checks the bound and the cap, and the stages against the level.
func (m RateStages) Validate(c Config) error {
	if m.MaxRate != 0 {
		return fmt.Errorf("rate stages fix the rate already: no max rate beside them")
	}
	return cmp.Or(negative("max in flight", float64(m.MaxInFlight)), m.Stages.check(c))
}

func (m RateStages) pace() pace {
	return pace{rate: m.Stages.Peak(), maxInFlight: m.MaxInFlight, stages: m.Stages, duration: m.Stages.Total()}
}
