// Package bench is the load generator: closed-loop workers, the open-loop
// schedule, per-worker histograms merged at the end, and one Point per
// measured load level. It knows nothing of sweeps or reports, nor of the
// protocol its workers speak: a Work (worker.go) stands for that.
//
// Files: generator.go runs a level (Config, Run); model*.go are the load
// models a Config holds one of; closed.go and open.go are the two
// drivers; measure.go records what workers see; assemble.go and
// saturation.go turn the records into a measure.Point; observe.go is
// what a level reports as it runs (Observer). session.go,
// session_run.go and session_point.go run a level whose unit of work is
// a whole MCP session (a SessionLoad).
package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/measure"
	"golang.org/x/time/rate"
)

// Config is one load level.
type Config struct {
	// Model paces the level's work: a ClosedLoop, OpenLoop, ClosedStages,
	// RateStages or ScenarioUsers (model*.go).
	Model Model
	// Total stops after that many measured requests; Duration after that
	// long. One of them is needed, unless stages give the length.
	Total    int64
	Duration time.Duration
	// Warmup requests are sent first and not measured.
	Warmup int64
	// MeasureRamp measures the model's ramp-up too.
	MeasureRamp bool
	// Grace is how long in-flight requests may finish after ctx is
	// cancelled (an interrupt); default 5 s.
	Grace time.Duration
	// Observer, if set, receives the level's moments and settled
	// intervals (observe.go); a ProgressObserver also gets a snapshot
	// about once a ProgressEvery (default 1 s).
	Observer      Observer
	ProgressEvery time.Duration
	// LagThreshold is the generator's own send delay (p99) above which the
	// point is marked saturated; default 5 ms.
	LagThreshold time.Duration
	// Interval is the length of the buckets of the point's Series;
	// default 1 s.
	Interval time.Duration
	// Gauges, if set, is read at the end of every bucket (and once as the
	// window opens) from a goroutine of its own; the readings become the
	// Series' server columns.
	Gauges GaugeSource
	// Loops > 0 runs the workers as tasks of that many event loops (at
	// most one per worker) when every worker is a LoopWorker and the level
	// has no MaxRate; else, and in session runs, each has a goroutine.
	Loops int
}

// Workers is how many workers the level runs, which is also how many
// connections it needs: the workers of a closed loop (their peak with
// stages); in an open loop MaxInFlight, or by default enough for one
// second of requests (16 to 1000).
func (c Config) Workers() int { return c.pace().workers() }

// Progress is a snapshot of a running point, for a progress line.
type Progress struct {
	Done, Total int64
	Errors      int64
	Elapsed     time.Duration
	Remaining   time.Duration // -1 when unknown
	RPS         float64
	P99MS       float64 // approximate: from coarse buckets
	Warmup      bool
	// Sessions counts the sessions completed so far in a session run
	// (Done and RPS count its steps; Total bounds its sessions).
	Sessions int64
}

// Run measures one load level of l, a RequestLoad or a SessionLoad. It
// returns what was measured even when ctx is cancelled part-way (then the
// Point is marked Interrupted). The kind of load is asked once, here: each
// has its own workers and drivers, so the hot path never asks.
func Run(ctx context.Context, cfg Config, l Work) (measure.Point, error) {
	if err := cfg.normalize(); err != nil {
		return measure.Point{}, err
	}
	switch l := l.(type) {
	case SessionLoad:
		return runSessions(ctx, cfg, l)
	case RequestLoad:
		if _, ok := cfg.Model.(ScenarioUsers); ok {
			return measure.Point{}, fmt.Errorf("scenario users run sessions, not requests")
		}
		return runRequests(ctx, cfg, l)
	}
	return measure.Point{}, fmt.Errorf("a load starts workers (RequestLoad) or users (SessionLoad); %T does neither", l)
}

// runRequests measures a level of plain requests.
func runRequests(ctx context.Context, cfg Config, wl RequestLoad) (measure.Point, error) {
	ops, kinds := wl.Operations(), wl.Kinds()
	if len(kinds) == 0 || len(kinds) > MaxKinds {
		return measure.Point{}, fmt.Errorf("a workload names 1 to %d outcome kinds, not %d", MaxKinds, len(kinds))
	}
	if len(ops) == 0 {
		ops = []measure.Operation{{Method: "request"}}
	}
	workers, err := startWorkers(ctx, cfg.Workers(), wl)
	if err != nil {
		return measure.Point{}, err
	}
	defer closeWorkers(workers)
	reqCtx, stopReqs := graceContext(ctx, cfg.Grace)
	defer stopReqs()

	r := newRunner(cfg, ctx, reqCtx, workers, ops, kinds)
	r.counting, _ = wl.(Counting)
	r.startLoops(loopWorkers(workers))
	defer r.stopLoops()
	drive := r.closedLoop
	if r.p.open() {
		drive = r.openLoop
	}
	return r.measure(r.warmup, drive), nil
}

