package sweep

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

// lat builds a closed-loop point with the figures the SLO looks at.
func lat(c int, rps, p95, p99, errRate float64) measure.Point {
	p := measure.Point{Concurrency: c, RPS: rps}
	p.P50MS, p.P95MS, p.P99MS, p.ErrorRate = p95/2, p95, p99, errRate
	return p
}

func intp(v int) *int           { return &v }
func floatp(v float64) *float64 { return &v }

func TestRecommendConcurrency(t *testing.T) {
	slo := SLO{P95MS: 70, P99MS: 100}
	tests := []struct {
		name        string
		points      []measure.Point
		slo         SLO
		recommended *int
		maxFeasible *int
		feasible    []int
		reason      []string // substrings
	}{
		{
			name:   "capacity server",
			points: capacityServer{k: 8, svc: 0.020}.sweep(sweepValues),
			slo:    SLO{P95MS: 50, P99MS: 70},
			// Latency grows as c·20/8 ms above 8, so p95 = 1.5×mean passes
			// 50 ms between 12 (45 ms) and 16 (60 ms).
			recommended: intp(8), maxFeasible: intp(12), feasible: []int{1, 2, 4, 6, 8, 10, 12},
			reason: []string{"concurrency 8 met the SLO with the best feasible throughput (400.0 rps)", "held up to concurrency 12 and broke at 16", "p95 was 60.0 ms, above the 50 ms target"},
		},
		{
			name:        "within 5% picks the cheaper level",
			points:      []measure.Point{lat(1, 100, 10, 20, 0), lat(2, 190, 12, 20, 0), lat(4, 385, 20, 30, 0), lat(8, 400, 60, 90, 0), lat(16, 390, 140, 200, 0)},
			slo:         slo,
			recommended: intp(4), maxFeasible: intp(8), feasible: []int{1, 2, 4, 8},
			reason: []string{"concurrency 4", "385.0 rps against 400.0 rps at concurrency 8", "broke at 16 (p95 was 140.0 ms, above the 70 ms target, p99 was 200.0 ms, above the 100 ms target)"},
		},
		{
			name:        "best is the recommendation",
			points:      []measure.Point{lat(1, 100, 10, 20, 0), lat(2, 150, 12, 20, 0), lat(4, 300, 50, 80, 0), lat(8, 310, 90, 120, 0)},
			slo:         slo,
			recommended: intp(4), maxFeasible: intp(4), feasible: []int{1, 2, 4},
			reason: []string{"concurrency 4 met the SLO with the best feasible throughput (300.0 rps)"},
		},
		{
			name:        "all feasible",
			points:      []measure.Point{lat(1, 100, 10, 20, 0), lat(2, 200, 10, 20, 0), lat(4, 400, 10, 20, 0)},
			slo:         slo,
			recommended: intp(4), maxFeasible: intp(4), feasible: []int{1, 2, 4},
			reason: []string{"every load up to the largest measured (4) met the SLO", "extend the sweep"},
		},
		{
			name:     "service time above target at concurrency 1",
			points:   []measure.Point{lat(1, 11, 85.2, 90, 0), lat(2, 22, 88, 95, 0)},
			slo:      slo,
			feasible: []int{},
			reason:   []string{"no point met the SLO: at concurrency 1 (the lightest load) p95 was 85.2 ms, above the 70 ms target; lower load will not help — the server's service time alone exceeds the target"},
		},
		{
			name:     "lightest measured is not 1",
			points:   []measure.Point{lat(40, 11, 85.2, 90, 0), lat(80, 22, 88, 95, 0)},
			slo:      slo,
			feasible: []int{},
			reason:   []string{"at concurrency 40 (the lightest load) p95 was 85.2 ms", "try lower loads"},
		},
		{
			name: "errors at every level",
			points: func() []measure.Point {
				p := lat(1, 100, 10, 20, 0.02)
				p.ErrorsByKind = map[string]int64{"timeout": 3, "http_status": 17}
				return []measure.Point{p, lat(2, 200, 10, 20, 0.05)}
			}(),
			slo:      slo,
			feasible: []int{},
			reason:   []string{"error rate was 2%, above the 0% allowed", "most errors were http_status"},
		},
		{
			name:        "errors allowed up to 5%",
			points:      []measure.Point{lat(1, 100, 10, 20, 0.02), lat(2, 200, 10, 20, 0.06)},
			slo:         SLO{P95MS: 70, P99MS: 100, MaxErrorRate: 0.05},
			recommended: intp(1), maxFeasible: intp(1), feasible: []int{1},
			reason: []string{"error rate was 6%, above the 5% allowed"},
		},
		{
			name:        "no latency bounds",
			points:      []measure.Point{lat(1, 100, 1000, 2000, 0), lat(2, 200, 5000, 9000, 0)},
			slo:         SLO{},
			recommended: intp(2), maxFeasible: intp(2), feasible: []int{1, 2},
		},
		{
			name:     "nothing measured",
			feasible: []int{},
			reason:   []string{"no points were measured"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Recommend(tt.points, tt.slo, nil)
			if !eqPtr(got.RecommendedConcurrency, tt.recommended) || !eqPtr(got.MaxFeasibleConcurrency, tt.maxFeasible) {
				t.Errorf("recommended %v max feasible %v, want %v %v", deref(got.RecommendedConcurrency), deref(got.MaxFeasibleConcurrency), deref(tt.recommended), deref(tt.maxFeasible))
			}
			if !slices.Equal(got.FeasibleConcurrency, tt.feasible) || got.FeasibleConcurrency == nil {
				t.Errorf("feasible %v, want %v", got.FeasibleConcurrency, tt.feasible)
			}
			if got.MaxSustainableRPS != nil {
				t.Errorf("max_sustainable_rps %v on a concurrency sweep", *got.MaxSustainableRPS)
			}
			for _, want := range tt.reason {
				if !strings.Contains(got.Reason, want) {
					t.Errorf("reason %q\nwant it to contain %q", got.Reason, want)
				}
			}
		})
	}
}

