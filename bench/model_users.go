package bench

import (
	"fmt"
	"time"
)

// ScenarioUsers is a closed loop of Users virtual users of a SessionLoad,
// each starting its next session when its last one ends.
type ScenarioUsers struct {
	Users int
	// RampUp lets the users join evenly over this time.
	RampUp time.Duration
}

// Name is "scenario-users".
func (ScenarioUsers) Name() string { return "scenario-users" }

// Validate wants a user at least and no negative ramp.
func (m ScenarioUsers) Validate(Config) error {
	if m.Users < 1 {
		return fmt.Errorf("users must be at least 1")
	}
	return checkRamp(m.RampUp)
}

func (m ScenarioUsers) pace() pace { return pace{concurrency: m.Users, rampUp: m.RampUp} }