// measure runs the level: the warm-up, then the measured phase with
// drive (a closed or an open loop), and returns its Point.
func (r *runner) measure(warmup, drive func()) measure.Point {
	if r.cfg.Warmup > 0 {
		warmup()
	}
	if r.cfg.Observer != nil {
		r.cfg.Observer.Measuring()
	}
	var counted map[string]int64
	if r.counting != nil {
		counted = r.counting.Counters()
	}
	cpu0, wait0 := cpuTime(), runQueueWait()
	r.start = time.Now()
	r.measureStart = r.measureFrom()
	r.series.start = r.measureStart
	stopProgress := r.startProgress()
	stopSeries := r.startSeries()
	drive()
	end := r.lastDone()
	stopProgress()
	stopSeries(end)
	if r.cfg.Observer != nil {
		r.cfg.Observer.LoadDone()
	}
	p := r.point(end, cpuTime()-cpu0, runQueueWait()-wait0)
	p.Client.Driver, p.Client.Loops = r.driver()
	p.Counters = countersSince(r.counting, counted)
	p.Interrupted = r.ctx.Err() != nil
	return p
}

// normalize checks the level and fills in its defaults.
func (c *Config) normalize() error {
	if c.Model == nil {
		return fmt.Errorf("a level needs a load model")
	}
	if c.Interval <= 0 {
		c.Interval = time.Second
	}
	if err := c.Model.Validate(*c); err != nil {
		return err
	}
	if c.Total <= 0 && c.pace().duration <= 0 {
		return fmt.Errorf("give a total or a duration")
	}
	if c.Grace <= 0 {
		c.Grace = 5 * time.Second
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	if c.LagThreshold <= 0 {
		c.LagThreshold = 5 * time.Millisecond
	}
	return nil
}

// pace is the model's pace (none without a model), lasting the stages'
// length or Duration.
func (c Config) pace() pace {
	var p pace
	if c.Model != nil {
		p = c.Model.pace()
	}
	if p.duration == 0 {
		p.duration = c.Duration
	}
	return p
}

// graceContext is the context requests run on: it outlives an interrupt
// of ctx by the grace period, so requests in flight can finish and be
// counted.
func graceContext(ctx context.Context, grace time.Duration) (context.Context, func()) {
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancelReqs)
		go func() { <-reqCtx.Done(); t.Stop() }()
	})
	return reqCtx, func() { stopGrace(); cancelReqs() }
}

// runner is one level in progress: the workers, what they record, and the
// clocks both drivers share.
type runner struct {
	cfg     Config
	p       pace // the model's, with the level's length
	ops     []measure.Operation
	kinds   []string
	ctx     context.Context // cancelled on interrupt: stop sending
	reqCtx  context.Context // cancelled a grace period later
	workers []Worker
	states  []*workerState
	shards  []*histShard
	series  *seriesRec
	live    liveState // what the series loop has handed to the Observer
	limiter *rate.Limiter
	start   time.Time // the clock of the schedule and the ramp
	// measureStart is when measuring began: start, or the end of a ramp.
	measureStart time.Time
	issued       atomic.Int64
	scheduled    int64 // open loop with a duration: requests due in the window
	wakeP99      time.Duration
	// noticeP50 and latP50 are the medians of the generator's delay in
	// noticing answers and of the latency, for saturation (stamp.go).
	noticeP50, latP50, noticeP99, latP99 time.Duration
	// sessions is set when the unit of work is a session (session.go):
	// the workers' records are then per step.
	sessions *sessionRunner
	// counting is the workload when it counts things beside its requests.
	counting Counting
	// loops, when set, run onLoops, the workers or users (lanes.go).
	loops   *evloop.Group
	onLoops []LoopWorker
}

func newRunner(cfg Config, ctx, reqCtx context.Context, workers []Worker, ops []measure.Operation, kinds []string) *runner {
	r := &runner{cfg: cfg, p: cfg.pace(), ops: ops, kinds: kinds, ctx: ctx, reqCtx: reqCtx, workers: workers}
	r.makeStates(len(workers), shardCount(len(workers)), r.p.open(), len(ops) > 1)
	if r.p.maxRate > 0 {
		r.limiter = rate.NewLimiter(rate.Limit(r.p.maxRate), 1)
	}
	return r
}

// makeStates gives n workers their records over nShards histogram shards
// and the series: with the open loop's histograms if open, per operation
// if perOp.
func (r *runner) makeStates(n, nShards int, open, perOp bool) {
	r.series = newSeriesRec(time.Time{}, r.cfg.Interval, r.p.duration+r.p.rampUp)
	if r.cfg.Observer != nil && len(r.ops) > 1 {
		r.series.nOps = len(r.ops)
	}
	_, r.series.keepLate = r.cfg.Observer.(LateObserver)
	if oo, ok := r.cfg.Observer.(OperationsObserver); ok && r.series.nOps > 0 {
		r.series.opHists = oo.WantsOperationHistograms()
	}
	r.shards = make([]*histShard, nShards)
	for i := range r.shards {
		r.shards[i] = newHistShard(len(r.ops), open, perOp)
	}
	r.states = make([]*workerState, n)
	for i := range r.states {
		r.states[i] = newWorkerState(r.shards[i%len(r.shards)], r.series, len(r.ops), perOp)
	}
}