func TestRecommendRate(t *testing.T) {
	slo := SLO{P95MS: 50, P99MS: 100}
	tests := []struct {
		name   string
		points []measure.Point
		want   *float64
		rates  []float64
		reason []string
	}{
		{
			name: "saturates at 400",
			points: []measure.Point{
				ratePoint(100, 100, 20, 30, 0), ratePoint(200, 199.5, 21, 32, 0),
				ratePoint(400, 397, 40, 80, 0), ratePoint(800, 410, 900, 1500, 0),
			},
			// Sustained at 400 offered, but the server delivered 397: that,
			// not the offer, is what it sustains.
			want: floatp(397), rates: []float64{100, 200, 400},
			reason: []string{"400 rps is the highest offered rate the server sustained", "at 800 rps it broke (achieved 410.0 rps, p95 was 900.0 ms"},
		},
		{
			name: "achieved below 99% but latency fine",
			points: []measure.Point{
				ratePoint(100, 100, 20, 30, 0), ratePoint(200, 190, 21, 32, 0),
			},
			want: floatp(100), rates: []float64{100},
			reason: []string{"at 200 rps it broke (achieved 190.0 rps)"},
		},
		{
			name:   "lightest rate not delivered",
			points: []measure.Point{ratePoint(100, 50, 20, 30, 0)},
			reason: []string{"no offered rate was sustained: at 100 rps (the lightest offered) the server completed only 50.0 rps (50%)"},
		},
		{
			name:   "lightest rate too slow",
			points: []measure.Point{ratePoint(10, 10, 85.2, 90, 0)},
			reason: []string{"no point met the SLO: at rate 10 rps (the lightest load) p95 was 85.2 ms, above the 50 ms target"},
		},
		{
			// 400 missed though 500 to 700 passed: the top figure alone
			// would hide that the limit moved (issue 19, point 10).
			name: "a lighter rate failed",
			points: []measure.Point{
				ratePoint(300, 300, 20, 30, 0), ratePoint(400, 400, 60, 140, 0), ratePoint(500, 499, 25, 40, 0),
				ratePoint(600, 598, 30, 50, 0), ratePoint(700, 697, 35, 60, 0), ratePoint(800, 700, 900, 1500, 0),
			},
			want: floatp(697), rates: []float64{300, 500, 600, 700},
			reason: []string{"700 rps is the highest offered rate",
				"but the lighter 400 rps (p95 was 60.0 ms, above the 50 ms target, p99 was 140.0 ms, above the 100 ms target) failed although 700 rps passed: the limit moved during the sweep",
				"at 800 rps it broke"},
		},
		{
			name:   "all sustained",
			points: []measure.Point{ratePoint(10, 10, 5, 6, 0), ratePoint(20.5, 20.5, 5, 6, 0)},
			want:   floatp(20.5), rates: []float64{10, 20.5},
			reason: []string{"20.5 rps is the highest", "extend the sweep"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Recommend(tt.points, slo, nil)
			if !eqPtr(got.MaxSustainableRPS, tt.want) {
				t.Errorf("max_sustainable_rps %v, want %v", deref(got.MaxSustainableRPS), deref(tt.want))
			}
			if !slices.Equal(got.FeasibleRates, tt.rates) {
				t.Errorf("feasible rates %v, want %v", got.FeasibleRates, tt.rates)
			}
			if got.RecommendedConcurrency != nil || len(got.FeasibleConcurrency) != 0 {
				t.Errorf("concurrency fields set on a rate sweep: %+v", got)
			}
			for _, want := range tt.reason {
				if !strings.Contains(got.Reason, want) {
					t.Errorf("reason %q\nwant it to contain %q", got.Reason, want)
				}
			}
		})
	}
}

func TestRecommendationJSON(t *testing.T) {
	b, err := json.Marshal(Recommend(nil, SLO{}, &Knee{Concurrency: 8, Method: KneeKneedle}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"recommended_concurrency":null,"max_feasible_concurrency":null,"feasible_concurrency":[],"knee_concurrency":8,"max_sustainable_rps":null,"reason":"no points were measured"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func eqPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
