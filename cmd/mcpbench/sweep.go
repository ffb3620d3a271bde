package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/workload"
)

const sweepUsage = `Usage: mcpbench sweep --url URL (--concurrency-values LIST | --concurrency-range R |
                      --rate-values LIST | --rate-range R) [flags]

Measure a series of load points, then estimate the knee (where more
concurrency stops buying throughput), fit the Universal Scalability Law, and
recommend the concurrency (or rate) that meets the p95/p99 targets. Every
point shares one connection pool sized for the largest one.

Flags:
%s
Examples:
  mcpbench sweep --url http://127.0.0.1:3002/mcp --concurrency-values 1,2,4,8,16,32 \
      --total 1000 --p95-slo-ms 400 --p99-slo-ms 800
  mcpbench sweep --url http://127.0.0.1:3002/mcp --concurrency-range 1:64:x2 --refine \
      --p99-slo-ms 100 --require-concurrency 16
  mcpbench sweep --url http://127.0.0.1:3002/mcp --rate-range 100:600:+100 -d 10s --p99-slo-ms 100
`

type sweepFlags struct {
	target             targetFlags
	workload           workloadFlags
	calls              callFlags
	output             outputFlags
	gate               gateFlags
	concurrencyValues  string
	concurrencyRange   string
	rateValues         string
	rateRange          string
	refine             bool
	cooldown           time.Duration
	requireConcurrency int
	svgOut             string
	shard              shardFlags
}

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	f.target.register(fs)
	f.workload.register(fs, true)
	f.calls.register(fs)
	fs.StringVar(&f.concurrencyValues, "concurrency-values", "", "concurrency levels, e.g. 1,2,4,8")
	fs.StringVar(&f.concurrencyRange, "concurrency-range", "", "FROM:TO[:xF|:+S] levels, e.g. 1:64:x2")
	fs.StringVar(&f.rateValues, "rate-values", "", "open-loop rates, e.g. 100,200,400")
	fs.StringVar(&f.rateRange, "rate-range", "", "FROM:TO[:xF|:+S] rates, e.g. 100:600:+100")
	fs.BoolVar(&f.refine, "refine", false, "search between the last feasible and first infeasible point for the exact maximum")
	fs.DurationVar(&f.cooldown, "cooldown", 0, "pause between points")
	fs.IntVar(&f.requireConcurrency, "require-concurrency", 0, "exit 1 when the maximum feasible concurrency is below N")
	f.gate.register(fs)
	f.output.register(fs)
	fs.StringVar(&f.svgOut, "svg-out", "", "write the chart to `FILE`")
	f.shard.register(fs)
}

// levels returns the sweep's concurrency levels or rates, exactly one of
// them non-empty.
func (f *sweepFlags) levels() ([]int, []float64, error) {
	given := 0
	for _, v := range []string{f.concurrencyValues, f.concurrencyRange, f.rateValues, f.rateRange} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return nil, nil, usagef("give exactly one of --concurrency-values, --concurrency-range, --rate-values, --rate-range")
	}
	var cs []int
	var rs []float64
	var err error
	switch {
	case f.concurrencyValues != "":
		cs, err = sweep.ParseConcurrencyValues(f.concurrencyValues)
	case f.concurrencyRange != "":
		cs, err = sweep.ParseConcurrencyRange(f.concurrencyRange)
	case f.rateValues != "":
		rs, err = sweep.ParseRateValues(f.rateValues)
	default:
		rs, err = sweep.ParseRateRange(f.rateRange)
	}
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return cs, rs, nil
}

