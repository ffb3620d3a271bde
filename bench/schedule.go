package bench

import (
	"math"
	"time"
)

// Schedule gives the intended send time of request i (counted from 0),
// relative to the start of the run, for an open loop: a pure function, so
// the pacing can be tested without a clock. Request i goes at i/rate, or
// with a ramp, as the rate rises linearly from 0 to rate over ramp.
type Schedule struct {
	Rate float64       // requests per second once ramped
	Ramp time.Duration // linear rise from 0; 0 means full rate at once
	// Stages, when set, give the rate instead (rate stages).
	Stages Stages
}

// At returns the offset of request i from the start.
func (s Schedule) At(i int64) time.Duration {
	if len(s.Stages) > 0 {
		return s.Stages.at(i)
	}
	if s.Rate <= 0 {
		return 0
	}
	n := float64(i)
	ramp := s.Ramp.Seconds()
	if ramp <= 0 {
		return secs(n / s.Rate)
	}
	// During the ramp the count sent by t is rate·t²/(2·ramp).
	rampCount := s.Rate * ramp / 2
	if n < rampCount {
		return secs(math.Sqrt(2 * ramp * n / s.Rate))
	}
	return secs(ramp + (n-rampCount)/s.Rate)
}

// Count returns how many requests are due by offset t: the inverse of At.
func (s Schedule) Count(t time.Duration) int64 {
	if s.Rate <= 0 || t <= 0 {
		return 0
	}
	if len(s.Stages) > 0 {
		return int64(math.Ceil(s.Stages.due(t) - 1e-9))
	}
	x := t.Seconds()
	ramp := s.Ramp.Seconds()
	if ramp <= 0 {
		return int64(math.Ceil(x * s.Rate))
	}
	if x < ramp {
		return int64(math.Ceil(s.Rate * x * x / (2 * ramp)))
	}
	return int64(math.Ceil(s.Rate*ramp/2 + (x-ramp)*s.Rate))
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
