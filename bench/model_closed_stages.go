package bench

import "math"

// ClosedStages is a closed loop whose workers (or users) follow Stages:
// worker i works while the target is above i. The stages give the
// level's length; the point summarises each stage.
type ClosedStages struct {
	Stages Stages
	// MaxRate caps the request rate as in a ClosedLoop.
	MaxRate float64
}

// Name is "closed-stages".
func (ClosedStages) Name() string { return "closed-stages" }

// Validate checks the stages against the level's buckets and length.
func (m ClosedStages) Validate(c Config) error {
	if err := checkMaxRate(m.MaxRate); err != nil {
		return err
	}
	return m.Stages.beside(c)
}

func (m ClosedStages) pace() pace {
	return pace{concurrency: int(math.Ceil(m.Stages.Peak())), maxRate: m.MaxRate, stages: m.Stages, duration: m.Stages.Total()}
}
