package bench

import (
	"fmt"
	"time"
)

// ClosedLoop is Concurrency workers, each sending its next request when
// its last one is answered.
type ClosedLoop struct {
	Concurrency int
	// RampUp adds the workers evenly over this time.
	RampUp time.Duration
	// MaxRate caps the request rate (a token bucket); 0: no cap.
	MaxRate float64
}

// Name is "closed-loop".
func (ClosedLoop) Name() string { return "closed-loop" }

// Validate wants a worker at least and no negative ramp or cap.
func (m ClosedLoop) Validate(Config) error {
	if m.Concurrency < 1 {
		return fmt.Errorf("concurrency must be at least 1")
	}
	if err := checkMaxRate(m.MaxRate); err != nil {
		return err
	}
	return checkRamp(m.RampUp)
}

func (m ClosedLoop) pace() pace {
	return pace{concurrency: m.Concurrency, rampUp: m.RampUp, maxRate: m.MaxRate}
}
