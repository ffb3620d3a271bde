package abstat

import "math"

// Metric names a figure of a round, as it appears in reports.
type Metric string

// The metrics a round carries.
const (
	Throughput          Metric = "throughput"
	P50                 Metric = "p50"
	P95                 Metric = "p95"
	P99                 Metric = "p99"
	ErrorRate           Metric = "error_rate"
	ServerCPUPerRequest Metric = "server_cpu_per_request"
)

// Metrics are all metrics, in report order.
var Metrics = []Metric{Throughput, P50, P95, P99, ErrorRate, ServerCPUPerRequest}

// HigherIsBetter says the metric's direction: only throughput gains by
// growing; latency, errors and CPU per request lose.
func (m Metric) HigherIsBetter() bool { return m == Throughput }

// Known says whether m is one of Metrics.
func (m Metric) Known() bool {
	for _, k := range Metrics {
		if k == m {
			return true
		}
	}
	return false
}

// Verdict is what the rounds say about one metric.
type Verdict string

// The verdicts.
const (
	Regression   Verdict = "regression"
	Improvement  Verdict = "improvement"
	NoChange     Verdict = "no_change"
	Inconclusive Verdict = "inconclusive"
)

// MaxLogRatio caps a round's |ln(B/A)|: a round where one side is zero and
// the other not (an error rate of 0 against 0.1%) has an infinite ratio,
// which the rank test only needs to see as the largest; the cap, a factor
// of 1000, keeps the estimate and its interval finite.
var MaxLogRatio = math.Log(1000)

// LogRatios returns ln(b[i]/a[i]) for each round where both figures are
// numbers >= 0. Both zero is no change (0); one zero is ±MaxLogRatio.
// Rounds with a NaN or a negative figure are left out.
func LogRatios(a, b []float64) []float64 {
	n := min(len(a), len(b))
	out := make([]float64, 0, n)
	for i := range n {
		x, y := a[i], b[i]
		if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 {
			continue
		}
		var d float64
		switch {
		case x == 0 && y == 0:
			d = 0
		case x == 0:
			d = MaxLogRatio
		case y == 0:
			d = -MaxLogRatio
		default:
			d = math.Max(-MaxLogRatio, math.Min(MaxLogRatio, math.Log(y/x)))
		}
		out = append(out, d)
	}
	return out
}
