package bench

import (
	"math"
	"sync/atomic"
)

// Share picks a fraction of what it is asked about by count, not at
// random, so that exactly that fraction of the askings so far is picked
// (the 1st, 2nd, ... as the running total crosses each whole number).
// The sessions a load test abandons are picked so (mcp.Hooks.Abandon).
type Share struct {
	fraction float64
	asked    atomic.Int64
}

// NewShare picks fraction of the askings; nil for a fraction of 0 or
// less, which picks none.
func NewShare(fraction float64) *Share {
	if fraction <= 0 {
		return nil
	}
	return &Share{fraction: fraction}
}

// Picker is Next as a function; nil for a nil Share, which picks none.
func (s *Share) Picker() func() bool {
	if s == nil {
		return nil
	}
	return s.Next
}

// Next says whether this asking is picked. Safe for concurrent use.
func (s *Share) Next() bool {
	n := s.asked.Add(1)
	return math.Floor(float64(n)*s.fraction) != math.Floor(float64(n-1)*s.fraction)
}
