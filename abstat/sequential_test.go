package abstat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLookAlphasSpendAlpha: each spending function's looks add up to
// alpha; O'Brien–Fleming keeps more for the last look than Pocock.
func TestLookAlphasSpendAlpha(t *testing.T) {
	last := map[Spending]float64{}
	for _, sp := range []Spending{Pocock, OBrienFleming} {
		p, err := Plan{Alpha: 0.05, Spending: sp, MinRounds: 6, MaxRounds: 30, Every: 3}.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		as := p.LookAlphas()
		if looks := p.Looks(); len(looks) != len(as) || looks[0] != 6 || looks[len(looks)-1] != 30 {
			t.Errorf("%s: looks %v", sp, looks)
		}
		sum := 0.0
		for _, a := range as {
			if a <= 0 {
				t.Errorf("%s: a look at level %v", sp, a)
			}
			sum += a
		}
		if math.Abs(sum-0.05) > 1e-12 {
			t.Errorf("%s: looks spend %v, want 0.05", sp, sum)
		}
		last[sp] = as[len(as)-1]
	}
	if last[OBrienFleming] <= last[Pocock] {
		t.Errorf("last look: O'Brien-Fleming %v, Pocock %v", last[OBrienFleming], last[Pocock])
	}
	if _, err := (Plan{MinRounds: 8, MaxRounds: 4}).WithDefaults(); err == nil {
		t.Error("a plan whose maximum is below its minimum was taken")
	}
}

// TestJudgeDirections: the same rise in a figure is an improvement for
// throughput and a regression for latency; a change within the minimum
// effect, tightly measured, is no change.
func TestJudgeDirections(t *testing.T) {
	a := []float64{100, 101, 99, 100, 102, 98, 100, 101, 99, 100, 100, 101}
	up := make([]float64, len(a))
	flat := make([]float64, len(a))
	for i, x := range a {
		up[i] = x * (1.10 + 0.001*float64(i%3))
		flat[i] = x * (1.001 + 0.001*float64(i%3))
	}
	if r, _ := Judge(Throughput, a, up, Levels{0.05, 0.05}, 0.02); r.Verdict != Improvement || math.Abs(r.Change-0.101) > 0.002 {
		t.Errorf("throughput +10%%: %+v", r)
	}
	if r, _ := Judge(P95, a, up, Levels{0.05, 0.05}, 0.02); r.Verdict != Regression {
		t.Errorf("p95 +10%%: %+v", r)
	}
	if r, _ := Judge(P50, a, flat, Levels{0.05, 0.05}, 0.02); r.Verdict != NoChange || r.Low < -0.02 || r.High > 0.02 {
		t.Errorf("p50 +0.2%%: %+v", r)
	}
	zeros := make([]float64, len(a))
	if r, _ := Judge(ErrorRate, zeros, zeros, Levels{0.001, 0.001}, 0.02); r.Verdict != NoChange || r.Change != 0 {
		t.Errorf("no errors on either side: %+v", r)
	}
}

// TestFinalLookSpendsTheRest: an early stop's look judges at all the alpha
// the looks before it left (one gated metric: the alarm test's alpha is
// twice the gate's, all of it on that metric).
func TestFinalLookSpendsTheRest(t *testing.T) {
	s, err := NewSequential(Plan{MaxRounds: 40}, []Metric{P50})
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{1, 1.1, 0.9, 1, 1.05, 0.95}
	b := []float64{1.1, 0.9, 1, 1.05, 0.95, 1}
	data := map[Metric]Paired{P50: {A: a, B: b}}
	s.Look(data, false)
	first := s.Verdicts()[0].Alpha
	if !s.Look(data, true) {
		t.Fatal("a final look did not end the experiment")
	}
	if got := s.Verdicts()[0].Alpha; s.AlarmAlpha() != 0.02 || math.Abs(first+got-0.02) > 1e-12 {
		t.Errorf("looks at %v then %v, want the second to spend the rest of 0.02 (alarm alpha %v)", first, got, s.AlarmAlpha())
	}
}

// TestCalibratedLevels: every look's level is at least its share (the union
// bound's level), the later looks' well above it, and a plan's levels are
// the same each time (a fixed seed).
func TestCalibratedLevels(t *testing.T) {
	p, err := Plan{MaxRounds: 20}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	levels, shares := p.levels(), p.LookAlphas()
	for k := range levels {
		if levels[k] < shares[k] {
			t.Errorf("look %d: level %v below its share %v", k, levels[k], shares[k])
		}
	}
	if last := len(levels) - 1; levels[last] < 2*shares[last] {
		t.Errorf("last look: level %v, share %v: want the calibration to give it more", levels[last], shares[last])
	}
	calibrations.Delete(p)
	if again := p.levels(); !slices.Equal(again, levels) {
		t.Errorf("levels %v, then %v", levels, again)
	}
}

