package main

import (
	"math"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
)

// seriesFlags set the time series every run and sweep point records, the
// server sampling beside it and, for run, the soak verdicts.
type seriesFlags struct {
	interval      time.Duration
	live          bool
	serverPID     int
	serverMetrics string
	metricNames   []string
	// run only
	failOnLeak bool
	soakWarmup time.Duration
}

// flags declares the series and the server sampling, for run and sweep.
func (f *seriesFlags) flags() []flagDecl {
	return []flagDecl{
		{name: "interval", to: &f.interval, def: time.Second, group: "Time series and server", rng: &limit{min: 0.01, max: maxWait.Seconds()}, usage: "length `D` of the buckets of the report's time series"},
		{name: "live", to: &f.live, group: "Time series and server", usage: "print a line per interval on stderr (logfmt: t=, rps=, p99_ms=, errors=, server gauges), for runbooks that tail output; replaces the progress line"},
		// Whether the process runs is checked when sampling starts.
		{name: "server-pid", to: &f.serverPID, group: "Time series and server", rng: atLeastOne(math.MaxInt32), usage: "sample the local server process `PID` once an interval from /proc: rss_bytes, open_fds, threads, cpu_s"},
		{name: "server-metrics", to: &f.serverMetrics, group: "Time series and server", usage: "sample the server's Prometheus endpoint `URL` once an interval: process_resident_memory_bytes, process_open_fds, go_goroutines when present"},
		{name: "server-metric", to: &f.metricNames, group: "Time series and server", usage: "with --server-metrics: also sample metric `NAME` (a gauge or counter; label sets summed); repeatable"},
	}
}

// soakFlags declares run's soak verdicts.
func (f *seriesFlags) soakFlags() []flagDecl {
	return []flagDecl{
		{name: "fail-on-leak", to: &f.failOnLeak, group: "SLO and gates", usage: "exit 1 when a server series grows significantly and materially (a leak verdict); needs --server-pid or --server-metrics"},
		{name: "soak-warmup", to: &f.soakWarmup, group: "Time series and server", rng: durationUpTo(maxRunTime), usage: "leave the first `D` of the series out of the trend verdicts (default: the first tenth of the run)"},
	}
}

// validate checks the flags that go with others.
func (f *seriesFlags) validate() error {
	switch {
	case len(f.metricNames) > 0 && f.serverMetrics == "":
		return usagef("--server-metric goes with --server-metrics URL")
	case f.failOnLeak && f.serverPID == 0 && f.serverMetrics == "":
		return usagef("--fail-on-leak needs a server series: give --server-pid or --server-metrics")
	}
	return nil
}

// sampling is the harness's server sampling the flags ask for.
func (f *seriesFlags) sampling() harness.Sampling {
	return harness.Sampling{PID: f.serverPID, MetricsURL: f.serverMetrics, Metrics: f.metricNames}
}

// apply puts the series settings into a point's generator configuration
// and the harness setup: the interval, the sampling and, with --live, the
// output that prints a line per interval.
func (f *seriesFlags) apply(load *harness.LevelConfig, s *harness.Setup, e env, cmd string) {
	load.Interval = f.interval
	s.Sampling = f.sampling()
	if f.live {
		s.Outputs = append(s.Outputs, liveLines{e: e, cmd: cmd})
	}
}

// soak is how run's verdicts are drawn.
func (f *seriesFlags) soak() results.SoakOptions {
	return results.SoakOptions{Warmup: f.soakWarmup}
}
