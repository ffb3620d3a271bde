// Package bench is the load engine: closed-loop workers, the open-loop
// schedule, per-worker histograms merged at the end, and one Point per
// measured load level. It knows nothing of sweeps or reports.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/time/rate"

	"github.com/mcpbench/mcpbench/mcp"
)

// Sample is one request's outcome as the engine needs it.
type Sample struct {
	Kind     mcp.Kind
	Op       int // index into Config.Operations
	Sent     int64
	Received int64
	Err      error
	// ConnWait is how long the request waited for a connection; one over
	// PoolWaitThreshold counts as a pool wait.
	ConnWait time.Duration
}

// PoolWaitThreshold is the connection wait that counts as waiting for the
// pool: a connection handed back a moment late is not a wait worth a line
// in a report, a dial or a queue behind busy connections is.
const PoolWaitThreshold = time.Millisecond

// Worker sends one request per Do. A worker is used by one goroutine only.
type Worker interface {
	Do(ctx context.Context) Sample
	Close(ctx context.Context) error
}

// NewWorker makes worker id; the engine calls it before the clock starts.
type NewWorker func(ctx context.Context, id int) (Worker, error)

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
	// Operations names the operations a worker's Samples index; with more
	// than one, the Point carries per-operation figures.
	Operations []Operation
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

