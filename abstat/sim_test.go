package abstat

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// simulate runs one sequential experiment on p50 whose rounds have
// lognormal noise of coefficient of variation cv on each side and B shifted
// by the factor shift. It returns the verdict and the rounds it took.
func simulate(t *testing.T, rng *rand.Rand, plan Plan, cv, shift float64) (Verdict, int) {
	s, err := NewSequential(plan, []Metric{P50})
	if err != nil {
		t.Fatal(err)
	}
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	var a, b []float64
	for n := 1; ; n++ {
		a = append(a, 10*math.Exp(sigma*rng.NormFloat64()))
		b = append(b, 10*shift*math.Exp(sigma*rng.NormFloat64()))
		if s.Due(n) && s.Look(map[Metric]Paired{P50: {A: a, B: b}}, false) {
			return s.Verdicts()[0].Verdict, n
		}
	}
}

// TestFalseAlarmsHeld: under H0 (A and B the same, 6% CV) the share of
// experiments that end in a regression or an improvement, over all their
// looks, stays within alpha for both spending functions (4.8% measured
// over 10,000 experiments for the default plan, see TestOperatingFigures;
// the check allows the estimate two standard errors); while judging every look at the full
// alpha, as a naive loop would, alarms far more often, so the calibrated
// spending is what holds the rate.
func TestFalseAlarmsHeld(t *testing.T) {
	const alpha = 0.05
	rng := rand.New(rand.NewPCG(47, 1))
	for _, c := range []struct {
		sp     Spending
		trials int
	}{{OBrienFleming, 600}, {Pocock, 200}} {
		alarms := 0
		for range c.trials {
			if v, _ := simulate(t, rng, Plan{Alpha: alpha, Spending: c.sp}, 0.06, 1); v == Regression || v == Improvement {
				alarms++
			}
		}
		rate := float64(alarms) / float64(c.trials)
		bound := alpha + 2*math.Sqrt(alpha*(1-alpha)/float64(c.trials))
		t.Logf("%s: false alarms in %.1f%% of %d A/A experiments", c.sp, 100*rate, c.trials)
		if rate > bound {
			t.Errorf("%s: false alarms in %.1f%% of A/A experiments, want at most %.0f%% (%.1f%% allowing for the estimate)", c.sp, 100*rate, 100*alpha, 100*bound)
		}
	}
	const trials = 200
	naive := 0
	for range trials {
		var a, b []float64
		for n := 1; n <= 30; n++ {
			a, b = append(a, 1+0.06*rng.NormFloat64()), append(b, 1+0.06*rng.NormFloat64())
			if r, _ := Judge(P50, a, b, alpha, 0.02); n >= 6 && (r.Verdict == Regression || r.Verdict == Improvement) {
				naive++
				break
			}
		}
	}
	rate := float64(naive) / trials
	t.Logf("every look at the full alpha: false alarms in %.1f%%", 100*rate)
	if rate <= 2*alpha {
		t.Errorf("looking 25 times at the full alpha alarmed in only %.1f%% of A/A experiments; the simulation may not be testing anything", 100*rate)
	}
}

// TestFivePercentFound: a 5% slowdown is found as a regression with high
// power: every time within 30 rounds at 3% CV, and in at least 95% of
// experiments within 60 rounds at 6% CV (98.8% measured over 1000).
func TestFivePercentFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 2))
	cases := []struct {
		cv        float64
		plan      Plan
		power     float64
		meanLimit float64
	}{
		{0.03, Plan{MaxRounds: 30}, 1, 20},
		{0.06, Plan{MaxRounds: 60, Every: 2}, 0.95, 40},
	}
	for _, c := range cases {
		const trials = 300
		found, rounds := 0, 0
		for range trials {
			v, n := simulate(t, rng, c.plan, c.cv, 1.05)
			if v == Improvement {
				t.Fatalf("cv %v: a slowdown judged an improvement", c.cv)
			}
			if v == Regression {
				found++
			}
			rounds += n
		}
		power, mean := float64(found)/trials, float64(rounds)/trials
		t.Logf("cv %.2f: found %.1f%%, mean rounds %.1f", c.cv, 100*power, mean)
		if power < c.power || mean > c.meanLimit {
			t.Errorf("cv %.2f: found in %.1f%% within a mean of %.1f rounds, want at least %.0f%% within %.0f", c.cv, 100*power, mean, 100*c.power, c.meanLimit)
		}
	}
}

// TestOperatingFigures measures the figures the package doc quotes, with
// thousands of simulated experiments (about a minute):
//
//	ABSTAT_FIGURES=1 go test -run TestOperatingFigures -v ./abstat/
//
// It fails when a false-alarm rate is more than two standard errors above
// its alpha or a power below what the doc says.
func TestOperatingFigures(t *testing.T) {
	if os.Getenv("ABSTAT_FIGURES") == "" {
		t.Skip("set ABSTAT_FIGURES=1 to measure the doc's figures")
	}
	rng := rand.New(rand.NewPCG(4321, 6))
	for _, c := range []struct {
		plan      Plan
		cv, shift float64
		trials    int
		power     float64 // for a shift; 0 for A/A
	}{
		{Plan{}, 0.06, 1, 10000, 0},
		{Plan{Spending: Pocock}, 0.06, 1, 10000, 0},
		{Plan{Alpha: 0.01}, 0.06, 1, 20000, 0},
		{Plan{MaxRounds: 60, Every: 2}, 0.06, 1.05, 1000, 0.97},
		{Plan{MaxRounds: 100, Every: 2}, 0.09, 1.05, 500, 0.9},
		{Plan{MaxRounds: 40, Every: 2, Alpha: 0.01}, 0.03, 1.05, 1000, 0.99},
		{Plan{MaxRounds: 60, Every: 2, Alpha: 0.01}, 0.06, 1.05, 1000, 0.9},
		// The ab trials' plan (a 3% minimum effect, 38 rounds in a
		// 3-minute budget) at a p50 spread of 4% and 6% a round.
		{Plan{MinEffect: 0.03, MaxRounds: 38}, 0.028, 1, 2000, 0},
		{Plan{MinEffect: 0.03, MaxRounds: 38}, 0.042, 1, 2000, 0},
		{Plan{MinEffect: 0.03, MaxRounds: 38}, 0.042, 1.05, 2000, 0.97},
	} {
		count := map[Verdict]int{}
		rounds := 0
		for range c.trials {
			v, n := simulate(t, rng, c.plan, c.cv, c.shift)
			count[v]++
			rounds += n
		}
		p, _ := c.plan.WithDefaults()
		n := float64(c.trials)
		alarms := float64(count[Regression]+count[Improvement]) / n
		t.Logf("%s alpha %.2f, rounds %d-%d every %d, cv %.0f%%, B/A %.2f: %v, mean rounds %.1f",
			p.Spending, p.Alpha, p.MinRounds, p.MaxRounds, p.Every, 100*c.cv, c.shift, count, float64(rounds)/n)
		switch found := float64(count[Regression]) / n; {
		case c.power == 0 && alarms > p.Alpha+2*math.Sqrt(p.Alpha*(1-p.Alpha)/n):
			t.Errorf("false alarms in %.2f%%, want at most %.2f%%", 100*alarms, 100*p.Alpha)
		case c.power > 0 && found < c.power:
			t.Errorf("found in %.1f%%, want at least %.0f%%", 100*found, 100*c.power)
		}
	}
}
