package bench

import (
	"fmt"
	"time"
)

// OpenLoop sends Rate requests (or starts Rate sessions) a second on a
// schedule, whatever became of the earlier ones.
type OpenLoop struct {
	Rate float64
	// MaxInFlight workers send them; 0: enough for one second of requests
	// (16 to 1000), or ten seconds of sessions.
	MaxInFlight int
	// RampUp raises the rate linearly from 0 over this time.
	RampUp time.Duration
}

// Name is "open-loop".
func (OpenLoop) Name() string { return "open-loop" }

// Validate wants a rate above 0 and no negative bound or ramp.
func (m OpenLoop) Validate(Config) error {
	switch {
	case !finite(m.Rate) || m.Rate == 0:
		return fmt.Errorf("rate must be a positive number")
	case m.MaxInFlight < 0:
		return fmt.Errorf("max in flight must not be negative")
	}
	return checkRamp(m.RampUp)
}

func (m OpenLoop) pace() pace {
	return pace{rate: m.Rate, maxInFlight: m.MaxInFlight, rampUp: m.RampUp}
}
