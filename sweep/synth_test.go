package sweep

import (
	"math"
	"math/rand/v2"

	"github.com/mcpbench/mcpbench/measure"
)

// sweepValues are the concurrencies the knee tests sweep.
var sweepValues = []int{1, 2, 4, 6, 8, 10, 12, 16, 24, 32}

// capacityServer models a server with k handler slots and a mean service
// time of svc seconds under a closed loop: throughput min(c,k)/svc, and
// above capacity the extra workers queue, so latency grows as c·svc/k.
type capacityServer struct {
	k   int
	svc float64
	// jitter returns the measured throughput for a true one; nil = exact.
	jitter func(rps float64) float64
}

func (s capacityServer) point(c int) measure.Point {
	rps := float64(min(c, s.k)) / s.svc
	if s.jitter != nil {
		rps = s.jitter(rps)
	}
	meanMS := 1000 * s.svc * math.Max(1, float64(c)/float64(s.k))
	p := measure.Point{Concurrency: c, RPS: rps}
	p.Requests, p.OK = 1000, 1000
	p.P50MS, p.P95MS, p.P99MS, p.MaxMS = meanMS, 1.5*meanMS, 2*meanMS, 3*meanMS
	return p
}

func (s capacityServer) sweep(values []int) []measure.Point {
	out := make([]measure.Point, 0, len(values))
	for _, c := range values {
		out = append(out, s.point(c))
	}
	return out
}

// gaussianJitter perturbs throughput by a normal relative error.
func gaussianJitter(r *rand.Rand, rel float64) func(float64) float64 {
	return func(x float64) float64 { return x * (1 + rel*r.NormFloat64()) }
}

// expJitter measures throughput the way a short run of an exponential
// service would: the rate implied by the mean of n exponential service
// times, so the relative error is about 1/sqrt(n).
func expJitter(r *rand.Rand, n int) func(float64) float64 {
	return func(x float64) float64 {
		var sum float64
		for range n {
			sum += r.ExpFloat64()
		}
		return x / (sum / float64(n))
	}
}

// uslPoints samples X(N) = λN/(1+σ(N−1)+κN(N−1)) at ns, with optional
// relative noise.
func uslPoints(lambda, sigma, kappa float64, ns []int, r *rand.Rand, rel float64) []measure.Point {
	out := make([]measure.Point, 0, len(ns))
	for _, n := range ns {
		x := uslX(lambda, sigma, kappa, float64(n))
		if r != nil {
			x *= 1 + rel*r.NormFloat64()
		}
		out = append(out, measure.Point{Concurrency: n, RPS: x})
	}
	return out
}

func ratePoint(rate, achieved, p95, p99, errRate float64) measure.Point {
	p := measure.Point{Rate: &rate, RPS: achieved}
	p.P50MS, p.P95MS, p.P99MS = p95/2, p95, p99
	p.ErrorRate = errRate
	return p
}

func seqInts(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}
