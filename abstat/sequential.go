package abstat

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Spending names an alpha-spending function (see the package doc).
type Spending string

// The spending functions.
const (
	Pocock        Spending = "pocock"
	OBrienFleming Spending = "obrien-fleming"
)

// spent is f(t): the share of alpha spent by information fraction t.
func (s Spending) spent(alpha, t float64) float64 {
	t = math.Max(0, math.Min(1, t))
	if t == 0 {
		return 0
	}
	if s == OBrienFleming {
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		return 2 - 2*distuv.UnitNormal.CDF(z/math.Sqrt(t))
	}
	return alpha * math.Log(1+(math.E-1)*t)
}

// MaxRounds bounds a plan's rounds: its calibration and each look's
// Walsh averages grow with the square of the rounds.
const MaxRounds = 1000

// Plan is a sequential experiment's design.
type Plan struct {
	Alpha     float64  `json:"alpha"`      // false-alarm rate over all looks; default 0.05
	MinEffect float64  `json:"min_effect"` // |B/A − 1| below which a change is no change; default 0.02
	MinRounds int      `json:"min_rounds"` // rounds before the first look; default 6
	MaxRounds int      `json:"max_rounds"` // rounds at the last look; default 30
	Every     int      `json:"every"`      // rounds between looks; default 1
	Spending  Spending `json:"spending"`   // default OBrienFleming
}

// WithDefaults fills the zero fields and checks the rest.
func (p Plan) WithDefaults() (Plan, error) {
	if p.Alpha == 0 {
		p.Alpha = 0.05
	}
	if p.MinEffect == 0 {
		p.MinEffect = 0.02
	}
	if p.MinRounds == 0 {
		p.MinRounds = 6
		if p.MaxRounds > 0 {
			p.MinRounds = max(2, min(6, p.MaxRounds))
		}
	}
	if p.MaxRounds == 0 {
		p.MaxRounds = max(30, p.MinRounds)
	}
	if p.Every == 0 {
		p.Every = 1
	}
	if p.Spending == "" {
		p.Spending = OBrienFleming
	}
	switch {
	case !(p.Alpha > 0 && p.Alpha < 1):
		return p, fmt.Errorf("alpha %v: want a probability in (0, 1)", p.Alpha)
	case !(p.MinEffect > 0 && p.MinEffect < 1):
		return p, fmt.Errorf("minimum effect %v: want a fraction in (0, 1)", p.MinEffect)
	case p.MinRounds < 2:
		return p, fmt.Errorf("minimum rounds %d: want at least 2", p.MinRounds)
	case p.MaxRounds < p.MinRounds:
		return p, fmt.Errorf("maximum rounds %d is below the minimum %d", p.MaxRounds, p.MinRounds)
	case p.MaxRounds > MaxRounds:
		return p, fmt.Errorf("maximum rounds %d: want at most %d", p.MaxRounds, MaxRounds)
	case p.Every < 1:
		return p, fmt.Errorf("rounds between looks %d: want at least 1", p.Every)
	case p.Spending != Pocock && p.Spending != OBrienFleming:
		return p, fmt.Errorf("spending %q: want %s or %s", p.Spending, Pocock, OBrienFleming)
	}
	return p, nil
}

// Looks are the round counts at which the plan looks: MinRounds, then
// every Every rounds, and MaxRounds last.
func (p Plan) Looks() []int {
	var looks []int
	for n := p.MinRounds; n < p.MaxRounds; n += p.Every {
		looks = append(looks, n)
	}
	return append(looks, p.MaxRounds)
}

// LookAlphas are the levels of the looks, in order: the increments of the
// spending function, which add up to Alpha.
func (p Plan) LookAlphas() []float64 {
	looks := p.Looks()
	out := make([]float64, len(looks))
	prev := 0.0
	for i, n := range looks {
		f := p.Spending.spent(p.Alpha, float64(n)/float64(p.MaxRounds))
		out[i] = f - prev
		prev = f
	}
	return out
}

// Result is one metric's verdict.
type Result struct {
	Metric  Metric  `json:"metric"`
	Verdict Verdict `json:"verdict"`
	Change  float64 `json:"change"` // estimated B/A − 1
	// Low and High are the interval of Change that decided the verdict:
	// at confidence 1 − 2·Alpha for NoChange (two one-sided tests at
	// Alpha each), else 1 − Alpha (the two-sided test's).
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	P      float64 `json:"p"`      // the signed-rank test's two-sided p-value
	Alpha  float64 `json:"alpha"`  // the level of the look that judged it
	Rounds int     `json:"rounds"` // rounds judged
}

