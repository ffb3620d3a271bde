package bench

import "fmt"

// RateStages is an open loop whose rate follows Stages; MaxInFlight
// bounds the workers as in an OpenLoop. The stages give the level's
// duration; the point summarises each stage.
type RateStages struct {
	Stages      Stages
	MaxInFlight int
}

// Name is "rate-stages".
func (RateStages) Name() string { return "rate-stages" }

// Validate checks the stages against the level's buckets and duration.
func (m RateStages) Validate(c Config) error {
	if m.MaxInFlight < 0 {
		return fmt.Errorf("max in flight must not be negative")
	}
	return m.Stages.beside(c)
}

func (m RateStages) pace() pace {
	return pace{rate: m.Stages.Peak(), maxInFlight: m.MaxInFlight, stages: m.Stages, duration: m.Stages.Total()}
}
