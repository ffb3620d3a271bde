package bench

import "fmt"

// RateStages is an open loop whose rate follows Stages; MaxInFlight
// bounds the workers as in an OpenLoop. The stages give the level's
// length; the point summarises each stage.
type RateStages struct {
	Stages      Stages
	MaxInFlight int
	// MaxRate must be 0: the stages fix the rate. It is here so that a
	// cap asked for beside them is refused, not dropped.
	MaxRate float64
}

// Name is "rate-stages".
func (RateStages) Name() string { return "rate-stages" }

// Validate checks the stages against the level's buckets and length.
func (m RateStages) Validate(c Config) error {
	switch {
	case m.MaxInFlight < 0:
		return fmt.Errorf("max in flight must not be negative")
	case m.MaxRate != 0:
		return fmt.Errorf("rate stages fix the rate already: no max rate beside them")
	}
	return m.Stages.beside(c)
}

func (m RateStages) pace() pace {
	return pace{rate: m.Stages.Peak(), maxInFlight: m.MaxInFlight, stages: m.Stages, duration: m.Stages.Total()}
}
