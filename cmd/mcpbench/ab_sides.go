package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
)

// abRunConfig is run's configuration of one measurement, its URL filled
// in for each side.
type abRunConfig struct{ harness.RunConfig }

// abWarmupShare is the part of a measurement its warm-up takes: enough to
// open the connections and warm the server's caches, little of the round.
const abWarmupShare = 4

// measure runs the load once against t and returns its figures; a warm-up
// is a quarter of a measurement, at least 200 ms or one request. A
// measurement in turns (s) loads t only in its turns, opens its window
// with the other side's, and gives the throughput of its turns' time.
func (c abRunConfig) measure(ctx context.Context, _ ab.Side, t ab.Target, warmup bool, s *ab.Slices) (ab.Figures, error) {
	cfg := c.RunConfig
	cfg.Setup.Options.URL = t.URL
	if s != nil {
		lvl, err := slicedLevel(cfg.Level, s)
		if err != nil {
			return ab.Figures{}, err
		}
		cfg.Level = lvl
		cfg.Setup.Outputs = append(slices.Clip(cfg.Setup.Outputs), startLine{start: s.Start})
	}
	if warmup {
		if cfg.Level.Duration > 0 {
			cfg.Level.Duration = max(cfg.Level.Duration/abWarmupShare, 200*time.Millisecond)
		}
		if cfg.Level.Total > 0 {
			cfg.Level.Total = max(cfg.Level.Total/abWarmupShare, 1)
		}
		cfg.Level.Warmup = 0
	}
	r, err := harness.Run(ctx, cfg)
	if err != nil {
		return ab.Figures{}, err
	}
	p := &r.Point
	if p.Interrupted { // a part of a measurement is no measurement
		if ctx.Err() != nil {
			return ab.Figures{}, ctx.Err()
		}
		return ab.Figures{}, errors.New("the measurement was cut short")
	}
	if p.Requests == 0 && !warmup { // no figure to compare, only a stall
		return ab.Figures{}, fmt.Errorf("no request completed in %.2f s: give each measurement longer (-d) or a count (-n)", p.ElapsedS)
	}
	f := ab.Figures{Requests: p.Requests, Throughput: p.RPS, P50MS: p.P50MS, P95MS: p.P95MS, P99MS: p.P99MS,
		ErrorRate: p.ErrorRate, Seconds: p.ElapsedS, GenCPU: p.Client.CPUS}
	if s != nil {
		f.Seconds = s.Active().Seconds()
		f.Throughput = p.RPS * p.ElapsedS / f.Seconds
	}
	return f, nil
}

// describe says what one measurement sends, in words.
func (c abRunConfig) describe() string {
	load := "a load model of its own"
	switch m := c.Level.Model.(type) {
	case harness.ClosedLoop:
		load = fmt.Sprintf("closed loop, %d workers", m.Concurrency)
	case harness.OpenLoop:
		load = fmt.Sprintf("open loop, %g requests/s", m.Rate)
	case harness.ScenarioUsers:
		load = fmt.Sprintf("closed loop, %d users", m.Users)
	}
	each := c.Level.Duration.String()
	if c.Level.Total > 0 {
		each = fmt.Sprintf("%d requests", c.Level.Total)
	}
	return harness.Sent(c.Setup.Load) + ", " + load + ", " + each + " per side and round"
}

// handshake is ready when an MCP session opens at the server.
func (c abRunConfig) handshake(ctx context.Context, s *ab.Server) error {
	o := c.Setup.Options
	o.URL = s.URL
	cl, err := harness.Dial(ctx, o, 0) // a readiness check ends its session
	if err != nil {
		return err
	}
	cl.Close(ctx)
	return nil
}

// abSide is one side once started: what the report says of it, the
// target the experiment measures and the server mcpbench started.
type abSide struct {
	side   results.ABSide
	target ab.Target
	server *ab.Server
}

// abSides are both sides.
type abSides struct {
	a, b    abSide
	started time.Time
}

