package abstat

import "math"

// Result is one metric's verdict.
type Result struct {
	Metric  Metric  `json:"metric"`
	Verdict Verdict `json:"verdict"`
	Change  float64 `json:"change"` // estimated B/A − 1
	// Low and High are the interval of Change at confidence 1 − 2·Alpha
	// for NoChange (two one-sided tests at Alpha each), else 1 − Alpha
	// (the two-sided test's).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	P    float64 `json:"p"` // the signed-rank test's two-sided p-value
	// Alpha is the level that judged it: each one-sided test's for
	// NoChange, else the two-sided test's (Levels).
	Alpha  float64 `json:"alpha"`
	Rounds int     `json:"rounds"` // rounds judged
}

// Levels are one look's two levels. Alarm is the two-sided signed-rank
// test's, which a regression or an improvement must pass; NoChange is
// each of the two one-sided tests' that together make no change. They
// differ because the errors do: an alarm on equal sides fails a gate
// (and Alarm is a share of the gate's alpha), while no change called
// for a real change of the minimum effect lets one through.
type Levels struct{ Alarm, NoChange float64 }

// Judge judges one metric's rounds (figures a of A and b of B, paired by
// index) at one look's levels with the given minimum effect. The verdict
// is Inconclusive when undecided; ok is false when no round has both
// figures.
func Judge(m Metric, a, b []float64, lv Levels, minEffect float64) (Result, bool) {
	d := LogRatios(a, b)
	iv, ok := WalshInterval(d, 1-lv.Alarm)
	if !ok {
		return Result{Metric: m, Verdict: Inconclusive}, false
	}
	t := SignedRankTest(d)
	r := Result{
		Metric: m, Verdict: Inconclusive, P: t.P, Alpha: lv.Alarm, Rounds: len(d),
		Change: math.Expm1(iv.Estimate), Low: math.Expm1(iv.Low), High: math.Expm1(iv.High),
	}
	if t.P < lv.Alarm && math.Abs(r.Change) >= minEffect && iv.Bounded {
		r.Verdict = Improvement
		if (r.Change > 0) != m.HigherIsBetter() {
			r.Verdict = Regression
		}
		return r, true
	}
	// No change is two one-sided tests (TOST), each at NoChange: the
	// change is below +minEffect and above −minEffect, which is the
	// 1 − 2·NoChange interval lying within ± minEffect.
	if eq, ok := WalshInterval(d, 1-2*lv.NoChange); lv.NoChange < 0.5 && ok && eq.Bounded {
		low, high := math.Expm1(eq.Low), math.Expm1(eq.High)
		if low > -minEffect && high < minEffect {
			r.Verdict, r.Low, r.High, r.Alpha = NoChange, low, high, lv.NoChange
		}
	}
	return r, true
}
