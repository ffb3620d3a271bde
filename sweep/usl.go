package sweep

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mcpbench/mcpbench/measure"
)

// USL is a fit of Gunther's Universal Scalability Law to throughput against
// concurrency:
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// σ (contention) is the share of work that serialises, κ (coherency) the
// cost of keeping workers consistent with each other, λ the throughput of
// one worker.
//
// PeakConcurrency is sqrt((1−σ)/κ), where the model's throughput is
// highest, and PeakRPS the throughput there. With κ = 0 the model never
// turns down: PeakConcurrency is null and PeakRPS is the ceiling λ/σ it
// approaches (null too when σ = 0, a linear fit with no ceiling). With
// σ ≥ 1 the peak is at one worker.
type USL struct {
	Sigma           float64  `json:"sigma"`
	Kappa           float64  `json:"kappa"`
	Lambda          float64  `json:"lambda"`
	PeakConcurrency *float64 `json:"peak_concurrency"`
	PeakRPS         *float64 `json:"peak_rps"`
	R2              float64  `json:"r2"`
}

// Limits on what FitUSL accepts as a description of the data.
const (
	// uslMinR2: a fit explaining less than half the variance would put a
	// made-up peak in the report.
	uslMinR2 = 0.5
	// uslNegTol: σ and κ are costs, so negative values mean the data scale
	// better than linearly (warm-up, caching), which the law does not
	// describe. Fits whose negative term changes the model's denominator by
	// less than this share at the largest concurrency are noise around zero
	// and are clamped to zero instead.
	uslNegTol = 0.05
	// uslZero: a σ or κ whose term adds less than this to the model's
	// denominator at the largest concurrency is zero.
	uslZero = 1e-9
)

// Predict is the model's throughput at concurrency n.
func (u *USL) Predict(n float64) float64 {
	return uslX(u.Lambda, u.Sigma, u.Kappa, n)
}

