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
	// Alpha is the gate's false-alarm rate over all looks: the chance
	// that equal sides are called a regression on any gated metric
	// (Sequential splits it over them); default 0.01.
	Alpha float64 `json:"alpha"`
	// NoChangeAlpha is each metric's chance, in each direction, of
	// calling a change of MinEffect or more no change; default 0.05.
	NoChangeAlpha float64  `json:"no_change_alpha"`
	MinEffect     float64  `json:"min_effect"` // |B/A − 1| below which a change is no change; default 0.02
	MinRounds     int      `json:"min_rounds"` // rounds before the first look; default 6
	MaxRounds     int      `json:"max_rounds"` // rounds at the last look; default 30
	Every         int      `json:"every"`      // rounds between looks; default 1
	Spending      Spending `json:"spending"`   // default OBrienFleming
}

// WithDefaults fills the zero fields and checks the rest.
func (p Plan) WithDefaults() (Plan, error) {
	if p.Alpha == 0 {
		p.Alpha = 0.01
	}
	if p.NoChangeAlpha == 0 {
		p.NoChangeAlpha = 0.05
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
	case !(p.Alpha > 0 && p.Alpha <= 0.5):
		return p, fmt.Errorf("alpha %v: want a probability in (0, 0.5]", p.Alpha)
	case !(p.NoChangeAlpha > 0 && p.NoChangeAlpha <= 0.5):
		// At 0.5 the two one-sided tests' interval is empty: nothing
		// is called no change (Judge).
		return p, fmt.Errorf("no-change alpha %v: want a probability in (0, 0.5]", p.NoChangeAlpha)
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

// Paired are one metric's figures of A and B, round by round.
type Paired struct{ A, B []float64 }

// Sequential runs a plan's looks over growing rounds.
type Sequential struct {
	plan   Plan
	rounds []int // the round counts of the looks
	// alarm spends, for each metric, its share of the gate's alpha on
	// the two-sided test; same spends NoChangeAlpha on the one-sided ones.
	alarm, same schedule
	gated       []Metric
	looks       int
	results     map[Metric]Result
	decided     map[Metric]bool
}

// schedule is one error rate spent over a plan's looks.
type schedule struct {
	alpha  float64
	shares []float64 // each look's share of alpha
	levels []float64 // each look's level, calibrated to its share
}

// schedule spends alpha over p's looks. The calibration depends only on
// the looks and alpha, so the other fields are cleared for its cache.
func (p Plan) schedule(alpha float64) schedule {
	q := Plan{Alpha: alpha, MinRounds: p.MinRounds, MaxRounds: p.MaxRounds, Every: p.Every, Spending: p.Spending}
	return schedule{alpha: alpha, shares: q.LookAlphas(), levels: q.levels()}
}

// level is look k's level; at an early stop (final before the last look)
// no look follows, so it may spend, at its own level, all that the looks
// before it left.
func (s schedule) level(k int, final bool) float64 {
	if !final || k == len(s.levels)-1 {
		return s.levels[k]
	}
	left := s.alpha
	for _, a := range s.shares[:k] {
		left -= a
	}
	return left
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
	s := &Sequential{plan: plan, gated: gated, results: map[Metric]Result{}, decided: map[Metric]bool{}}
	s.schedules()
	return s, nil
}

// schedules draws the looks and both schedules for the plan.
func (s *Sequential) schedules() {
	s.rounds = s.plan.Looks()
	s.alarm = s.plan.schedule(s.AlarmAlpha())
	s.same = s.plan.schedule(s.plan.NoChangeAlpha)
}

// AlarmAlpha is the two-sided level, over all looks, of each metric's test
// for a change: half of it falls on the regression side, so that the k
// gated metrics together call equal sides a regression at most Alpha of
// the time (Bonferroni: Alpha/k each). Metrics that are not gated are
// judged at the same level. It is at most 0.5, which keeps its intervals
// meaningful (one gated metric at an alpha above 0.25 errs low).
func (s *Sequential) AlarmAlpha() float64 {
	return min(0.5, 2*s.plan.Alpha/float64(len(s.gated)))
}

// Plan is the plan with its defaults filled.
func (s *Sequential) Plan() Plan { return s.plan }

// Refit moves the plan's last look to maxRounds (no more than the plan's
// own, no fewer than its first look) and draws its looks and levels anew.
// It may only be called before the first look: an experiment that learns
// after a few rounds how many its time budget holds plans for those, so
// that its last look spends all of its alpha, where a stop by the budget
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
	s.plan = p
	s.schedules()
	return nil
}

// Due says whether n rounds call for the next look.
func (s *Sequential) Due(n int) bool {
	return s.looks < len(s.rounds) && n >= s.rounds[s.looks]
}

// Look judges every undecided metric of data with the next look's levels;
// a final look (an early stop: the budget spent, an interrupt) with all the
// alpha not yet spent. The last look leaves the undecided inconclusive.
// Look says whether the experiment is over: every gated metric decided,
// or no look left.
func (s *Sequential) Look(data map[Metric]Paired, final bool) bool {
	if s.looks >= len(s.rounds) {
		return true
	}
	lv := Levels{Alarm: s.alarm.level(s.looks, final), NoChange: s.same.level(s.looks, final)}
	s.looks++
	for _, m := range Metrics {
		p, ok := data[m]
		if !ok || s.decided[m] {
			continue
		}
		if r, ok := Judge(m, p.A, p.B, lv, s.plan.MinEffect); ok {
			s.results[m] = r
			s.decided[m] = r.Verdict != Inconclusive
		}
	}
	if final || s.looks == len(s.rounds) {
		s.looks = len(s.rounds)
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

// Blind says whether the plan can never alarm: with n rounds the
// signed-rank test's smallest two-sided p-value is 2/2^n, and a plan of
// few rounds at a small alpha looks last at a level no p-value gets
// below.
func (s *Sequential) Blind() bool {
	n := s.plan.MaxRounds
	return n < exactBelow && math.Ldexp(2, -n) >= s.alarm.levels[len(s.rounds)-1]
}
