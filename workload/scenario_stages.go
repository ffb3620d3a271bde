package workload

import (
	"time"

	"github.com/mcpbench/mcpbench/bench"
)

// FileStage is one stage of a scenario file: over Duration the users (or
// the session rate) move linearly to Target.
type FileStage struct {
	Duration time.Duration `yaml:"duration"`
	Target   float64       `yaml:"target"`
}

// LoadStages are the file's stages in the generator's form, and whether
// they are of a rate; nil when the file has none.
func (f *ScenarioFile) LoadStages() (bench.Stages, bool) {
	list, rate := f.Stages, false
	if len(f.RateStages) > 0 {
		list, rate = f.RateStages, true
	}
	if len(list) == 0 {
		return nil, false
	}
	out := make(bench.Stages, len(list))
	for i, st := range list {
		out[i] = bench.LoadStage{Duration: st.Duration, Target: st.Target}
	}
	return out, rate
}
