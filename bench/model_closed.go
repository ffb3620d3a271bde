package bench

import (
	"cmp"
	"fmt"
	"time"
)

// ClosedLoop is Concurrency workers, each sending its next request when
// its last one is answered; they join evenly over RampUp, and MaxRate (if
// above 0) caps their requests per second with a token bucket.
type ClosedLoop struct {
	Concurrency int
	RampUp      time.Duration
	MaxRate     float64
}

// Validate wants a worker at least and no negative ramp or cap.
func (m ClosedLoop) Validate(Config) error {
	if m.Concurrency < 1 {
		return fmt.Errorf("concurrency must be at least 1")
	}
	return cmp.Or(negative("max rate", m.MaxRate), negative("ramp-up", float64(m.RampUp)))
}

func (m ClosedLoop) pace() pace {
	return pace{concurrency: m.Concurrency, rampUp: m.RampUp, maxRate: m.MaxRate}
}