func uslX(lambda, sigma, kappa, n float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// FitUSL fits the Universal Scalability Law to the closed-loop points
// (rate points are ignored; repeated concurrencies are averaged). It
// returns nil when the law cannot be fitted honestly: fewer than 3
// distinct concurrencies, a point with zero or non-finite throughput,
// σ or κ clearly negative, or r² below 0.5.
//
// The fit is the linearisation N/X = (1 + σ(N−1) + κN(N−1))/λ solved by
// least squares, refined by Levenberg–Marquardt on the squared relative
// throughput residuals with σ, κ ≥ 0.
func FitUSL(points []measure.Point) *USL {
	for _, p := range points {
		if p.Rate == nil && p.Concurrency > 0 && (!finite(p.RPS) || p.RPS <= 0) {
			return nil
		}
	}
	curve := throughputCurve(points)
	if len(curve) < 3 {
		return nil
	}
	u, err := fitUSL(curve)
	if err != nil {
		return nil
	}
	return u
}

func fitUSL(curve []curvePoint) (*USL, error) {
	nMax := float64(curve[len(curve)-1].n)
	lambda, sigma, kappa, err := linearUSL(curve)
	if err != nil {
		return nil, err
	}
	if sigma*(nMax-1) < -uslNegTol || kappa*nMax*(nMax-1) < -uslNegTol {
		// The free fit bent a coefficient below zero, as it does on a
		// server that scales linearly and then stops at a hard ceiling.
		// Fit with one of σ, κ held at zero instead; only when both ask
		// for a negative slope does the data really scale superlinearly.
		lambda, sigma, kappa, err = boundedLinearUSL(curve)
		if err != nil {
			return nil, err
		}
	}
	sigma, kappa = math.Max(sigma, 0), math.Max(kappa, 0)
	if !(lambda > 0) || !finite(lambda) {
		// The linearisation can fail on odd curves; start from the best
		// per-worker throughput instead.
		lambda = 0
		for _, c := range curve {
			lambda = math.Max(lambda, c.rps/float64(c.n))
		}
	}
	lambda, sigma, kappa, err = refineUSL(curve, lambda, sigma, kappa)
	if err != nil {
		return nil, err
	}
	r2 := rSquared(curve, lambda, sigma, kappa)
	if !finite(r2) || r2 < uslMinR2 {
		return nil, fmt.Errorf("usl: r² %.3g is too low to describe the data", r2)
	}
	u := &USL{Sigma: sigma, Kappa: kappa, Lambda: lambda, R2: r2}
	switch {
	case kappa > 0 && sigma < 1:
		n := math.Sqrt((1 - sigma) / kappa)
		x := u.Predict(n)
		u.PeakConcurrency, u.PeakRPS = &n, &x
	case sigma >= 1:
		n, x := 1.0, lambda
		u.PeakConcurrency, u.PeakRPS = &n, &x
	case sigma > 0:
		x := lambda / sigma
		u.PeakRPS = &x
	}
	return u, nil
}

// linearUSL solves N/X = a + b(N−1) + cN(N−1) by least squares; then
// λ = 1/a, σ = b/a, κ = c/a.
func linearUSL(curve []curvePoint) (lambda, sigma, kappa float64, err error) {
	a := mat.NewDense(len(curve), 3, nil)
	y := mat.NewVecDense(len(curve), nil)
	for i, c := range curve {
		n := float64(c.n)
		a.Set(i, 0, 1)
		a.Set(i, 1, n-1)
		a.Set(i, 2, n*(n-1))
		y.SetVec(i, n/c.rps)
	}
	var coef mat.VecDense
	if err := coef.SolveVec(a, y); err != nil {
		return 0, 0, 0, fmt.Errorf("usl: linear fit: %w", err)
	}
	a0 := coef.AtVec(0)
	if a0 == 0 || !finite(a0) {
		return 0, 0, 0, fmt.Errorf("usl: linear fit gave intercept %g", a0)
	}
	return 1 / a0, coef.AtVec(1) / a0, coef.AtVec(2) / a0, nil
}

// boundedLinearUSL fits N/X = (1 + σ(N−1))/λ and N/X = (1 + κN(N−1))/λ by
// least squares and keeps the better one whose slope is not negative.
func boundedLinearUSL(curve []curvePoint) (lambda, sigma, kappa float64, err error) {
	best := math.Inf(1)
	for _, useKappa := range []bool{false, true} {
		var sx, sy, sxx, sxy float64
		m := float64(len(curve))
		for _, c := range curve {
			n := float64(c.n)
			x := n - 1
			if useKappa {
				x = n * (n - 1)
			}
			y := n / c.rps
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		den := m*sxx - sx*sx
		if den == 0 {
			continue
		}
		slope := (m*sxy - sx*sy) / den
		icept := (sy - slope*sx) / m
		if slope < 0 || !(icept > 0) || !finite(slope) || !finite(icept) {
			continue
		}
		var sse float64
		for _, c := range curve {
			n := float64(c.n)
			x := n - 1
			if useKappa {
				x = n * (n - 1)
			}
			r := n/c.rps - (icept + slope*x)
			sse += r * r
		}
		if sse < best {
			best = sse
			lambda, sigma, kappa = 1/icept, slope/icept, 0
			if useKappa {
				sigma, kappa = 0, slope/icept
			}
		}
	}
	if math.IsInf(best, 1) {
		return 0, 0, 0, fmt.Errorf("usl: superlinear scaling")
	}
	return lambda, sigma, kappa, nil
}

// refineUSL minimises the squared relative throughput residuals from a
// starting estimate by Levenberg–Marquardt, keeping σ and κ at or above
// zero. Relative, because measurement noise in throughput is proportional
// to it (a run of n requests is off by about 1/√n whatever the rate), so
// the high points should not outvote the low ones. The parameters are
// rescaled so each is of order one over the sweep (λ by its start, σ by N,
// κ by N²), which keeps the normal equations well conditioned whatever the
// server's scale.
// (gonum's optimize package would do, but it pulls in a module this one
// does not otherwise need; three parameters do not justify it.)
func refineUSL(curve []curvePoint, lambda0, sigma0, kappa0 float64) (lambda, sigma, kappa float64, err error) {
	const maxIter = 500
	nMax := float64(curve[len(curve)-1].n)
	sScale, kScale := math.Max(nMax-1, 1), math.Max(nMax*(nMax-1), 1)
	unpack := func(p [3]float64) (l, s, k float64) {
		return p[0] * lambda0, p[1] / sScale, p[2] / kScale
	}
	cost := func(p [3]float64) float64 {
		l, s, k := unpack(p)
		var sum float64
		for _, c := range curve {
			r := (c.rps - uslX(l, s, k, float64(c.n))) / c.rps
			sum += r * r
		}
		return sum
	}
	p := [3]float64{1, sigma0 * sScale, kappa0 * kScale}
	cur := cost(p)
	mu := 1e-3
	jac := mat.NewDense(len(curve), 3, nil)
	res := mat.NewVecDense(len(curve), nil)
	for range maxIter {
		l, s, k := unpack(p)
		for i, c := range curve {
			n := float64(c.n)
			d := 1 + s*(n-1) + k*n*(n-1)
			jac.Set(i, 0, lambda0*n/d/c.rps)
			jac.Set(i, 1, -l*n*(n-1)/(d*d)/sScale/c.rps)
			jac.Set(i, 2, -l*n*n*(n-1)/(d*d)/kScale/c.rps)
			res.SetVec(i, (c.rps-uslX(l, s, k, n))/c.rps)
		}
		var jtj mat.Dense
		jtj.Mul(jac.T(), jac)
		var jtr mat.VecDense
		jtr.MulVec(jac.T(), res)
		var improved bool
		if p, cur, mu, improved = dampedStep(&jtj, &jtr, p, cur, mu, cost); !improved {
			break
		}
	}
	lambda, sigma, kappa = unpack(p)
	// Values whose whole effect on the model over the sweep is below
	// rounding are zero; left in, κ = 1e-20 would put a peak at 10¹⁰.
	if sigma*(nMax-1) < uslZero {
		sigma = 0
	}
	if kappa*nMax*(nMax-1) < uslZero {
		kappa = 0
	}
	if !finite(lambda) || !finite(sigma) || !finite(kappa) || lambda <= 0 {
		return 0, 0, 0, fmt.Errorf("usl: refine gave lambda %g sigma %g kappa %g", lambda, sigma, kappa)
	}
	return lambda, sigma, kappa, nil
}

// dampedStep is one Levenberg-Marquardt step from p: it solves the damped
// normal equations, raising the damping mu until a step lowers the cost.
// It returns the new parameters, cost and damping, and whether the fit
// should go on: false when no step helped or the gain was negligible.
func dampedStep(jtj *mat.Dense, jtr *mat.VecDense, p [3]float64, cur, mu float64,
	cost func([3]float64) float64) ([3]float64, float64, float64, bool) {
	const tol = 1e-14
	for mu < 1e12 {
		var a mat.Dense
		a.CloneFrom(jtj)
		for j := range 3 {
			a.Set(j, j, jtj.At(j, j)*(1+mu)+1e-15)
		}
		var step mat.VecDense
		if err := step.SolveVec(&a, jtr); err != nil {
			mu *= 10
			continue
		}
		next := [3]float64{
			math.Max(p[0]+step.AtVec(0), 1e-9),
			math.Max(p[1]+step.AtVec(1), 0),
			math.Max(p[2]+step.AtVec(2), 0),
		}
		if c := cost(next); c < cur {
			done := cur-c <= tol*(1+cur)
			return next, c, mu / 3, !done
		}
		mu *= 4
	}
	return p, cur, mu, false
}

func rSquared(curve []curvePoint, lambda, sigma, kappa float64) float64 {
	var mean float64
	for _, c := range curve {
		mean += c.rps
	}
	mean /= float64(len(curve))
	var ssRes, ssTot float64
	for _, c := range curve {
		r := c.rps - uslX(lambda, sigma, kappa, float64(c.n))
		d := c.rps - mean
		ssRes += r * r
		ssTot += d * d
	}
	if ssTot == 0 {
		// A flat curve: the fit is perfect or it is not.
		if ssRes <= 1e-12*mean*mean*float64(len(curve)) {
			return 1
		}
		return 0
	}
	return 1 - ssRes/ssTot
}
