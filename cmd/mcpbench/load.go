package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
)

// loadFlags are the flag groups run and sweep share, each under one name
// in both.
type loadFlags struct {
	target    targetFlags
	workload  workloadFlags
	calls     callFlags
	scenario  scenarioFlags
	gate      gateFlags
	series    seriesFlags
	telemetry telemetryFlags
	output    outputFlags
	shard     shardFlags
	shapes    shapeFlags // sweep declares only --dashboard of them
}

// loadCommand is run or sweep as the pipeline they share sees it: what
// differs between them is here, as data and as the steps only one has.
type loadCommand struct {
	name, usage string
	// units name what was not measured when a load is stopped before its
	// first: of requests, and of sessions of a scenario.
	unit, sessionUnit string
	flags             *loadFlags
	fs                *pflag.FlagSet
	// config checks the flags, in the order whose errors the contract
	// fixes, and gives the setup and the load (a run's, or each sweep
	// point's) that the pipeline completes.
	config func(e *env) (*harness.Setup, *harness.LevelConfig, error)
	plan   func(ctx context.Context) (*results.PlanReport, error)
	// outputs are the report files, named or under default names.
	outputs func(e env) map[string]output
	// measure runs the load and judges it; nil when nothing was measured.
	measure func(ctx context.Context, abort *abortOutput, outs map[string]output, e env) (*measured, error)
}

// measured is a finished load as the pipeline needs it.
type measured struct {
	gates                   []results.Gate
	write                   func(outs map[string]output, e env) error
	interrupted, gateFailed bool
	// notes are said on stderr once the reports are out.
	notes func(e env)
}

// loadMain is run's and sweep's pipeline: flags, configuration, the dry
// run, the outputs that watch the load, the load, the gates and the
// reports.
func loadMain(ctx context.Context, args []string, e env, c loadCommand) int {
	f := c.flags
	if done, code := parseFlags(c.fs, args, c.usage, e); done {
		return code
	}
	setup, load, err := c.config(&e)
	if err != nil {
		return exitFor(e, c.name, err)
	}
	if f.calls.dryRun {
		plan, err := c.plan(ctx)
		return dryRunExit(e, c.name, plan, err, &f.output)
	}
	outs := c.outputs(e)
	watch(setup, e, c.name, f.output.noProgress || f.series.live)
	f.series.apply(load, setup, e, c.name)
	if err := f.telemetry.apply(setup, e, c.name); err != nil {
		return exitFor(e, c.name, err)
	}
	stop, err := f.output.ready(outs, e, c.name, setup)
	if err != nil {
		return exitFor(e, c.name, err)
	}
	defer stop()
	loadCtx, abort, closePage := f.shapes.attach(ctx, setup, e, c.name)
	defer closePage()
	m, err := c.measure(loadCtx, abort, outs, e)
	if m == nil {
		unit := c.unit
		if f.scenario.file != "" {
			unit = c.sessionUnit
		}
		return harnessExit(e, c.name, unit, err)
	}
	defer giveBackRunMemory()()
	f.telemetry.gates(m.gates)
	writeErr := m.write(outs, e)
	f.output.announce(outs, e)
	if m.notes != nil {
		m.notes(e)
	}
	return finish(e, c.name, writeErr, m.interrupted, m.gateFailed)
}