// Operation names one kind of request in a mix.
type Operation struct {
	Method string `json:"method"`
	Tool   string `json:"tool,omitempty"`
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

// ErrNoWorkers is returned when not one worker could be started.
var ErrNoWorkers = errors.New("no worker could start")

// Run measures one load level. It returns what was measured even when ctx
// is cancelled part-way (then the Point is marked Interrupted).
func Run(ctx context.Context, cfg Config, newWorker NewWorker) (Point, error) {
	if err := cfg.normalize(); err != nil {
		return Point{}, err
	}
	n := cfg.workerCount()
	workers, err := startWorkers(ctx, n, newWorker)
	if err != nil {
		return Point{}, err
	}
	defer closeWorkers(workers)

	// Requests run on a context that outlives an interrupt by the grace
	// period, so in-flight ones can finish and be counted.
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(cfg.Grace, cancelReqs)
		go func() { <-reqCtx.Done(); t.Stop() }()
	})
	defer stopGrace()

	shards := make([]*histShard, shardCount(n))
	for i := range shards {
		shards[i] = newHistShard(len(cfg.Operations), cfg.Rate > 0)
	}
	states := make([]*workerState, n)
	for i := range states {
		states[i] = newWorkerState(shards[i%len(shards)], len(cfg.Operations))
	}
	r := &runner{cfg: cfg, ctx: ctx, reqCtx: reqCtx, workers: workers, states: states, shards: shards}
	if cfg.MaxRate > 0 {
		r.limiter = rate.NewLimiter(rate.Limit(cfg.MaxRate), 1)
	}
	if cfg.Warmup > 0 {
		r.warmup()
	}
	if cfg.OnMeasure != nil {
		cfg.OnMeasure()
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
		return fmt.Errorf("give a total (-n) or a duration (-d)")
	}
	if len(c.Operations) == 0 {
		c.Operations = []Operation{{Method: "request"}}
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

func (c *Config) workerCount() int {
	if c.Rate <= 0 {
		return c.Concurrency
	}
	if c.MaxInFlight > 0 {
		return c.MaxInFlight
	}
	return int(min(1000, max(16, math.Ceil(c.Rate))))
}

func startWorkers(ctx context.Context, n int, newWorker NewWorker) ([]Worker, error) {
	workers := make([]Worker, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	// Sessions are opened a few at a time: a thousand simultaneous
	// handshakes would measure the server's accept queue, not the load.
	sem := make(chan struct{}, 32)
	for i := range workers {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			workers[i], errs[i] = newWorker(ctx, i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeWorkers(workers)
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
	}
	return workers, nil
}

func closeWorkers(ws []Worker) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range ws {
		if w == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Close(ctx) }()
	}
	wg.Wait()
}

// workerState is what one worker records. Latencies gather in a small
// buffer the worker owns and go into its shard's histograms flushEvery
// requests at a time: no lock per request, and memory that does not grow
// with the number of workers the way a set of histograms per worker would
// (one HdrHistogram over 1 µs–1 h is about 190 KB).
type workerState struct {
	shard     *histShard
	buf       [flushEvery]latencies
	n         int
	opKinds   [][mcp.NumKinds]int64
	kinds     [mcp.NumKinds]int64
	examples  [mcp.NumKinds]string
	sent      int64
	recv      int64
	poolWait  int64
	firstDone time.Time
	lastDone  time.Time
	// Read by the progress goroutine.
	done    atomic.Int64
	errors  atomic.Int64
	buckets [progressBuckets]atomic.Int64
	_       [64]byte // keep neighbours' counters off this cache line
}

// flushEvery is how many requests a worker buffers before taking its
// shard's lock.
const flushEvery = 64

// latencies are one request's figures in microseconds; the open-loop ones
// are 0 in a closed loop.
type latencies struct {
	lat, uncorrected, lag, wake int64
	op                          int32
}

// histShard holds the histograms a group of workers flush into.
type histShard struct {
	mu                     sync.Mutex
	lat                    *hdrhistogram.Histogram // corrected (open loop) or plain latency
	uncorrected, lag, wake *hdrhistogram.Histogram // open loop only
	ops                    []*hdrhistogram.Histogram
}

func newHistShard(nOps int, open bool) *histShard {
	h := &histShard{lat: NewHistogram()}
	if open {
		h.uncorrected, h.lag, h.wake = NewHistogram(), NewHistogram(), NewHistogram()
	}
	if nOps > 1 {
		h.ops = make([]*hdrhistogram.Histogram, nOps)
		for i := range h.ops {
			h.ops[i] = NewHistogram()
		}
	}
	return h
}

// shardCount spreads workers over a few shards per core: enough that
// flushes rarely meet, few enough that the histograms stay small.
func shardCount(workers int) int {
	return max(1, min(workers, 4*runtime.GOMAXPROCS(0), 64))
}

func newWorkerState(shard *histShard, nOps int) *workerState {
	s := &workerState{shard: shard}
	if nOps > 1 {
		s.opKinds = make([][mcp.NumKinds]int64, nOps)
	}
	return s
}

// record files one measured sample; l.lat is its latency.
func (s *workerState) record(smp Sample, l latencies, done time.Time) {
	l.lat = max(l.lat, 1)
	l.op = int32(smp.Op)
	s.buf[s.n] = l
	s.n++
	if s.n == flushEvery {
		s.flush()
	}
	if s.opKinds != nil && smp.Op >= 0 && smp.Op < len(s.opKinds) {
		s.opKinds[smp.Op][smp.Kind]++
	}
	s.kinds[smp.Kind]++
	if smp.Kind != mcp.OK {
		s.errors.Add(1)
		if s.examples[smp.Kind] == "" && smp.Err != nil {
			s.examples[smp.Kind] = smp.Err.Error()
		}
	}
	if smp.ConnWait > PoolWaitThreshold {
		s.poolWait++
	}
	s.sent += smp.Sent
	s.recv += smp.Received
	if s.firstDone.IsZero() {
		s.firstDone = done
	}
	s.lastDone = done
	s.buckets[progressBucket(l.lat)].Add(1)
	s.done.Add(1)
}

// flush moves the buffered figures into the shard's histograms.
func (s *workerState) flush() {
	h := s.shard
	h.mu.Lock()
	for _, l := range s.buf[:s.n] {
		_ = h.lat.RecordValue(l.lat)
		if h.uncorrected != nil {
			_ = h.uncorrected.RecordValue(max(l.uncorrected, 1))
			_ = h.lag.RecordValue(max(l.lag, 1))
			_ = h.wake.RecordValue(max(l.wake, 1))
		}
		if h.ops != nil && l.op >= 0 && int(l.op) < len(h.ops) {
			_ = h.ops[l.op].RecordValue(l.lat)
		}
	}
	h.mu.Unlock()
	s.n = 0
}

type runner struct {
	cfg     Config
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

func (r *runner) warmup() {
	var left atomic.Int64
	left.Store(r.cfg.Warmup)
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 && r.ctx.Err() == nil {
				w.Do(r.reqCtx)
			}
		}()
	}
	wg.Wait()
}

