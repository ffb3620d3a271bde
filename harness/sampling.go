package harness

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sampler"
)

// The settings of server sampling, for errors and warnings.
const (
	SettingServerPID     Setting = "server pid"
	SettingServerMetrics Setting = "server metrics"
)

// Sampling says what to read from the server once an interval, beside
// the load: a local process from /proc, a Prometheus endpoint, or both.
type Sampling struct {
	PID        int
	MetricsURL string
	// Metrics are read from MetricsURL beside sampler.DefaultMetrics;
	// each must be there.
	Metrics []string
}

// scrapeTimeout bounds the first scrape, which checks the endpoint.
const scrapeTimeout = 10 * time.Second

// openSampling opens the sources s names; nil when it names none. Default
// metrics the endpoint lacks are a warning, not an error.
func openSampling(ctx context.Context, s Sampling, warn func(Setting, error)) (bench.GaugeSource, error) {
	var srcs sampler.Multi
	if s.PID != 0 {
		p, err := sampler.NewProc(s.PID)
		if err != nil {
			return nil, &ConfigError{Setting: SettingServerPID, Err: err}
		}
		srcs = append(srcs, p)
	}
	if s.MetricsURL != "" {
		ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
		defer cancel()
		p, absent, err := sampler.NewProm(ctx, s.MetricsURL, s.Metrics, &http.Client{})
		if err != nil {
			return nil, &ConfigError{Setting: SettingServerMetrics, Err: err}
		}
		if len(absent) > 0 && warn != nil {
			warn(SettingServerMetrics, fmt.Errorf("the endpoint has no %s: not sampled", strings.Join(absent, ", ")))
		}
		srcs = append(srcs, p)
	}
	if len(srcs) == 0 {
		return nil, nil
	}
	return newGauges(srcs, warn), nil
}

// gauges adapts sampler sources to the engine's GaugeSource. A failed
// read leaves a gap in the series and is reported once.
type gauges struct {
	srcs   sampler.Multi
	descr  []measure.ServerSeries
	warn   func(Setting, error)
	warned sync.Once
}

func newGauges(srcs sampler.Multi, warn func(Setting, error)) *gauges {
	g := &gauges{srcs: srcs, warn: warn}
	for _, src := range srcs {
		where := src.Where()
		for _, m := range src.Gauges() {
			kind := measure.GaugeLevel
			if m.Counter {
				kind = measure.GaugeCounter
			}
			g.descr = append(g.descr, measure.ServerSeries{Name: m.Name, Unit: m.Unit, Kind: kind, Source: where})
		}
	}
	return g
}

func (g *gauges) Gauges() []measure.ServerSeries { return g.descr }

func (g *gauges) Read(ctx context.Context, v []float64) {
	err := g.srcs.Read(ctx, v)
	if err != nil && ctx.Err() == nil && g.warn != nil {
		g.warned.Do(func() {
			setting := SettingServerMetrics
			if strings.HasPrefix(err.Error(), "process ") {
				setting = SettingServerPID
			}
			g.warn(setting, fmt.Errorf("a reading failed, the series has a gap there (only the first failure is reported): %w", err))
		})
	}
}
