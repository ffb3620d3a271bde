package abstat

import (
	"math"
	"testing"
)

// Published signed-rank results, two-sided.
//   - hollander: R's ?wilcox.test example, from Hollander & Wolfe (1973,
//     p. 29), depression scores before (x) and after (y) a treatment;
//     R prints V = 40, p-value = 0.01953 for alternative = "greater", so
//     the two-sided exact p is 2·10/512 = 0.0390625.
//   - darwin: Darwin's Zea mays height differences (crossed − selfed, eighths
//     of an inch) as given by Fisher (1935); wilcox.test gives V = 96,
//     p-value = 0.04126 (exact: 1352/32768).
//   - wiki: the worked example of Wikipedia's "Wilcoxon signed-rank test"
//     (one zero, one tie): positive rank sum 27; with the zero dropped, the
//     tie-corrected, continuity-corrected normal p-value is 0.6353 (as
//     scipy.stats.wilcoxon(correction=True, mode="approx") prints; R's
//     wilcox.test(exact = FALSE) applies the same corrections). The test
//     takes the exact conditional p there (TestSignedRankTiesExact); the
//     normal one is checked on normalP.
func TestSignedRankPublished(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	hollander := make([]float64, len(x))
	for i := range x {
		hollander[i] = x[i] - y[i]
	}
	darwin := []float64{49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48}
	wikiA := []float64{125, 115, 130, 140, 140, 115, 140, 125, 140, 135}
	wikiB := []float64{110, 122, 125, 120, 140, 124, 123, 137, 135, 145}
	wiki := make([]float64, len(wikiA))
	for i := range wikiA {
		wiki[i] = wikiA[i] - wikiB[i]
	}
	cases := []struct {
		name  string
		d     []float64
		v, p  float64
		exact bool
		n     int
	}{
		{"hollander", hollander, 40, 0.0390625, true, 9},
		{"darwin", darwin, 96, 0.041259765625, true, 15},
	}
	for _, c := range cases {
		r := SignedRankTest(c.d)
		if r.V != c.v || r.N != c.n || r.Exact != c.exact || math.Abs(r.P-c.p) > 1e-6 {
			t.Errorf("%s: got V=%v n=%d exact=%v p=%.7f, want V=%v n=%d exact=%v p=%.7f",
				c.name, r.V, r.N, r.Exact, r.P, c.v, c.n, c.exact, c.p)
		}
	}
	abs := make([]float64, 0, len(wiki))
	for _, x := range wiki {
		if x != 0 {
			abs = append(abs, math.Abs(x))
		}
	}
	_, ties := midranks(abs)
	if p := normalP(len(abs), 27, ties); math.Abs(p-0.6352893) > 1e-6 {
		t.Errorf("wiki: normal p %.7f, want 0.6352893", p)
	}
	if r := SignedRankTest(wiki); r.V != 27 || r.N != 9 || !r.Exact || !r.Ties || r.Zeros != 1 {
		t.Errorf("wiki: got %+v, want V 27 of 9 ranked, exact, ties, one zero", r)
	}
}

