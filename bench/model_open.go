package bench

import (
	"cmp"
	"fmt"
	"time"
)

// OpenLoop sends Rate requests (or starts Rate sessions) a second on a
// schedule, whatever became of the earlier ones, rising linearly from 0
// over RampUp. MaxInFlight workers send them; 0: enough for one second
// of requests (16 to 1000), or ten seconds of sessions.
type OpenLoop struct {
	Rate        float64
	MaxInFlight int
	RampUp      time.Duration
}

// Validate wants a rate above 0 and no negative bound or ramp.
func (m OpenLoop) Validate(Config) error {
	if !finite(m.Rate) || m.Rate == 0 {
		return fmt.Errorf("rate must be a positive number")
	}
	return cmp.Or(negative("max in flight", float64(m.MaxInFlight)), negative("ramp-up", float64(m.RampUp)))
}

func (m OpenLoop) pace() pace {
	return pace{rate: m.Rate, maxInFlight: m.MaxInFlight, rampUp: m.RampUp}
}
