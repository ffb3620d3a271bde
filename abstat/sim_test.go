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
	vs, n := simulateGate(t, rng, plan, []Metric{P50}, cv, shift)
	return vs[0].Verdict, n
}

// simulateGate is simulate for several gated metrics at once, each with
// noise of its own, B worse by the factor shift on each (its throughput
// divided by it).
func simulateGate(t *testing.T, rng *rand.Rand, plan Plan, gated []Metric, cv, shift float64) ([]Result, int) {
	s, err := NewSequential(plan, gated)
	if err != nil {
		t.Fatal(err)
	}
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	data := map[Metric]Paired{}
	for n := 1; ; n++ {
		for _, m := range gated {
			p, f := data[m], shift
			if m.HigherIsBetter() {
				f = 1 / shift
			}
			p.A = append(p.A, 10*math.Exp(sigma*rng.NormFloat64()))
			p.B = append(p.B, 10*f*math.Exp(sigma*rng.NormFloat64()))
			data[m] = p
		}
		if s.Due(n) && s.Look(data, false) {
			return s.Verdicts(), n
		}
	}
}

// regressed says whether any of vs is a regression: the gate failed.
func regressed(vs []Result) bool {
	for _, v := range vs {
		if v.Verdict == Regression {
			return true
		}
	}
	return false
}

// TestFalseAlarmsHeld: under H0 (A and B the same, 6% CV) the share of
// experiments that fail the gate, a regression on any gated metric over
// all their looks, stays within alpha: for one metric with both spending
// functions, and for three metrics gated together, which share it
// (4.8% measured over 10,000 single-metric experiments of the old
// two-sided rule, see TestOperatingFigures; the check allows the estimate
// two standard errors). Judging every look at the full alpha, as a naive
// loop would, alarms far more often, so the calibrated spending is what
// holds the rate.
func TestFalseAlarmsHeld(t *testing.T) {
	const alpha = 0.05
	rng := rand.New(rand.NewPCG(47, 1))
	one, three := []Metric{P50}, []Metric{Throughput, P50, ServerCPUPerRequest}
	for _, c := range []struct {
		sp     Spending
		gated  []Metric
		trials int
	}{{OBrienFleming, one, 600}, {Pocock, one, 200}, {OBrienFleming, three, 600}} {
		alarms := 0
		for range c.trials {
			if vs, _ := simulateGate(t, rng, Plan{Alpha: alpha, Spending: c.sp}, c.gated, 0.06, 1); regressed(vs) {
				alarms++
			}
		}
		rate := float64(alarms) / float64(c.trials)
		bound := alpha + 2*math.Sqrt(alpha*(1-alpha)/float64(c.trials))
		t.Logf("%s, %d gated: the gate failed %.1f%% of %d A/A experiments", c.sp, len(c.gated), 100*rate, c.trials)
		if rate > bound {
			t.Errorf("%s, %d gated: the gate failed %.1f%% of A/A experiments, want at most %.0f%% (%.1f%% allowing for the estimate)", c.sp, len(c.gated), 100*rate, 100*alpha, 100*bound)
		}
	}
	const trials = 200
	naive := 0
	for range trials {
		var a, b []float64
		for n := 1; n <= 30; n++ {
			a, b = append(a, 1+0.06*rng.NormFloat64()), append(b, 1+0.06*rng.NormFloat64())
			if r, _ := Judge(P50, a, b, Levels{alpha, alpha}, 0.02); n >= 6 && (r.Verdict == Regression || r.Verdict == Improvement) {
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

// TestFivePercentFound: a 5% slowdown of one gated metric is found as a
// regression with high power at the default alpha (0.01 for the gate):
// in 99.7% of 300 experiments within 30 rounds at 3% CV (16.6 on
// average), and in 95.3% within 60 rounds at 6% CV (38.5 on average).
func TestFivePercentFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 2))
	cases := []struct {
		cv        float64
		plan      Plan
		power     float64
		meanLimit float64
	}{
		{0.03, Plan{MaxRounds: 30}, 0.98, 20},
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
// thousands of simulated experiments (a few minutes):
//
//	ABSTAT_FIGURES=1 go test -run TestOperatingFigures -v ./abstat/
//
// It fails when the gate fails identical sides more than two standard
// errors above its alpha, or a power is below what the doc says.
func TestOperatingFigures(t *testing.T) {
	if os.Getenv("ABSTAT_FIGURES") == "" {
		t.Skip("set ABSTAT_FIGURES=1 to measure the doc's figures")
	}
	rng := rand.New(rand.NewPCG(4321, 6))
	one, three := []Metric{P50}, []Metric{Throughput, P50, ServerCPUPerRequest}
	// The ab trials' plan: a 3% minimum effect, 38 rounds in a 3-minute
	// budget.
	trials := Plan{MinEffect: 0.03, MaxRounds: 38}
	for _, c := range []struct {
		plan      Plan
		gated     []Metric
		cv, shift float64
		trials    int
		power     float64 // for a shift; 0 for A/A
	}{
		{Plan{Alpha: 0.05}, one, 0.06, 1, 10000, 0},
		{Plan{Alpha: 0.05, Spending: Pocock}, one, 0.06, 1, 10000, 0},
		{Plan{}, one, 0.06, 1, 20000, 0},
		{Plan{}, three, 0.06, 1, 10000, 0},
		{Plan{MaxRounds: 60, Every: 2}, one, 0.06, 1.05, 1000, 0.9},
		{Plan{MaxRounds: 40, Every: 2}, one, 0.03, 1.05, 1000, 0.99},
		{trials, three, 0.02, 1, 2000, 0},
		{trials, three, 0.028, 1, 2000, 0},
		{trials, three, 0.042, 1, 2000, 0},
		{trials, three, 0.028, 1.05, 2000, 0.97},
		{trials, three, 0.042, 1.05, 2000, 0.97},
	} {
		count := map[Verdict]int{}
		failed, same, rounds := 0, 0, 0
		for range c.trials {
			vs, n := simulateGate(t, rng, c.plan, c.gated, c.cv, c.shift)
			if regressed(vs) {
				failed++
			}
			all := true
			for _, v := range vs {
				count[v.Verdict]++
				all = all && v.Verdict == NoChange
			}
			if all {
				same++
			}
			rounds += n
		}
		p, _ := c.plan.WithDefaults()
		n := float64(c.trials)
		t.Logf("%s alpha %.2f, %d gated, rounds %d-%d every %d, min effect %.0f%%, cv %.1f%%, B/A %.2f: gate failed %.2f%%, all no change %.1f%%, verdicts %v, mean rounds %.1f",
			p.Spending, p.Alpha, len(c.gated), p.MinRounds, p.MaxRounds, p.Every, 100*p.MinEffect, 100*c.cv, c.shift, 100*float64(failed)/n, 100*float64(same)/n, count, float64(rounds)/n)
		switch rate := float64(failed) / n; {
		case c.power == 0 && rate > p.Alpha+2*math.Sqrt(p.Alpha*(1-p.Alpha)/n):
			t.Errorf("the gate failed %.2f%% of A/A experiments, want at most %.2f%%", 100*rate, 100*p.Alpha)
		case c.power > 0 && rate < c.power:
			t.Errorf("found in %.1f%%, want at least %.0f%%", 100*rate, 100*c.power)
		}
	}
}