func sweepMain(ctx context.Context, args []string, e env) int {
	var f sweepFlags
	fs := newFlagSet("sweep")
	f.register(fs)
	if done, code := parseFlags(fs, args, sweepUsage, e); done {
		return code
	}
	rest, command := splitCommand(fs)
	if len(rest) > 0 {
		return exitFor(e, "sweep", usagef("unexpected argument %q", rest[0]))
	}
	f.target.command = command
	cs, rs, err := f.levels()
	if err != nil {
		return exitFor(e, "sweep", err)
	}
	if err := f.gate.validate(); err != nil {
		return exitFor(e, "sweep", err)
	}
	w := &f.workload
	if w.total < 0 || w.duration < 0 || w.warmup < 0 || f.cooldown < 0 || f.requireConcurrency < 0 {
		return exitFor(e, "sweep", usagef("--total, --duration, --warmup, --cooldown and --require-concurrency must not be negative"))
	}
	if w.total > 0 && w.duration > 0 {
		return exitFor(e, "sweep", usagef("give --total or --duration per point, not both"))
	}
	if w.total == 0 && w.duration == 0 {
		if len(rs) > 0 {
			w.duration = 10 * time.Second
		} else {
			w.total = 1000
		}
	}
	// Split after the per-point defaults, so the default total is split too.
	if cs, rs, err = f.shard.splitSweep(w, cs, rs, f.refine); err != nil {
		return exitFor(e, "sweep", err)
	}
	if err := f.calls.precheck(w); err != nil {
		return exitFor(e, "sweep", err)
	}
	pool := 1
	for _, c := range cs {
		pool = max(pool, c)
	}
	for _, r := range rs {
		pool = max(pool, bench.Config{Rate: r, MaxInFlight: w.maxInFlight}.Workers())
	}
	opts, err := f.target.options(&e, pool)
	if err != nil {
		return exitFor(e, "sweep", err)
	}
	started := time.Now()
	client, err := dial(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitFor(e, "sweep", err)
	}
	defer client.Close(context.Background())
	var mark *logscan.Offset
	if f.target.logFile != "" {
		m, err := logscan.Mark(f.target.logFile)
		if err != nil {
			return exitFor(e, "sweep", usagef("--log-file: %v", err))
		}
		mark = &m
	}
	if started, err = f.shard.wait(ctx, started); err != nil {
		return exitInterrupted // interrupted before --start-at: nothing measured
	}

	slo := sweep.SLO{P95MS: f.gate.p95SLO, P99MS: f.gate.p99SLO, MaxErrorRate: f.gate.maxErrorRate}
	wl, err := buildWorkload(ctx, client, w, &f.calls)
	if err != nil {
		return exitFor(e, "sweep", err)
	}
	var health *probe.HealthWatch
	if f.target.healthURL != "" {
		if health, err = probe.WatchHealth(ctx, opts, f.target.healthURL); err != nil {
			return exitFor(e, "sweep", usagef("--health-url: %v", err))
		}
	}
	s := &sweeper{ctx: ctx, e: e, f: &f, wl: wl, client: client, total: len(cs) + len(rs)}
	var points []bench.Point
	var runErr error
	if len(cs) > 0 {
		points, runErr = s.concurrencySweep(cs, slo)
	} else {
		points, runErr = s.rateSweep(rs, slo)
	}
	if runErr != nil && len(points) == 0 {
		if ctx.Err() != nil {
			fmt.Fprintln(e.stderr, "mcpbench sweep: interrupted before any point was measured")
			return exitInterrupted
		}
		return exitFor(e, "sweep", unreachableError{fmt.Sprintf("%s: %v", mcp.Redact(opts.URL), runErr)})
	}
	r := report.NewSweepReport(header(report.SchemaSweep, started, client, opts.URL), points, slo)
	r.Interrupted = ctx.Err() != nil
	r.Shard, r.Workload = f.shard.report(), sweepWorkload(wl, w, len(rs) > 0)
	if mark != nil {
		if res, err := logscan.Scan(f.target.logFile, *mark); err == nil {
			r.LogScan = &res
		} else {
			fmt.Fprintf(e.stderr, "mcpbench sweep: --log-file: %v\n", oneLine(err.Error()))
		}
	}
	if health != nil {
		r.Health = health.Finish(context.WithoutCancel(ctx))
	}
	if err := f.writeReports(r, client, e); err != nil {
		return exitFor(e, "sweep", usagef("writing report: %v", err))
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "mcpbench sweep: stopped early: %v\n", oneLine(runErr.Error()))
	}
	return f.exitCode(r)
}

// exitCode applies the sweep's gates: errors at points are data, not
// failures.
func (f *sweepFlags) exitCode(r *report.SweepReport) int {
	if r.Interrupted {
		return exitInterrupted
	}
	rec := r.Recommendation
	if f.gate.failOnSLO && len(rec.FeasibleConcurrency) == 0 && rec.MaxSustainableRPS == nil {
		fmt.Fprintln(f.output.summaryErr(), "mcpbench sweep: no point met the SLO")
		return exitGate
	}
	if f.requireConcurrency > 0 {
		if rec.MaxFeasibleConcurrency == nil || *rec.MaxFeasibleConcurrency < f.requireConcurrency {
			got := "none"
			if rec.MaxFeasibleConcurrency != nil {
				got = fmt.Sprint(*rec.MaxFeasibleConcurrency)
			}
			fmt.Fprintf(f.output.summaryErr(), "mcpbench sweep: maximum feasible concurrency %s is below the required %d\n", got, f.requireConcurrency)
			return exitGate
		}
	}
	return exitOK
}

// sweeper measures one point after another on a shared client.
type sweeper struct {
	ctx    context.Context
	e      env
	f      *sweepFlags
	wl     *workload.Workload
	client *mcp.Client
	done   int
	total  int
}

