package main

import (
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

// setup is the part of run's and sweep's harness configuration that
// their shared flags give.
func (t *targetFlags) setup(opts mcp.Options, spec workload.Spec, s *shardFlags) harness.Setup {
	return harness.Setup{
		Options:   opts,
		Workload:  spec,
		HealthURL: t.healthURL,
		LogFile:   t.logFile,
		LogSettle: time.Duration(t.logSettle),
		StartAt:   s.at,
		Shard:     s.report(),
		Version:   buildVersion(),
	}
}

// watch makes the harness's callbacks print: warnings and the tools about
// to be called on stderr, and the progress line cleared after each
// measurement. It returns the progress
// line's printer, nil when there is none.
func watch(s *harness.Setup, e env, cmd string, off bool) func(bench.Progress) {
	progress := progressPrinter(e, off)
	s.Warn = warnSetting(e, cmd)
	s.Announce = announce(e, cmd)
	s.MeasureDone = func() { clearProgress(e, progress) }
	return progress
}