// closedLoop runs Concurrency workers, each sending its next request when
// its last one is answered.
func (r *runner) closedLoop() {
	var wg sync.WaitGroup
	n := len(r.workers)
	measureFrom := r.start
	if r.cfg.RampUp > 0 && !r.cfg.MeasureRamp {
		measureFrom = r.start.Add(r.cfg.RampUp)
	}
	r.measureStart = measureFrom
	deadline := time.Time{}
	if r.cfg.Duration > 0 {
		deadline = measureFrom.Add(r.cfg.Duration)
	}
	for i, w := range r.workers {
		st := r.states[i]
		var delay time.Duration
		if r.cfg.RampUp > 0 && n > 1 {
			delay = time.Duration(int64(r.cfg.RampUp) * int64(i) / int64(n))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if delay > 0 && !mcp.Sleep(r.ctx, time.Until(r.start.Add(delay))) {
				return
			}
			for r.ctx.Err() == nil {
				if r.limiter != nil && r.limiter.Wait(r.ctx) != nil {
					return
				}
				t0 := time.Now()
				if !deadline.IsZero() && !t0.Before(deadline) {
					return
				}
				measured := !t0.Before(measureFrom)
				if measured && r.cfg.Total > 0 && r.issued.Add(1) > r.cfg.Total {
					return
				}
				smp := w.Do(r.reqCtx)
				t1 := time.Now()
				if measured && !r.cancelledByGrace(smp) {
					st.record(smp, latencies{lat: t1.Sub(t0).Microseconds()}, t1)
				}
			}
		}()
	}
	wg.Wait()
}

// cancelledByGrace tells a request cut off at the end of the grace period
// after an interrupt: it was never answered, and is not counted.
func (r *runner) cancelledByGrace(s Sample) bool {
	return s.Kind != mcp.OK && r.reqCtx.Err() != nil
}

// openLoop sends request i at its scheduled time whatever happened to the
// earlier ones. Latency runs from the intended time, so a request that had
// to wait for a free worker carries that wait (coordinated omission).
func (r *runner) openLoop() {
	sched := Schedule{Rate: r.cfg.Rate, Ramp: r.cfg.RampUp}
	var skip int64 // requests of the ramp, not measured
	if r.cfg.RampUp > 0 && !r.cfg.MeasureRamp {
		skip = sched.Count(r.cfg.RampUp)
	}
	measureFrom := r.start.Add(sched.At(skip))
	r.measureStart = measureFrom
	var wg sync.WaitGroup
	for i, w := range r.workers {
		st := r.states[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.ctx.Err() == nil {
				i := r.issued.Add(1) - 1
				if r.cfg.Total > 0 && i-skip >= r.cfg.Total {
					return
				}
				intended := r.start.Add(sched.At(i))
				if r.cfg.Duration > 0 && i >= skip && intended.Sub(measureFrom) >= r.cfg.Duration {
					return
				}
				claimed := time.Now()
				// At the end of the window the generator stops, even if it
				// is behind: what it could not send is counted as unsent.
				if r.cfg.Duration > 0 && claimed.Sub(measureFrom) >= r.cfg.Duration {
					return
				}
				if !mcp.Sleep(r.ctx, time.Until(intended)) {
					return
				}
				sent := time.Now()
				smp := w.Do(r.reqCtx)
				done := time.Now()
				if i < skip || r.cancelledByGrace(smp) {
					continue
				}
				// The generator's own delay (wake): how late it sent when a
				// worker was free in time. Waiting for a worker is the
				// server's doing (or --max-in-flight's); waking late is ours.
				from := intended
				if claimed.After(intended) {
					from = claimed
				}
				st.record(smp, latencies{
					lat:         done.Sub(intended).Microseconds(),
					uncorrected: done.Sub(sent).Microseconds(),
					lag:         sent.Sub(intended).Microseconds(),
					wake:        sent.Sub(from).Microseconds(),
				}, done)
			}
		}()
	}
	wg.Wait()
	if r.cfg.Duration > 0 && r.ctx.Err() == nil {
		r.scheduled = sched.Count(sched.At(skip)+r.cfg.Duration) - skip
	}
}