// TestSignedRankTiesExact checks the exact conditional p-value under ties
// and zeros against a count of every signing, and that ten tied
// differences of one sign give 2/2^10, which the gate's levels need.
func TestSignedRankTiesExact(t *testing.T) {
	for _, d := range [][]float64{
		{15, -7, 5, 20, 0, -9, 17, -12, 5, -10}, // Wikipedia's example: a zero and a tie
		{1, 1, 1, 2, 2, -1, 3, 3, 3, 3},
		{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
		{-2, 1, 1, 0, 0, 4, 4, 4},
	} {
		r := SignedRankTest(d)
		if want := bySigning(d); !r.Exact || math.Abs(r.P-want) > 1e-12 {
			t.Errorf("%v: p %v (exact %v), want %v", d, r.P, r.Exact, want)
		}
	}
	tied := []float64{1.2, 1.5, 1.2, 1.0, 1.5, 1.2, 1.1, 1.5, 1.2, 1.0}
	if r := SignedRankTest(tied); r.P != 2.0/1024 {
		t.Errorf("ten positive tied differences: p %v, want 2/1024", r.P)
	}
}

// bySigning is the two-sided p-value of d's signed-rank sum counted over
// every signing of its midranks: the definition, by brute force.
func bySigning(d []float64) float64 {
	var abs []float64
	var v float64
	for _, x := range d {
		if x != 0 {
			abs = append(abs, math.Abs(x))
		}
	}
	ranks, _ := midranks(abs)
	k := 0
	for _, x := range d {
		if x != 0 {
			if x > 0 {
				v += ranks[k]
			}
			k++
		}
	}
	n := len(ranks)
	var below, above int
	for mask := 0; mask < 1<<n; mask++ {
		s := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		if s <= v {
			below++
		}
		if s >= v {
			above++
		}
	}
	return math.Min(1, 2*float64(min(below, above))/float64(int(1)<<n))
}

// TestSignedRankSymmetric: flipping every sign keeps the two-sided p.
func TestSignedRankSymmetric(t *testing.T) {
	d := []float64{0.3, -0.1, 0.25, 0.4, -0.05, 0.12, 0.33}
	neg := make([]float64, len(d))
	for i, v := range d {
		neg[i] = -v
	}
	if a, b := SignedRankTest(d), SignedRankTest(neg); a.P != b.P || a.V+b.V != 28 {
		t.Errorf("p %v against %v, V %v + %v, want equal p and V summing to 28", a.P, b.P, a.V, b.V)
	}
	if r := SignedRankTest([]float64{0, 0, math.NaN()}); r.P != 1 || r.N != 0 || r.Zeros != 2 {
		t.Errorf("all zeros: got %+v, want p 1 with 2 zeros", r)
	}
}

// TestSignRankCDF checks the exact distribution against the critical
// values of the standard tables (e.g. Wilcoxon, Katti & Wilcox 1970): the
// largest T with P(V <= T) <= 0.025 is 8 for n = 10, 25 for n = 15 and 52
// for n = 20; and that it is a distribution.
func TestSignRankCDF(t *testing.T) {
	for n, want := range map[int]int{10: 8, 15: 25, 20: 52} {
		cdf := signRankCDF(n)
		if cdf[want] > 0.025 || cdf[want+1] <= 0.025 {
			t.Errorf("n=%d: P(V<=%d)=%v, P(V<=%d)=%v: want the critical value %d", n, want, cdf[want], want+1, cdf[want+1], want)
		}
		if last := cdf[len(cdf)-1]; math.Abs(last-1) > 1e-12 {
			t.Errorf("n=%d: cdf ends at %v", n, last)
		}
	}
}

// TestWalshIntervalDarwin: the Hodges–Lehmann estimate of Darwin's
// differences is 25 (Hollander & Wolfe), and the 95% interval from the
// critical value 25 is the 26th smallest and 26th largest of the 120 Walsh
// averages, 4.0 and 41.5, which is what R's wilcox.test(conf.int = TRUE)
// picks by the same rule.
func TestWalshIntervalDarwin(t *testing.T) {
	d := []float64{49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48}
	iv, ok := WalshInterval(d, 0.95)
	if !ok || !iv.Bounded || iv.Estimate != 25 || iv.Low != 4 || iv.High != 41.5 {
		t.Errorf("got %+v, want estimate 25 in [4, 41.5]", iv)
	}
	if small, _ := WalshInterval(d[:4], 0.95); small.Bounded {
		t.Errorf("4 differences cannot bound a 95%% interval (P(V=0) = 1/16), got %+v", small)
	}
}

func TestLogRatios(t *testing.T) {
	got := LogRatios([]float64{1, 0, 0, 2, math.NaN(), 4}, []float64{math.E, 0, 3, 0, 1, -1})
	want := []float64{1, 0, MaxLogRatio, -MaxLogRatio}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("round %d: got %v, want %v", i, got[i], want[i])
		}
	}
}
