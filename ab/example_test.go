package ab_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/abstat"
)

// An experiment whose B answers 10% slower. The Measure here makes up its
// figures; the command's runs the workload against t.URL for a while.
func ExampleExperiment() {
	noise := rand.New(rand.NewPCG(1, 2))
	measure := func(_ context.Context, side ab.Side, _ ab.Target, warmup bool, _ *ab.Slices) (ab.Figures, error) {
		p50 := 2.0 * (1 + 0.03*noise.NormFloat64())
		if side == ab.B {
			p50 *= 1.10
		}
		return ab.Figures{Requests: 1000, Throughput: 500 / p50, P50MS: p50, P95MS: 2 * p50, P99MS: 3 * p50}, nil
	}
	res, err := ab.Experiment{
		A: ab.Target{URL: "http://127.0.0.1:3001/mcp"}, B: ab.Target{URL: "http://127.0.0.1:3002/mcp"},
		Measure: measure, Seed: 47, Plan: abstat.Plan{MaxRounds: 20},
	}.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stopped: %s after %d rounds; gate failed: %v\n", res.Stopped, len(res.Rounds), res.GateFailed(false))
	for _, v := range res.Verdicts {
		if v.Metric == abstat.P50 || v.Metric == abstat.Throughput {
			fmt.Printf("%s: %s, %+.0f%%\n", v.Metric, v.Verdict, 100*v.Change)
		}
	}
	// Output:
	// stopped: decided after 13 rounds; gate failed: true
	// throughput: regression, -11%
	// p50: regression, +12%
}
