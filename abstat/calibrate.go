package abstat

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// The calibration's Monte Carlo: how many null paths, and the fewest
// alarms that the alpha spent so far must come to before the paths set a
// look's level (below that the estimate is too rough, and the look keeps
// the union bound's level, its share itself).
const (
	calibrationPaths = 20000
	minCalibrated    = 25
	// calibrationWork bounds the Walsh sums a calibration counts, so that
	// a long plan takes fewer paths (down to minPaths) rather than
	// minutes: 20,000 paths up to 173 rounds.
	calibrationWork = 3e8
	minPaths        = 4000
)

// pathsFor is how many null experiments calibrate a plan of n rounds.
func pathsFor(n int) int {
	return max(minPaths, min(calibrationPaths, int(calibrationWork/(float64(n)*float64(n+1)/2))))
}

var calibrations sync.Map // Plan -> []float64

// nullPath is one experiment under H0 as the signed-rank test sees it.
// With the differences independent, continuous and symmetric about zero,
// the signs are fair coins independent of the ranks of the sizes, and the
// ranks of the sizes are those of independent uniforms, whatever the
// distribution: so uniforms on (-1, 1) give the exact joint law of the
// statistic over the looks. V is counted as the number of Walsh sums
// d_i + d_j (i <= j) above zero, which is the sum of the positive ranks,
// one new round at a time. It writes each look's two-sided p-value.
func nullPath(rng *rand.Rand, looks []int, d, p []float64) {
	v, k := 0, 0
	for n := range d {
		d[n] = 2*rng.Float64() - 1
		for i := 0; i <= n; i++ {
			if d[i]+d[n] > 0 {
				v++
			}
		}
		if n+1 == looks[k] {
			if n+1 < exactBelow {
				p[k] = exactP(n+1, float64(v))
			} else {
				p[k] = normalP(n+1, float64(v), nil)
			}
			k++
		}
	}
}

// levels are the nominal levels of the plan's looks: the largest at which
// the chance that look k is the first to reject, under H0, is at most its
// share a_k of alpha, estimated from pathsFor(MaxRounds) null experiments
// drawn from a fixed seed (so every run of a plan uses the same levels).
// The union bound's levels are the a_k themselves; these are higher,
// since looks that share rounds mostly reject together, and so find more.
func (p Plan) levels() []float64 {
	if c, ok := calibrations.Load(p); ok {
		return c.([]float64)
	}
	looks, shares := p.Looks(), p.LookAlphas()
	rng := rand.New(rand.NewPCG(0x0ab5_7a75, uint64(p.MaxRounds)))
	paths := pathsFor(p.MaxRounds)
	// pv[path][look]. float64, as Judge computes them: a level must sit
	// exactly at one of the exact test's discrete p-values, or an atom of
	// paths would alarm in Judge that did not here.
	pv := make([][]float64, paths)
	d := make([]float64, p.MaxRounds)
	for i := range pv {
		pv[i] = make([]float64, len(looks))
		nullPath(rng, looks, d, pv[i])
	}
	alive := make([]bool, len(pv))
	for i := range alive {
		alive[i] = true
	}
	levels := make([]float64, len(looks))
	var ps []float64
	spent, rejected := 0.0, 0
	for k := range looks {
		ps = ps[:0]
		for i, a := range alive {
			if a {
				ps = append(ps, pv[i][k])
			}
		}
		slices.Sort(ps)
		spent += shares[k]
		levels[k] = shares[k]
		// The paths may alarm first here as often as the looks so far may
		// have alarmed in all, less those that already did: counting in
		// total keeps the rounding of small shares from adding up over
		// many looks. The total aims one Monte Carlo standard error low,
		// so that the paths' own noise errs on the side of fewer alarms.
		expected := spent * float64(paths)
		target := int(expected - math.Sqrt(expected))
		fitted := false
		if allowed := target - rejected; target >= minCalibrated && allowed > 1 && allowed <= len(ps) {
			// p < ps[allowed-1] holds for at most allowed-1 of these
			// paths; a level fitted to them alarms, on new experiments,
			// about one path's worth more (the (m+1)-th smallest of N
			// uniforms has mean (m+1)/(N+1)), so allowed in all.
			levels[k] = max(shares[k], ps[allowed-1])
			fitted = true
		}
		for i, a := range alive {
			if a && pv[i][k] < levels[k] {
				alive[i] = false
				rejected++
			}
		}
		if fitted {
			rejected++ // that one path's worth, so later looks do not take it back
		}
	}
	calibrations.Store(p, levels)
	return levels
}