func (r *runner) firstDone() time.Time {
	var first time.Time
	for _, s := range r.states {
		if !s.firstDone.IsZero() && (first.IsZero() || s.firstDone.Before(first)) {
			first = s.firstDone
		}
	}
	return first
}

func (r *runner) lastDone() time.Time {
	var end time.Time
	for _, s := range r.states {
		if s.lastDone.After(end) {
			end = s.lastDone
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	return end
}

// point merges the workers' records into one Point.
func (r *runner) point(end time.Time, cpu, runWait time.Duration) Point {
	cfg := r.cfg
	hist := NewHistogram()
	var kinds [mcp.NumKinds]int64
	var examples [mcp.NumKinds]string
	var sent, recv, poolWaits int64
	for _, s := range r.states {
		s.flush()
	}
	for _, sh := range r.shards {
		hist.Merge(sh.lat)
	}
	for _, s := range r.states {
		for k := range kinds {
			kinds[k] += s.kinds[k]
			if examples[k] == "" {
				examples[k] = s.examples[k]
			}
		}
		sent += s.sent
		recv += s.recv
		poolWaits += s.poolWait
	}
	elapsed := end.Sub(r.measureStart)
	if elapsed <= 0 {
		elapsed = time.Nanosecond
	}
	p := Point{
		Concurrency:   cfg.Concurrency,
		Total:         cfg.Total,
		Latency:       summarize(hist, kinds),
		ElapsedS:      elapsed.Seconds(),
		BytesSent:     sent,
		BytesReceived: recv,
		Hist:          hist,
	}
	p.RPS = float64(p.Requests) / elapsed.Seconds()
	if cfg.Rate > 0 {
		// Achieved rate: answers per second between the first and the last
		// answer. Counting from the first send instead would charge one
		// latency to the rate and read a server that keeps up as behind.
		if span := end.Sub(r.firstDone()); p.Requests > 1 && span > 0 {
			p.RPS = float64(p.Requests-1) / span.Seconds()
		}
	}
	p.ErrorExamples = errorExamples(examples)
	p.Histogram, _ = EncodeHistogram(hist)
	p.Client.CPUS = cpu.Seconds()
	p.Client.PoolWaits = poolWaits
	if cfg.Rate > 0 {
		rt := cfg.Rate
		p.Rate = &rt
		p.OfferedRPS = rt
		p.Concurrency = len(r.workers)
		unc, lag, wake := NewHistogram(), NewHistogram(), NewHistogram()
		for _, sh := range r.shards {
			unc.Merge(sh.uncorrected)
			lag.Merge(sh.lag)
			wake.Merge(sh.wake)
		}
		p.Uncorrected, p.ScheduleLagMS = &Uncorrected{}, &ScheduleLag{}
		p.Uncorrected.Fill(unc)
		p.ScheduleLagMS.Fill(lag)
		r.wakeP99 = time.Duration(wake.ValueAtQuantile(99)) * time.Microsecond
	}
	if r.scheduled > p.Requests {
		p.Unsent = r.scheduled - p.Requests
	}
	p.Client.Saturated, p.Client.SaturationReason = r.saturation(p, cpu, runWait, elapsed)
	if len(cfg.Operations) > 1 {
		p.ByOperation = make([]OperationStats, len(cfg.Operations))
		for i, op := range cfg.Operations {
			h := NewHistogram()
			var k [mcp.NumKinds]int64
			for _, sh := range r.shards {
				h.Merge(sh.ops[i])
			}
			for _, s := range r.states {
				for j := range k {
					k[j] += s.opKinds[i][j]
				}
			}
			p.ByOperation[i] = OperationStats{Operation: op, Latency: summarize(h, k)}
			p.ByOperation[i].RPS = float64(p.ByOperation[i].Requests) / elapsed.Seconds()
		}
	}
	return p
}

// saturation decides whether the generator, not the server, limited the
// point. Open loop: it sent late with a worker free, or it fell behind the
// schedule while short of CPU. Closed loop: it was short of CPU. The
// thresholds are generous: a false alarm costs trust in the warning.
func (r *runner) saturation(p Point, cpu, runWait, elapsed time.Duration) (bool, string) {
	cores := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	busy := cpu.Seconds() / (elapsed.Seconds() * float64(cores))
	waited := runWait.Seconds() / (elapsed.Seconds() * float64(cores))
	short := ""
	switch {
	case busy > 0.9:
		short = fmt.Sprintf("it used %.0f%% of the %d cores it may use", 100*busy, cores)
	case waited > 0.2:
		// Summed over its threads, so it can exceed the run's length.
		short = fmt.Sprintf("its threads waited %.1f s in all for a CPU during %.1f s on %d cores: the machine is busy", runWait.Seconds(), elapsed.Seconds(), cores)
	}
	if r.cfg.Rate <= 0 {
		if short != "" {
			return true, "the generator was short of CPU: " + short
		}
		return false, ""
	}
	if p.Requests > 0 && r.wakeP99 > r.cfg.LagThreshold {
		return true, fmt.Sprintf("the generator sent requests late by itself (p99 %.1f ms behind schedule with a worker free)", float64(r.wakeP99.Microseconds())/1000)
	}
	if short != "" && p.Unsent > r.scheduled/100 {
		return true, fmt.Sprintf("the generator fell behind its schedule (%d of %d requests never sent) while short of CPU: %s", p.Unsent, r.scheduled, short)
	}
	return false, ""
}

func summarize(h *hdrhistogram.Histogram, kinds [mcp.NumKinds]int64) Latency {
	l := Latency{ErrorsByKind: map[string]int64{}}
	for k, n := range kinds {
		l.Requests += n
		if mcp.Kind(k) == mcp.OK {
			l.OK += n
		} else if n > 0 {
			l.Errors += n
			l.ErrorsByKind[mcp.Kind(k).String()] = n
		}
	}
	if l.Requests > 0 {
		l.ErrorRate = float64(l.Errors) / float64(l.Requests)
	}
	l.FillPercentiles(h)
	return l
}

// FillPercentiles sets the latency fields from h (microseconds), leaving
// them zero for an empty histogram. Merged reports use it too, so their
// figures are computed exactly as a single run's are.
func (l *Latency) FillPercentiles(h *hdrhistogram.Histogram) {
	if h.TotalCount() == 0 {
		return
	}
	l.MinMS = ms(h.Min())
	l.MeanMS = h.Mean() / 1000
	l.P50MS = ms(h.ValueAtQuantile(50))
	l.P90MS = ms(h.ValueAtQuantile(90))
	l.P95MS = ms(h.ValueAtQuantile(95))
	l.P99MS = ms(h.ValueAtQuantile(99))
	l.P999MS = ms(h.ValueAtQuantile(99.9))
	l.MaxMS = ms(h.Max())
}

func errorExamples(ex [mcp.NumKinds]string) map[string]string {
	var m map[string]string
	for k, s := range ex {
		if s == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[mcp.Kind(k).String()] = s
	}
	return m
}

func ms(us int64) float64 { return float64(us) / 1000 }