func (s *sweeper) measure(c int, rate float64) (bench.Point, error) {
	if s.done > 0 && s.f.cooldown > 0 {
		select {
		case <-time.After(s.f.cooldown):
		case <-s.ctx.Done():
			return bench.Point{}, s.ctx.Err()
		}
	}
	s.done++
	w := &s.f.workload
	cfg := bench.Config{Concurrency: c, Rate: rate, MaxInFlight: w.maxInFlight, Total: w.total, Duration: w.duration,
		Warmup: w.warmup, RampUp: w.rampUp}
	label := fmt.Sprintf("concurrency %d", c)
	if rate > 0 {
		label = fmt.Sprintf("rate %s", fmtNum(rate))
	}
	progress := progressPrinter(s.e, s.f.output.noProgress)
	if progress != nil {
		cfg.Progress = func(p bench.Progress) {
			fmt.Fprintf(s.e.stderr, "\r\033[Kpoint %d/%d (%s): ", s.done, s.total, label)
			progress(p)
		}
	}
	p, err := bench.Run(s.ctx, cfg, s.wl)
	clearProgress(s.e, progress)
	if err != nil {
		return p, err
	}
	p.Client.PoolMaxConns = s.client.PoolSize()
	p.Client.Engine = s.client.Engine()
	return p, nil
}

// level is one load level of a sweep: a concurrency, or a rate.
type level struct {
	c    int
	rate float64
}

func (s *sweeper) concurrencySweep(cs []int, slo sweep.SLO) ([]bench.Point, error) {
	levels := make([]level, len(cs))
	for i, c := range cs {
		levels[i] = level{c: c}
	}
	return s.series(levels, func(points []bench.Point) (level, bool) {
		c, ok := sweep.NextRefine(points, slo)
		return level{c: c}, ok
	})
}

func (s *sweeper) rateSweep(rs []float64, slo sweep.SLO) ([]bench.Point, error) {
	levels := make([]level, len(rs))
	for i, r := range rs {
		levels[i] = level{rate: r}
	}
	return s.series(levels, func(points []bench.Point) (level, bool) {
		r, ok := sweep.NextRefineRate(points, slo, 0)
		return level{rate: r}, ok
	})
}

// series measures the levels in order, then, with --refine, the levels
// next proposes until it has none; an interrupt keeps what was measured.
func (s *sweeper) series(levels []level, next func([]bench.Point) (level, bool)) ([]bench.Point, error) {
	var points []bench.Point
	measure := func(l level) (bool, error) {
		p, err := s.measure(l.c, l.rate)
		if err != nil {
			return false, err
		}
		points = append(points, p)
		return !p.Interrupted, nil
	}
	for _, l := range levels {
		if more, err := measure(l); err != nil || !more {
			sortPoints(points)
			return points, err
		}
	}
	for s.f.refine {
		sortPoints(points)
		l, ok := next(points)
		if !ok {
			break
		}
		s.total++
		if more, err := measure(l); err != nil || !more {
			break
		}
	}
	sortPoints(points)
	return points, nil
}

// sortPoints orders points by rate, then concurrency, as the analysis
// expects.
func sortPoints(ps []bench.Point) {
	sort.SliceStable(ps, func(i, j int) bool {
		ri, rj := 0.0, 0.0
		if ps[i].Rate != nil {
			ri = *ps[i].Rate
		}
		if ps[j].Rate != nil {
			rj = *ps[j].Rate
		}
		if ri != rj {
			return ri < rj
		}
		return ps[i].Concurrency < ps[j].Concurrency
	})
}

// defaultSweepBase is the report name the contract gives a sweep written
// without explicit paths: mcpbench-<host>_<port>-sweep.
func defaultSweepBase(rawURL string) string {
	host, port := "server", ""
	if u, err := url.Parse(rawURL); err == nil {
		host, port = u.Hostname(), u.Port()
		if port == "" {
			port = map[bool]string{true: "443", false: "80"}[u.Scheme == "https"]
		}
	}
	clean := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, host)
	return fmt.Sprintf("mcpbench-%s_%s-sweep", clean, port)
}

func (f *sweepFlags) writeReports(r *report.SweepReport, c *mcp.Client, e env) error {
	o := &f.output
	if o.jsonOut == "" && o.mdOut == "" && f.svgOut == "" {
		base := filepath.Join(o.outDir, defaultSweepBase(c.URL()))
		o.jsonOut, o.mdOut, f.svgOut = base+".json", base+".md", base+".svg"
	}
	if err := writeFile(o.jsonOut, e, func(w io.Writer) error { return report.WriteSweepJSON(w, r) }); err != nil {
		return err
	}
	if err := writeFile(o.mdOut, e, func(w io.Writer) error { return report.WriteSweepMarkdown(w, r) }); err != nil {
		return err
	}
	if err := writeFile(f.svgOut, e, func(w io.Writer) error { return report.WriteSweepSVG(w, r) }); err != nil {
		return err
	}
	out := o.summaryOut(e)
	if err := report.WriteSweepTable(out, r); err != nil {
		return err
	}
	for _, p := range slices.DeleteFunc([]string{o.jsonOut, o.mdOut, f.svgOut}, func(s string) bool { return s == "" || s == "-" }) {
		fmt.Fprintf(out, "wrote %s\n", p)
	}
	return nil
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
