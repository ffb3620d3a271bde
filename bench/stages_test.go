package bench

import (
	"math"
	"testing"
	"time"
)

func TestStagesWindowsFollowTheTarget(t *testing.T) {
	st, err := ParseStages("2s:4,2s:4,0s:8,1s:0")
	if err != nil {
		t.Fatal(err)
	}
	// Worker 1 joins as the ramp passes 1 (0.5 s), works through the hold
	// and the step, and leaves as the last stage falls past 1 (7/8 of it).
	w := st.Windows(1)
	if len(w) != 1 || w[0].From != 500*time.Millisecond || w[0].To != 4*time.Second+875*time.Millisecond {
		t.Errorf("worker 1's windows %v", w)
	}
	// Worker 6 works only after the step, until the fall passes 6.
	w = st.Windows(6)
	if len(w) != 1 || w[0].From != 4*time.Second || w[0].To != 4*time.Second+250*time.Millisecond {
		t.Errorf("worker 6's windows %v", w)
	}
	if w := st.Windows(8); len(w) != 0 {
		t.Errorf("worker 8 is never needed, but has %v", w)
	}
}

func TestRateStagesScheduleIsTheIntegralOfTheRate(t *testing.T) {
	st, _ := ParseStages("2s:100,2s:100,2s:0")
	s := Schedule{Rate: st.Peak(), Stages: st}
	// 100 over the ramp, 200 held, 100 over the fall.
	for _, c := range []struct {
		at   time.Duration
		want int64
	}{{time.Second, 25}, {2 * time.Second, 100}, {3 * time.Second, 200}, {4 * time.Second, 300}, {6 * time.Second, 400}} {
		if got := s.Count(c.at); got != c.want {
			t.Errorf("due by %s: %d, want %d", c.at, got, c.want)
		}
	}
	for i := int64(1); i < 400; i++ {
		at := s.At(i)
		if got := st.due(at); math.Abs(got-float64(i)) > 1e-6 {
			t.Fatalf("request %d at %s, where %.6f are due", i, at, got)
		}
		if at <= s.At(i-1) {
			t.Fatalf("request %d at %s, not after request %d at %s", i, at, i-1, s.At(i-1))
		}
	}
}

func TestStagesAreChecked(t *testing.T) {
	for _, bad := range []string{"2s", "x:4", "2s:-1", "1.5s:4"} {
		st, err := ParseStages(bad)
		if err == nil {
			err = ClosedStages{Stages: st}.Validate(Config{Interval: time.Second})
		}
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
