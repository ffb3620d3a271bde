// Package bench is the load engine: closed-loop workers, the open-loop
// schedule, per-worker histograms merged at the end, and one Point per
// measured load level. It knows nothing of sweeps or reports, nor of the
// protocol its workers speak: a Workload (worker.go) stands for that.
//
// Files: engine.go runs a level (Config, Run); closed.go and open.go are
// the two drivers; measure.go records what workers see; assemble.go and
// saturation.go turn the records into a Point (point.go).
package bench

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Config is one load level.
type Config struct {
	// Concurrency is the number of closed-loop workers.
	Concurrency int
	// Rate > 0 makes an open loop of Rate requests/s; MaxInFlight workers
	// (default: enough for one second of requests, at most 1000) send them.
	Rate        float64
	MaxInFlight int
	// Total stops after that many measured requests; Duration after that
	// long. One of them is needed.
	Total    int64
	Duration time.Duration
	// Warmup requests are sent first and not measured.
	Warmup int64
	// RampUp adds closed-loop workers evenly, or raises the open-loop rate
	// linearly, over this time; the ramp is not measured unless
	// MeasureRamp is set.
	RampUp      time.Duration
	MeasureRamp bool
	// MaxRate caps a closed loop's request rate (a token bucket).
	MaxRate float64
	// Grace is how long in-flight requests may finish after ctx is
	// cancelled (an interrupt); default 5 s.
	Grace time.Duration
	// Progress, if set, is called about once a ProgressEvery (default 1 s)
	// from a goroutine of the engine.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// OnMeasure, if set, is called just before the measured phase starts
	// (after the warm-up), e.g. to snapshot counters kept outside the engine.
	OnMeasure func()
	// OnDone, if set, is called when the load ends, before the workers
	// close (e.g. to profile what they hold).
	OnDone func()
	// LagThreshold is the generator's own send delay (p99) above which the
	// point is marked saturated; default 5 ms.
	LagThreshold time.Duration
}

// Workers is how many workers the level runs, which is also how many
// connections it needs: Concurrency in a closed loop; in an open loop
// MaxInFlight, or by default enough for one second of requests (16 to
// 1000).
func (c Config) Workers() int {
	if c.Rate <= 0 {
		return c.Concurrency
	}
	if c.MaxInFlight > 0 {
		return c.MaxInFlight
	}
	return int(min(1000, max(16, math.Ceil(c.Rate))))
}

// Progress is a snapshot of a running point, for a progress line.
type Progress struct {
	Done, Total int64
	Errors      int64
	Elapsed     time.Duration
	Remaining   time.Duration // -1 when unknown
	RPS         float64
	P99MS       float64 // approximate: from coarse buckets
	Warmup      bool
}

// Run measures one load level of wl. It returns what was measured even
// when ctx is cancelled part-way (then the Point is marked Interrupted).
func Run(ctx context.Context, cfg Config, wl Workload) (Point, error) {
	if err := cfg.normalize(); err != nil {
		return Point{}, err
	}
	ops, kinds := wl.Operations(), wl.Kinds()
	if len(kinds) == 0 || len(kinds) > MaxKinds {
		return Point{}, fmt.Errorf("a workload names 1 to %d outcome kinds, not %d", MaxKinds, len(kinds))
	}
	if len(ops) == 0 {
		ops = []Operation{{Method: "request"}}
	}
	workers, err := startWorkers(ctx, cfg.Workers(), wl)
	if err != nil {
		return Point{}, err
	}
	defer closeWorkers(workers)
	reqCtx, stopReqs := graceContext(ctx, cfg.Grace)
	defer stopReqs()

	r := newRunner(cfg, ctx, reqCtx, workers, ops, kinds)
	if cfg.Warmup > 0 {
		r.warmup()
	}
	if cfg.OnMeasure != nil {
		cfg.OnMeasure()
	}
	var counted map[string]int64
	if c, ok := wl.(Counting); ok {
		counted = c.Counters()
	}
	cpu0, wait0 := cpuTime(), runQueueWait()
	r.start = time.Now()
	r.measureStart = r.start
	stopProgress := r.startProgress()
	if cfg.Rate > 0 {
		r.openLoop()
	} else {
		r.closedLoop()
	}
	end := r.lastDone()
	stopProgress()
	if cfg.OnDone != nil {
		cfg.OnDone()
	}
	p := r.point(end, cpuTime()-cpu0, runQueueWait()-wait0)
	p.Counters = countersSince(wl, counted)
	p.Interrupted = ctx.Err() != nil
	return p, nil
}

func (c *Config) normalize() error {
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		return fmt.Errorf("rate must be a positive number")
	}
	if c.Rate == 0 && c.Concurrency < 1 {
		return fmt.Errorf("concurrency must be at least 1")
	}
	if c.Total <= 0 && c.Duration <= 0 {
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
	ops     []Operation
	kinds   []string
	ctx     context.Context // cancelled on interrupt: stop sending
	reqCtx  context.Context // cancelled a grace period later
	workers []Worker
	states  []*workerState
	shards  []*histShard
	limiter *rate.Limiter
	start   time.Time // the clock of the schedule and the ramp
	// measureStart is when measuring began: start, or the end of a ramp.
	measureStart time.Time
	issued       atomic.Int64
	scheduled    int64 // open loop with a duration: requests due in the window
	wakeP99      time.Duration
}

func newRunner(cfg Config, ctx, reqCtx context.Context, workers []Worker, ops []Operation, kinds []string) *runner {
	n := len(workers)
	shards := make([]*histShard, shardCount(n))
	for i := range shards {
		shards[i] = newHistShard(len(ops), cfg.Rate > 0)
	}
	states := make([]*workerState, n)
	for i := range states {
		states[i] = newWorkerState(shards[i%len(shards)], len(ops))
	}
	r := &runner{cfg: cfg, ops: ops, kinds: kinds, ctx: ctx, reqCtx: reqCtx, workers: workers, states: states, shards: shards}
	if cfg.MaxRate > 0 {
		r.limiter = rate.NewLimiter(rate.Limit(cfg.MaxRate), 1)
	}
	return r
}

// sleeper waits on one timer it keeps, so a worker that paces every
// request allocates no timer per request.
type sleeper struct{ t *time.Timer }

// until waits until at, or until ctx ends, and reports whether it waited
// the whole time (a time already past reports whether ctx is still live).
func (s *sleeper) until(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	if s.t == nil {
		s.t = time.NewTimer(d)
	} else {
		s.t.Reset(d)
	}
	select {
	case <-s.t.C:
		return true
	case <-ctx.Done():
		s.t.Stop()
		return false
	}
}
