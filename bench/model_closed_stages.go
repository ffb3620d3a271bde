package bench

import "math"

// ClosedStages is a closed loop whose workers (or users) follow Stages:
// worker i works while the target is above i. The stages give the
// level's duration; the point summarises each stage.
type ClosedStages struct {
	Stages Stages
}

// Name is "closed-stages".
func (ClosedStages) Name() string { return "closed-stages" }

// Validate checks the stages against the level's buckets and duration.
func (m ClosedStages) Validate(c Config) error { return m.Stages.beside(c) }

func (m ClosedStages) pace() pace {
	return pace{concurrency: int(math.Ceil(m.Stages.Peak())), stages: m.Stages, duration: m.Stages.Total()}
}
