package bench

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// LoadStage is one stage of a staged level: over Duration the target
// (workers in a closed loop, requests/s in an open one) moves linearly
// from the previous stage's target (0 before the first) to Target. A
// stage of no duration is a step.
type LoadStage struct {
	Duration time.Duration
	Target   float64
}

// Stages is a level's load shape, stage by stage.
type Stages []LoadStage

// Total is how long the stages last together.
func (s Stages) Total() time.Duration {
	var d time.Duration
	for _, st := range s {
		d += st.Duration
	}
	return d
}

// Peak is the highest target.
func (s Stages) Peak() float64 {
	var p float64
	for _, st := range s {
		p = max(p, st.Target)
	}
	return p
}

// check says what cannot work in stages as a level's model: a total or
// duration beside them (they give its length), a negative or non-finite
// target or duration, no time at all, or a stage that does not end on a
// bucket boundary (its summary is made of whole buckets).
func (s Stages) check(c Config) error {
	if c.Total > 0 || c.Duration > 0 {
		return fmt.Errorf("stages give the level its length: no total or duration beside them")
	}
	interval := cmp.Or(max(c.Interval, 0), time.Second)
	for i, st := range s {
		if st.Duration < 0 || !finite(st.Target) {
			return fmt.Errorf("stage %d: a duration and a target of 0 or more", i+1)
		}
		if st.Duration%interval != 0 {
			return fmt.Errorf("stage %d: %s is not a whole number of %s intervals", i+1, st.Duration, interval)
		}
	}
	if s.Total() <= 0 || s.Peak() <= 0 {
		return fmt.Errorf("stages need some time and a target above 0")
	}
	return nil
}

// segment is stage i as [from, to) with its start and end targets.
func (s Stages) segment(i int) (from, to time.Duration, v0, v1 float64) {
	for j := range i {
		from += s[j].Duration
		v0 = s[j].Target
	}
	return from, from + s[i].Duration, v0, s[i].Target
}

// window is a span [From, To) of the level, offsets from its start.
type window struct{ From, To time.Duration }

// Windows are the spans in which closed-loop worker i (from 0) works: the
// times the target is above i, so N workers work at the end of a stage
// whose target is N. A worker busy as its window closes finishes its
// request first.
func (s Stages) Windows(i int) []window {
	var out []window
	x := float64(i)
	for k := range s {
		from, to, v0, v1 := s.segment(k)
		if to == from || (v0 <= x && v1 <= x) {
			continue
		}
		w := window{from, to}
		// Where the line crosses x, when it does.
		cross := from + time.Duration((x-v0)/(v1-v0)*float64(to-from))
		if v0 <= x {
			w.From = cross
		} else if v1 <= x {
			w.To = cross
		}
		if n := len(out); n > 0 && out[n-1].To == w.From {
			out[n-1].To = w.To
			continue
		}
		out = append(out, w)
	}
	return out
}

// due is how many requests an open loop has due by t: the integral of
// the rate, which is linear within each stage.
func (s Stages) due(t time.Duration) float64 {
	var n float64
	for k := range s {
		from, to, v0, v1 := s.segment(k)
		if t <= from {
			break
		}
		d := to.Seconds() - from.Seconds()
		x := min(t, to).Seconds() - from.Seconds()
		if d > 0 {
			n += v0*x + (v1-v0)*x*x/(2*d)
		}
	}
	return n
}

// at is when request i is due: the inverse of due. Past the last stage
// it is the end of the stages.
func (s Stages) at(i int64) time.Duration {
	m := float64(i)
	for k := range s {
		from, to, v0, v1 := s.segment(k)
		d := to.Seconds() - from.Seconds()
		if d <= 0 {
			continue
		}
		in := v0*d + (v1-v0)*d/2
		if m > in {
			m -= in
			continue
		}
		// v0·x + k·x² = m with k = (v1-v0)/(2d), in the form that is
		// stable when k is near 0 and for a falling rate.
		kk := (v1 - v0) / (2 * d)
		disc := math.Sqrt(max(0, v0*v0+4*kk*m))
		if v0+disc <= 0 {
			return from
		}
		return from + secs(2*m/(v0+disc))
	}
	return s.Total()
}

// ParseStages reads stages written D:N[,D:N…], a duration and a target
// each (k6's stages on one line): "30s:10,1m:10,10s:0".
func ParseStages(s string) (Stages, error) {
	var out Stages
	for _, part := range strings.Split(s, ",") {
		d, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("%q is not DURATION:TARGET", part)
		}
		dur, err := time.ParseDuration(d)
		if err != nil {
			return nil, fmt.Errorf("%q: the duration: %v", part, err)
		}
		v, err := strconv.ParseFloat(n, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || dur < 0 {
			return nil, fmt.Errorf("%q: want a duration and a target of 0 or more", part)
		}
		out = append(out, LoadStage{Duration: dur, Target: v})
	}
	return out, nil
}