// Judge judges one metric's rounds (figures a of A and b of B, paired by
// index) at level alpha with the given minimum effect. The verdict is
// Inconclusive when undecided; ok is false when no round has both figures.
func Judge(m Metric, a, b []float64, alpha, minEffect float64) (Result, bool) {
	d := LogRatios(a, b)
	iv, ok := WalshInterval(d, 1-alpha)
	if !ok {
		return Result{Metric: m, Verdict: Inconclusive}, false
	}
	t := SignedRankTest(d)
	r := Result{
		Metric: m, Verdict: Inconclusive, P: t.P, Alpha: alpha, Rounds: len(d),
		Change: math.Expm1(iv.Estimate), Low: math.Expm1(iv.Low), High: math.Expm1(iv.High),
	}
	switch {
	case t.P < alpha && math.Abs(r.Change) >= minEffect && iv.Bounded:
		worse := (r.Change > 0) != m.HigherIsBetter()
		r.Verdict = Improvement
		if worse {
			r.Verdict = Regression
		}
	default:
		// No change is two one-sided tests (TOST), each at alpha: the
		// change is below +minEffect and above −minEffect, which is the
		// 1 − 2·alpha interval lying within ± minEffect.
		if eq, ok := WalshInterval(d, 1-2*alpha); alpha < 0.5 && ok && eq.Bounded {
			low, high := math.Expm1(eq.Low), math.Expm1(eq.High)
			if low > -minEffect && high < minEffect {
				r.Verdict, r.Low, r.High = NoChange, low, high
			}
		}
	}
	return r, true
}

// Paired are one metric's figures of A and B, round by round.
type Paired struct{ A, B []float64 }

// Sequential runs a plan's looks over growing rounds.
type Sequential struct {
	plan    Plan
	rounds  []int     // the round counts of the looks
	alphas  []float64 // each look's share of Alpha
	levels  []float64 // each look's nominal level, calibrated to its share
	gated   []Metric
	looks   int
	spent   float64 // alpha spent by the looks so far
	results map[Metric]Result
	decided map[Metric]bool
}

// NewSequential starts a sequential judgement; the experiment ends early
// only when every gated metric is decided.
func NewSequential(plan Plan, gated []Metric) (*Sequential, error) {
	plan, err := plan.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(gated) == 0 {
		return nil, errors.New("no gated metric")
	}
	for _, m := range gated {
		if !m.Known() {
			return nil, fmt.Errorf("unknown metric %q", m)
		}
	}
	return &Sequential{
		plan: plan, rounds: plan.Looks(), alphas: plan.LookAlphas(), levels: plan.levels(), gated: gated,
		results: map[Metric]Result{}, decided: map[Metric]bool{},
	}, nil
}

// Plan is the plan with its defaults filled.
func (s *Sequential) Plan() Plan { return s.plan }

// Refit moves the plan's last look to maxRounds (no more than the plan's
// own, no fewer than its first look) and draws its looks and levels anew.
// It may only be called before the first look: an experiment that learns
// after a few rounds how many its time budget holds plans for those, so
// that its last look spends all of Alpha, where a stop by the budget
// before the planned last look could spend only what the union bound
// allows. The rounds' figures play no part, so the error rates hold.
func (s *Sequential) Refit(maxRounds int) error {
	if s.looks > 0 {
		return errors.New("refit after a look")
	}
	p := s.plan
	p.MaxRounds = max(p.MinRounds, min(p.MaxRounds, maxRounds))
	if p == s.plan {
		return nil
	}
	s.plan, s.rounds, s.alphas, s.levels = p, p.Looks(), p.LookAlphas(), p.levels()
	return nil
}

// Due says whether n rounds call for the next look.
func (s *Sequential) Due(n int) bool {
	return s.looks < len(s.rounds) && n >= s.rounds[s.looks]
}

// Look judges every undecided metric of data with the next look's level;
// a final look (an early stop: the budget spent, an interrupt) with all the
// alpha not yet spent. The last look leaves the undecided inconclusive.
// Look says whether the experiment is over: every gated metric decided,
// or no look left.
func (s *Sequential) Look(data map[Metric]Paired, final bool) bool {
	if s.looks >= len(s.alphas) {
		return true
	}
	alpha := s.levels[s.looks]
	s.spent += s.alphas[s.looks]
	if final && s.looks < len(s.alphas)-1 {
		// An early stop: no look follows, so this one may spend, at its
		// own level, all that the looks before it left.
		alpha = s.plan.Alpha - (s.spent - s.alphas[s.looks])
	}
	s.looks++
	for _, m := range Metrics {
		p, ok := data[m]
		if !ok || s.decided[m] {
			continue
		}
		if r, ok := Judge(m, p.A, p.B, alpha, s.plan.MinEffect); ok {
			s.results[m] = r
			s.decided[m] = r.Verdict != Inconclusive
		}
	}
	if final || s.looks == len(s.alphas) {
		s.looks = len(s.alphas)
		return true
	}
	for _, m := range s.gated {
		if !s.decided[m] {
			return false
		}
	}
	return true
}

// Verdicts are the latest results, in the order of Metrics.
func (s *Sequential) Verdicts() []Result {
	var out []Result
	for _, m := range Metrics {
		if r, ok := s.results[m]; ok {
			out = append(out, r)
		}
	}
	return out
}
