package ab

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/abstat"
)

// fake is a seeded stand-in for a load generator and two servers: each
// measurement's figures are lognormal around a base, B's scaled by slow
// (latency and CPU up, throughput down), on a clock of its own that a
// warm-up moves by 0.5 s and a measurement by 1 s. It notes every call.
type fake struct {
	rng   *rand.Rand
	cv    float64
	slow  float64
	clock time.Time
	calls []string // "A warm-up", "A", ...
	cpu   map[Side]*fakeCPU
}

type fakeCPU struct{ seconds float64 }

func (c *fakeCPU) CPUSeconds(context.Context) (float64, error) { return c.seconds, nil }
func (c *fakeCPU) Where() string                               { return "fake" }

func newFake(seed uint64, cv, slow float64) *fake {
	return &fake{
		rng: rand.New(rand.NewPCG(seed, 7)), cv: cv, slow: slow, clock: time.Unix(0, 0),
		cpu: map[Side]*fakeCPU{A: {}, B: {}},
	}
}

func (f *fake) now() time.Time { return f.clock }

func (f *fake) noise() float64 {
	sigma := math.Sqrt(math.Log(1 + f.cv*f.cv))
	return math.Exp(sigma * f.rng.NormFloat64())
}

func (f *fake) measure(_ context.Context, side Side, _ Target, warmup bool, _ *Slices) (Figures, error) {
	if warmup {
		f.calls = append(f.calls, string(side)+" warm-up")
		f.clock = f.clock.Add(500 * time.Millisecond)
		return Figures{}, nil
	}
	f.calls = append(f.calls, string(side))
	f.clock = f.clock.Add(time.Second)
	k := 1.0
	if side == B {
		k = f.slow
	}
	fig := Figures{Requests: 1000, Throughput: 1000 / k * f.noise(), P50MS: 2 * k * f.noise(), P95MS: 5 * k * f.noise(), P99MS: 9 * k * f.noise()}
	f.cpu[side].seconds += 0.0002 * k * f.noise() * float64(fig.Requests)
	return fig, nil
}

func (f *fake) experiment(plan abstat.Plan, seed uint64) Experiment {
	return Experiment{
		A: Target{URL: "a", CPU: f.cpu[A]}, B: Target{URL: "b", CPU: f.cpu[B]},
		Measure: f.measure, Plan: plan, Seed: seed, now: f.now,
	}
}

// TestRoundsInRandomOrder: A/A with 6% noise runs to the plan's last look;
// each round warms up and measures each side once, in the order the round
// records; the orders are drawn from the seed (both occur, the same seed
// gives the same ones, another seed others), and the server's CPU per
// request is the CPU source's difference over the measurement.
func TestRoundsInRandomOrder(t *testing.T) {
	orders := func(seed uint64) ([]string, *Result, *fake) {
		f := newFake(1, 0.06, 1)
		res, err := f.experiment(abstat.Plan{MaxRounds: 16}, seed).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Rounds {
			out = append(out, string(r.Order[0]+r.Order[1]))
		}
		return out, res, f
	}
	first, res, f := orders(42)
	if len(res.Rounds) != 16 || res.Stopped != StopMaxRounds || res.Seed != 42 {
		t.Fatalf("got %d rounds stopped %q seed %d, want 16 to the last look with seed 42", len(res.Rounds), res.Stopped, res.Seed)
	}
	var want []string
	for _, r := range res.Rounds {
		for _, s := range r.Order {
			want = append(want, string(s)+" warm-up", string(s))
		}
		if r.A.ServerCPUPerRequest == nil || *r.A.ServerCPUPerRequest <= 0 || r.B.ServerCPU == nil {
			t.Errorf("round %d: server CPU per request missing", r.Index)
		}
	}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %v, want each round's order %v", f.calls, want)
	}
	ab := 0
	for _, o := range first {
		if o == "AB" {
			ab++
		}
	}
	if ab == 0 || ab == len(first) {
		t.Errorf("orders %v: want both orders drawn", first)
	}
	if again, _, _ := orders(42); !slices.Equal(first, again) {
		t.Errorf("seed 42 drew %v, then %v", first, again)
	}
	if other, _, _ := orders(43); slices.Equal(first, other) {
		t.Errorf("seeds 42 and 43 drew the same orders %v", first)
	}
	for _, v := range res.Verdicts {
		if v.Verdict == abstat.Regression || v.Verdict == abstat.Improvement {
			t.Errorf("A/A: %s judged %s", v.Metric, v.Verdict)
		}
	}
}