// TestRefitBeforeTheFirstLook: a plan refitted to the rounds a budget holds
// looks last at those rounds with the levels of a plan made for them, never
// past its own last round nor before its first look, and only before a look.
func TestRefitBeforeTheFirstLook(t *testing.T) {
	s, err := NewSequential(Plan{MaxRounds: 40}, []Metric{P50})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Refit(25); err != nil {
		t.Fatal(err)
	}
	want, _ := NewSequential(Plan{MaxRounds: 25}, []Metric{P50})
	if s.Plan() != want.Plan() || !slices.Equal(s.alarm.levels, want.alarm.levels) || !slices.Equal(s.same.levels, want.same.levels) || !slices.Equal(s.rounds, want.rounds) {
		t.Errorf("refitted to 25: plan %+v looks %v, want %+v looks %v", s.Plan(), s.rounds, want.Plan(), want.rounds)
	}
	for _, c := range []struct{ ask, want int }{{100, 25}, {3, 6}} {
		if err := s.Refit(c.ask); err != nil || s.Plan().MaxRounds != c.want {
			t.Errorf("refit to %d: max rounds %d (%v), want %d", c.ask, s.Plan().MaxRounds, err, c.want)
		}
	}
	a := []float64{1, 1.1, 0.9, 1, 1.05, 0.95}
	s.Look(map[Metric]Paired{P50: {A: a, B: a}}, false)
	if err := s.Refit(10); err == nil {
		t.Error("refitted after a look")
	}
}

// TestNoChangeIsTwoOneSidedTests: 20 rounds whose 95% interval reaches
// +3.1% but whose 90% interval lies within ±3% are no change at alpha
// 0.05 and a 3% minimum effect (each one-sided test at 0.05), reported
// with the 90% interval; at a no-change level of 0.025 (a 95% interval)
// they are not.
func TestNoChangeIsTwoOneSidedTests(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	a, b := make([]float64, 20), make([]float64, 20)
	for i := range a {
		a[i], b[i] = 1, math.Exp(0.04*rng.NormFloat64())
	}
	wide, _ := WalshInterval(LogRatios(a, b), 0.95)
	if math.Expm1(wide.High) < 0.03 {
		t.Fatalf("the premise: a 95%% interval up to %+.2f%%, want past +3%%", 100*math.Expm1(wide.High))
	}
	r, _ := Judge(P50, a, b, Levels{0.05, 0.05}, 0.03)
	if r.Verdict != NoChange || r.Low <= -0.03 || r.High >= 0.03 || r.High >= math.Expm1(wide.High) {
		t.Errorf("alpha 0.05: %+v; want no change with the 90%% interval, within ±3%%", r)
	}
	if r, _ := Judge(P50, a, b, Levels{0.05, 0.025}, 0.03); r.Verdict != Inconclusive {
		t.Errorf("alpha 0.025: %+v; want inconclusive: the 95%% interval reaches past +3%%", r)
	}
}

// TestAlarmAlphaSplitOverTheGate: each of k gated metrics is tested for a
// change at 2·Alpha/k, so that the regression side of all k comes to
// Alpha; the no-change level is its own.
func TestAlarmAlphaSplitOverTheGate(t *testing.T) {
	for _, c := range []struct {
		gated []Metric
		want  float64
	}{
		{[]Metric{P50}, 0.02},
		{[]Metric{Throughput, P50}, 0.01},
		{[]Metric{Throughput, P50, ServerCPUPerRequest}, 0.02 / 3},
	} {
		s, err := NewSequential(Plan{MaxRounds: 20}, c.gated)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AlarmAlpha(); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%d gated: alarm alpha %v, want %v", len(c.gated), got, c.want)
		}
		last := len(s.rounds) - 1
		if s.alarm.levels[last] >= s.same.levels[last] {
			t.Errorf("%d gated: last look's alarm level %v, not below the no-change level %v", len(c.gated), s.alarm.levels[last], s.same.levels[last])
		}
	}
	if s, _ := NewSequential(Plan{Alpha: 0.4, MaxRounds: 20}, []Metric{P50}); s.AlarmAlpha() != 0.5 {
		t.Errorf("one gated metric at alpha 0.4: alarm alpha %v, want it capped at 0.5", s.AlarmAlpha())
	}
	// Blind: 8 rounds give p-values down to 2/256 = 0.0078, above the
	// 0.0067 of three gated metrics at alpha 0.01; 9 give 0.0039.
	for n, blind := range map[int]bool{8: true, 12: false} {
		s, _ := NewSequential(Plan{MaxRounds: n}, []Metric{Throughput, P50, ServerCPUPerRequest})
		if s.Blind() != blind {
			t.Errorf("%d rounds, 3 gated at alpha 0.01: blind %v, want %v", n, s.Blind(), blind)
		}
	}
	if _, err := (Plan{Alpha: 0.6}).WithDefaults(); err == nil {
		t.Error("alpha 0.6 taken: twice it is no level")
	}
}