// stop stops the servers mcpbench started.
func (s *abSides) stop() {
	for _, side := range []*abSide{&s.a, &s.b} {
		if side.server != nil {
			_ = side.server.Stop()
		}
	}
}

// startSides starts the sides given as commands, finds each side's CPU
// source and puts the targets into the experiment. It returns the sides
// even on failure, so that those started are stopped.
func (x *abExperiment) startSides(ctx context.Context, e env) (*abSides, error) {
	s := &abSides{started: time.Now()}
	for _, side := range []struct {
		name string
		fl   abSideFlags
		dst  *abSide
	}{{"a", x.f.a, &s.a}, {"b", x.f.b, &s.b}} {
		if err := x.startSide(ctx, side.name, side.fl, side.dst); err != nil {
			return s, err
		}
	}
	if (s.a.target.CPU == nil) != (s.b.target.CPU == nil) { // a ratio needs both
		fmt.Fprintln(e.stderr, "mcpbench ab: the server's CPU is read on one side only, so CPU per request is not judged: give both sides --a-/--b-metrics or --a-/--b-pid")
	}
	if !x.f.quiet {
		fmt.Fprintf(e.stderr, "mcpbench ab: A %s, B %s\n", s.a.side.URL, s.b.side.URL)
	}
	x.exp.A, x.exp.B = s.a.target, s.b.target
	return s, nil
}

func (x *abExperiment) startSide(ctx context.Context, name string, fl abSideFlags, dst *abSide) error {
	dst.side = results.ABSide{URL: fl.url, Command: fl.cmd}
	dst.target = ab.Target{URL: fl.url}
	if fl.cmd != "" {
		c := ab.Command{Line: fl.cmd, Path: x.f.path, Log: x.serverLog(name), Ready: x.cfg.handshake}
		if x.f.healthURL != "" {
			c.Ready = ab.HealthReady(x.f.healthURL)
		}
		srv, err := ab.Start(ctx, c)
		if err != nil {
			return unreachableError{fmt.Sprintf("--%s-cmd: %v", name, err)}
		}
		dst.server, dst.target = srv, srv.Target()
		dst.side.URL, dst.side.ServerLog = srv.URL, c.Log
		if x.f.restart && fl.metrics == "" && fl.pid == 0 { // a pid or a URL of CPU would go with the first server
			dst.target.Restart = dst.restarter(c)
		}
	}
	switch {
	case fl.metrics != "":
		cpu, err := ab.NewPromCPU(ctx, fl.metrics, nil)
		if err != nil {
			return unreachableError{fmt.Sprintf("--%s-metrics: %v", name, err)}
		}
		dst.target.CPU = cpu
	case fl.pid != 0:
		cpu, err := ab.NewProcTree(fl.pid)
		if err != nil {
			return usagef("--%s-pid: %v", name, err)
		}
		dst.target.CPU = cpu
	}
	if dst.target.CPU != nil {
		dst.side.CPU = dst.target.CPU.Where()
	}
	return nil
}

// restarter stops dst's server and starts c afresh, on a port of its
// own, for the experiment's next round.
func (dst *abSide) restarter(c ab.Command) func(context.Context) (ab.Target, error) {
	var restart func(context.Context) (ab.Target, error)
	restart = func(ctx context.Context) (ab.Target, error) {
		_ = dst.server.Stop()
		srv, err := ab.Start(ctx, c)
		if err != nil {
			dst.server = nil
			return ab.Target{}, err
		}
		dst.server = srv
		t := srv.Target()
		t.Restart = restart
		return t, nil
	}
	return restart
}

// serverLog is the file for a started server's output: beside the first
// report file (ab.json: ab-a-server.log), else in the temporary directory.
func (x *abExperiment) serverLog(name string) string {
	for _, p := range []string{x.f.jsonOut, x.f.htmlOut, x.f.junitOut, x.f.mdOut} {
		if p != "" && p != "-" {
			return strings.TrimSuffix(p, filepath.Ext(p)) + "-" + name + "-server.log"
		}
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("mcpbench-ab-%d-%s-server.log", os.Getpid(), name))
}