// TestRegressionStopsEarly: B 8% slower and dearer with 3% noise is found
// on every gated metric before the last look, and the result says so.
func TestRegressionStopsEarly(t *testing.T) {
	f := newFake(2, 0.03, 1.08)
	res, err := f.experiment(abstat.Plan{MaxRounds: 40}, 5).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopDecided || len(res.Rounds) >= 40 {
		t.Fatalf("stopped %q after %d rounds, want decided before 40", res.Stopped, len(res.Rounds))
	}
	got := map[abstat.Metric]abstat.Verdict{}
	for _, v := range res.Regressions() {
		got[v.Metric] = v.Verdict
		want := 0.08
		if v.Metric == abstat.Throughput {
			want = 1/1.08 - 1
		}
		if math.Abs(v.Change-want) > 0.04 || v.Low > v.Change || v.High < v.Change {
			t.Errorf("%s: change %.3f in [%.3f, %.3f], want about %.3f inside its interval", v.Metric, v.Change, v.Low, v.High, want)
		}
	}
	for _, m := range res.Settings.Gated {
		if got[m] != abstat.Regression {
			t.Errorf("%s: not found a regression (%v)", m, res.Verdicts)
		}
	}
	if len(res.Settings.Gated) != 3 || res.Inconclusive() || !res.GateFailed(false) {
		t.Errorf("gated %v, inconclusive %v, gate failed %v: want throughput, p50 and CPU per request, all decided, the gate failed",
			res.Settings.Gated, res.Inconclusive(), res.GateFailed(false))
	}
}

// TestBudgetStopsRounds: rounds of 3 s (two warm-ups of 0.5 s, two
// measurements of 1 s) within a 20 s budget: after five, the plan of 100
// rounds is refitted to the six that the budget holds, so the sixth is the
// plan's last look, at all of alpha, and the seventh, which would end
// past the budget, never starts.
func TestBudgetStopsRounds(t *testing.T) {
	f := newFake(3, 0.06, 1)
	// alpha 0.075: each of the three gated metrics tested at 0.05.
	e := f.experiment(abstat.Plan{Alpha: 0.075, MaxRounds: 100}, 9)
	e.Budget = 20 * time.Second
	res, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 6 || res.Stopped != StopMaxRounds || res.Seconds > 20 {
		t.Errorf("%d rounds in %.1f s, stopped %q: want 6 within 20 s, at the plan's last look", len(res.Rounds), res.Seconds, res.Stopped)
	}
	if p := res.Settings.Plan; p.MaxRounds != 6 || res.Settings.AskedRounds != 100 {
		t.Errorf("plan of %d rounds, %d asked: want refitted from 100 to 6", p.MaxRounds, res.Settings.AskedRounds)
	}
	if res.GateFailed(false) || !res.GateFailed(true) {
		t.Errorf("inconclusive A/A: gate failed %v, with --fail-on-inconclusive %v: want only the latter", res.GateFailed(false), res.GateFailed(true))
	}
	if len(res.Verdicts) != 6 || !res.Inconclusive() || res.Verdicts[0].Alpha < 0.05 {
		t.Errorf("verdicts %v: want all six metrics judged by the one look, at a level of at least 0.05 (p < level), the gated ones left inconclusive by 6 noisy rounds", res.Verdicts)
	}
	if res.Settings.CannotAlarm {
		t.Error("6 rounds at 0.05 said to be unable to alarm: 2/2^6 is 0.031")
	}
	// At the default alpha, 0.0067 for each of three metrics, the six
	// rounds the budget holds cannot alarm, and the report says so.
	e = newFake(3, 0.06, 1).experiment(abstat.Plan{MaxRounds: 100}, 9)
	e.Budget = 20 * time.Second
	if res, err = e.Run(context.Background()); err != nil || !res.Settings.CannotAlarm {
		t.Errorf("default alpha, 6 rounds: cannot alarm %v (%v), want true", res.Settings.CannotAlarm, err)
	}
}

