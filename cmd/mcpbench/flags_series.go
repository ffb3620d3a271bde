package main

import (
	"math"
	"time"

	"github.com/spf13/pflag"

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

func (f *seriesFlags) register(fs *pflag.FlagSet, run bool) {
	fs.DurationVar(&f.interval, "interval", time.Second, "length `D` of the buckets of the report's time series")
	fs.BoolVar(&f.live, "live", false, "print a line per interval on stderr (logfmt: t=, rps=, p99_ms=, errors=, server gauges), for runbooks that tail output; replaces the progress line")
	fs.IntVar(&f.serverPID, "server-pid", 0, "sample the local server process `PID` once an interval from /proc: rss_bytes, open_fds, threads, cpu_s")
	fs.StringVar(&f.serverMetrics, "server-metrics", "", "sample the server's Prometheus endpoint `URL` once an interval: process_resident_memory_bytes, process_open_fds, go_goroutines when present")
	fs.StringArrayVar(&f.metricNames, "server-metric", nil, "with --server-metrics: also sample metric `NAME` (a gauge or counter; label sets summed); repeatable")
	if run {
		fs.BoolVar(&f.failOnLeak, "fail-on-leak", false, "exit 1 when a server series grows significantly and materially (a leak verdict); needs --server-pid or --server-metrics")
		fs.DurationVar(&f.soakWarmup, "soak-warmup", 0, "leave the first `D` of the series out of the trend verdicts (default: the first tenth of the run)")
		limitFlags(fs, durationUpTo(maxRunTime), "soak-warmup")
	}
	limitFlags(fs, limit{min: 0.01, max: maxWait.Seconds()}, "interval")
	limitFlags(fs, atLeastOne(math.MaxInt32), "server-pid") // whether it runs is checked when sampling starts
}

// validate checks the flags; run says whether they are run's.
func (f *seriesFlags) validate() error {
	switch {
	case f.interval <= 0:
		return usagef("--interval must be positive")
	case f.interval < 10*time.Millisecond:
		return usagef("--interval must be at least 10ms: shorter buckets measure the bucketing")
	case f.serverPID < 0:
		return usagef("--server-pid must be a process id")
	case len(f.metricNames) > 0 && f.serverMetrics == "":
		return usagef("--server-metric goes with --server-metrics URL")
	case f.failOnLeak && f.serverPID == 0 && f.serverMetrics == "":
		return usagef("--fail-on-leak needs a server series: give --server-pid or --server-metrics")
	case f.soakWarmup < 0:
		return usagef("--soak-warmup must not be negative")
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
