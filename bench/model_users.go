package bench

import (
	"fmt"
	"time"
)

// ScenarioUsers is Users virtual users of a SessionLoad, joining evenly
// over RampUp, each starting its next session when its last one ends.
type ScenarioUsers struct {
	Users  int
	RampUp time.Duration
}

// Validate wants a user at least and no negative ramp.
func (m ScenarioUsers) Validate(Config) error {
	if m.Users < 1 {
		return fmt.Errorf("users must be at least 1")
	}
	return negative("ramp-up", float64(m.RampUp))
}

func (m ScenarioUsers) pace() pace { return pace{concurrency: m.Users, rampUp: m.RampUp} }
