package harness

import (
	"context"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// abandonedGauge is the running count of abandoned sessions, read at the
// end of each bucket beside the server's gauges so that the report can
// set the server's memory against it (results.AnalyzeAbandoned). It is
// the client's count: a counter, which the soak trends leave out.
type abandonedGauge struct {
	server bench.GaugeSource
	client *mcp.Client
	descr  []measure.ServerSeries
}

// withAbandoned adds the count to g when sessions are abandoned and the
// server is sampled; otherwise g as it is.
func withAbandoned(g bench.GaugeSource, c *mcp.Client, fraction float64) bench.GaugeSource {
	if g == nil || fraction <= 0 {
		return g
	}
	descr := append(g.Gauges()[:len(g.Gauges()):len(g.Gauges())], measure.ServerSeries{
		Name: results.AbandonedSeries, Kind: measure.GaugeCounter, Source: "mcpbench"})
	return &abandonedGauge{server: g, client: c, descr: descr}
}

func (a *abandonedGauge) Gauges() []measure.ServerSeries { return a.descr }

func (a *abandonedGauge) Read(ctx context.Context, v []float64) {
	n := len(a.descr) - 1
	a.server.Read(ctx, v[:n])
	v[n] = float64(a.client.AbandonedSessions())
}

// abandonedCount puts the measured window's abandoned sessions in the
// sessions' figures of a scenario run.
func abandonedCount(p *measure.Point) {
	if p.Sessions != nil {
		p.Sessions.Abandoned = p.Counters["sessions_abandoned"]
	}
}