// TestBudgetFitsThePlan: with a minute's budget the plan of 100 rounds of
// 3 s is refitted after five to 5 + (60 − 15 − 3) / 3 = 19, one fewer
// than would start in time; a plan that fits its budget is left alone;
// and a budget the rounds outrun after the refit still stops them.
func TestBudgetFitsThePlan(t *testing.T) {
	for _, c := range []struct {
		max, want, asked int
		budget           time.Duration
	}{{100, 19, 100, time.Minute}, {12, 12, 0, time.Minute}} {
		f := newFake(4, 0.2, 1) // noisy enough that nothing is decided early
		e := f.experiment(abstat.Plan{MaxRounds: c.max}, 5)
		e.Budget = c.budget
		res, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Settings.Plan; p.MaxRounds != c.want || res.Settings.AskedRounds != c.asked ||
			len(res.Rounds) != c.want || res.Stopped != StopMaxRounds || res.Seconds > c.budget.Seconds() {
			t.Errorf("max %d, budget %s: plan of %d rounds (%d asked), %d rounds in %.0f s, stopped %q; want %d rounds at the plan's last look",
				c.max, c.budget, p.MaxRounds, res.Settings.AskedRounds, len(res.Rounds), res.Seconds, res.Stopped, c.want)
		}
	}
	f := newFake(4, 0.2, 1)
	e := f.experiment(abstat.Plan{MaxRounds: 100}, 5)
	e.Budget = time.Minute
	e.OnRound = func(r Round) {
		if r.Index == 6 {
			f.clock = f.clock.Add(30 * time.Second) // a stall after the refit
		}
	}
	res, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopBudget || res.Seconds > 60 || res.Settings.Plan.MaxRounds != 19 {
		t.Errorf("stalled: %d rounds in %.0f s, stopped %q, plan of %d: want the budget to stop it", len(res.Rounds), res.Seconds, res.Stopped, res.Settings.Plan.MaxRounds)
	}
}

// TestInterruptedAndFailed: a context ended after three rounds leaves
// them judged and "interrupted"; a failed measurement ends the run with its
// error and the rounds before it.
func TestInterruptedAndFailed(t *testing.T) {
	f := newFake(4, 0.06, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := f.experiment(abstat.Plan{}, 1)
	e.OnRound = func(r Round) {
		if r.Index == 3 {
			cancel()
		}
	}
	res, err := e.Run(ctx)
	if err != nil || res.Stopped != StopInterrupted || len(res.Rounds) != 3 || len(res.Verdicts) == 0 {
		t.Errorf("got %v, stopped %q, %d rounds, %d verdicts: want 3 rounds judged, interrupted", err, res.Stopped, len(res.Rounds), len(res.Verdicts))
	}
	broken := errors.New("connection refused")
	e = f.experiment(abstat.Plan{}, 1)
	e.Measure = func(ctx context.Context, s Side, tg Target, warm bool, sl *Slices) (Figures, error) {
		if len(f.calls) > 8 {
			return Figures{}, broken
		}
		return f.measure(ctx, s, tg, warm, sl)
	}
	f.calls = nil
	res, err = e.Run(context.Background())
	if !errors.Is(err, broken) || res.Stopped != StopFailed || len(res.Rounds) != 2 {
		t.Errorf("got %v, stopped %q, %d rounds: want the error after 2 rounds", err, res.Stopped, len(res.Rounds))
	}
}

// TestResultJSON: the report's fields as issue 47 names them.
func TestResultJSON(t *testing.T) {
	f := newFake(5, 0.03, 1.08)
	res, err := f.experiment(abstat.Plan{MaxRounds: 30}, 11).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seed     *uint64          `json:"seed"`
		Settings map[string]any   `json:"settings"`
		Rounds   []map[string]any `json:"rounds"`
		Verdicts []map[string]any `json:"verdicts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed == nil || *doc.Seed != 11 || doc.Settings["plan"] == nil || doc.Settings["gated"] == nil {
		t.Errorf("seed or settings missing: %s", b)
	}
	for _, r := range doc.Rounds {
		for _, k := range []string{"index", "order", "a", "b"} {
			if r[k] == nil {
				t.Fatalf("round without %q: %v", k, r)
			}
		}
		if a := r["a"].(map[string]any); a["throughput"] == nil || a["p95_ms"] == nil || a["server_cpu_per_request_s"] == nil {
			t.Errorf("figures without throughput, p95_ms or server_cpu_per_request_s: %v", a)
		}
	}
	verdicts := []string{"regression", "improvement", "no_change", "inconclusive"}
	for _, v := range doc.Verdicts {
		m, _ := v["metric"].(string)
		if !abstat.Metric(m).Known() || !slices.Contains(verdicts, v["verdict"].(string)) {
			t.Errorf("verdict %v: unknown metric or verdict", v)
		}
		for _, k := range []string{"change", "low", "high"} {
			if _, ok := v[k].(float64); !ok {
				t.Errorf("verdict %v: no number %q", v, k)
			}
		}
	}
}
