package bench

import (
	"testing"
	"time"
)

func TestScheduleFixedRate(t *testing.T) {
	s := Schedule{Rate: 1000}
	cases := []struct {
		i    int64
		want time.Duration
	}{{0, 0}, {1, time.Millisecond}, {1000, time.Second}, {4999, 4999 * time.Millisecond}}
	for _, c := range cases {
		if got := s.At(c.i); got != c.want {
			t.Errorf("At(%d) = %v, want %v", c.i, got, c.want)
		}
	}
	if got := s.Count(5 * time.Second); got != 5000 {
		t.Errorf("Count(5s) = %d, want 5000", got)
	}
}

func TestScheduleRampIsMonotoneAndContinuous(t *testing.T) {
	s := Schedule{Rate: 200, Ramp: 2 * time.Second}
	// 200 requests are sent during the 2 s ramp (the average rate is half).
	if got := s.At(200); got != 2*time.Second {
		t.Fatalf("At(200) = %v, want 2s", got)
	}
	prev := time.Duration(-1)
	for i := int64(0); i < 1000; i++ {
		at := s.At(i)
		if at <= prev && i > 0 {
			t.Fatalf("At(%d) = %v is not after At(%d) = %v", i, at, i-1, prev)
		}
		prev = at
		if n := s.Count(at); n != i {
			// Count(At(i)) counts requests due strictly before; allow
			// rounding by one.
			if n < i-1 || n > i+1 {
				t.Fatalf("Count(At(%d)) = %d", i, n)
			}
		}
	}
	// After the ramp, the spacing is 1/rate.
	if d := s.At(501) - s.At(500); d < 4990*time.Microsecond || d > 5010*time.Microsecond {
		t.Fatalf("spacing after ramp %v, want 5ms", d)
	}
}
