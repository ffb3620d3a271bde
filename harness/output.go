package harness

import (
	"context"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/workload"
)

// The output seam. Whatever watches a run or a sweep (a progress line, a
// line per interval, an exporter) is an Output in Setup.Outputs, and
// everything it sees comes through one stream: the recipe's events, the
// generator's settled intervals, and the final report. Neither harness
// nor bench knows which outputs exist.

// Output observes a run or a sweep.
//
// Calls come in this order: Start; then Events and Intervals as they
// happen; then Stop, once, whatever the outcome. Events come from the
// goroutine that called Run or Sweep (a failed server reading's warning
// from the sampling goroutine); Intervals, in order, from the generator's
// series loop. An output must not block: the load never waits for it, but
// the series loop does, and compacts no bucket meanwhile. One with slow
// work (a network push) queues it to a goroutine of its own.
type Output interface {
	// Start is called before the target is dialled. An error stops the
	// command before anything is sent (a *ConfigError for SettingOutput).
	Start(Meta) error
	// Interval receives each settled bucket of each measured point.
	Interval(PointInterval)
	// Event receives the recipe's moments (EventKind).
	Event(Event)
	// Stop receives the final report, gates not yet applied, or the error
	// that left none.
	Stop(Final)
}

// LateOutput is an Output that also wants the answers filed in a bucket
// after its Interval (bench.LateObserver): each batch as a PointInterval
// of those answers alone, with the bucket's Index and Step, after that
// bucket's Interval. An output that adds them to its buckets has the
// report's counts and histograms exactly; one that does not misses only
// these rare stragglers, which the final report counts.
type LateOutput interface {
	Output
	Late(PointInterval)
}

// OperationsOutput is an Output that wants each interval's latencies by
// operation (PointInterval.OperationHistogram) when a point mixes
// several: the generator keeps a histogram per operation per bucket only
// when one of the outputs says so.
type OperationsOutput interface {
	Output
	WantsOperationHistograms() bool
}

// Progresser is an Output that also wants a running snapshot about once
// a second while a point is measured (a progress line); it comes from a
// goroutine of the generator's own. Only then are snapshots taken.
type Progresser interface {
	Output
	Progress(PointProgress)
}

// Meta is what the command is about to do.
type Meta struct {
	Command string // "run" or "sweep"
	Version string
	// Levels are the levels it measures, in order (a refined sweep adds
	// more as it goes).
	Levels []sweep.Level
	// Interval is the length of the series' buckets as configured; 0
	// for the generator's default, a second (each Interval has its
	// Length).
	Interval time.Duration
	Shard    *results.Shard // nil when not sharded
}

// PointInterval is one settled bucket of a measured point.
type PointInterval struct {
	Interval
	// Step is the sweep point it belongs to; zero in a run.
	Step sweep.Step
}

// PointProgress is a running point's snapshot.
type PointProgress struct {
	Progress
	// Step is the sweep point being measured; zero in a run.
	Step sweep.Step
}

// Final is how a run or sweep ended.
type Final struct {
	// Run or Sweep is the report (of the points measured, for a sweep
	// stopped early); nil when none was made.
	Run   *results.RunReport
	Sweep *results.SweepReport
	// Err is what Run or Sweep returns beside it.
	Err error
}

// EventKind says what an Event is.
type EventKind int

// The events, in the order they come. A sweep repeats those from
// EventLevelStart to EventLevelEnd for each point; a run has no level
// events.
const (
	// EventPhase: a step before the load begins (Phase); PhaseDone when
	// the setup is over, whatever its outcome.
	EventPhase EventKind = iota
	// EventWorkload: what is sent is built; Tools and Warnings say what
	// it will call, before any is called.
	EventWorkload
	// EventWarning: a problem that does not stop the command (Setting,
	// Err): a log window that could not be scanned, a failed reading.
	EventWarning
	// EventLevelStart: a sweep point is about to be measured (Step).
	EventLevelStart
	// EventMeasureStart: the point's measured window opens, its warm-up
	// over.
	EventMeasureStart
	// EventLoadDone: the point's load has ended; its workers are not yet
	// closed (e.g. to profile what they hold).
	EventLoadDone
	// EventMeasureEnd: the point's measurement ended, whatever its
	// outcome (a progress line is cleared here).
	EventMeasureEnd
	// EventLevelEnd: a sweep point was measured (Point; nil when it
	// failed).
	EventLevelEnd
	// EventInterrupted: the context ended; what was measured is kept.
	EventInterrupted
)

// Event is one moment of a run or sweep.
type Event struct {
	Kind  EventKind
	Phase Phase      // EventPhase
	Step  sweep.Step // in a sweep, the point the event belongs to
	// Tools and Warnings: EventWorkload.
	Tools    []workload.ToolInfo
	Warnings []string
	// Header is the report's header as it will be (EventWorkload; its
	// Schema empty): an output that keeps a file of the run names the
	// target with it.
	Header results.Header
	// Setting and Err: EventWarning.
	Setting Setting
	Err     error
	Point   *measure.Point // EventLevelEnd, in the report's form
	// LoadStages are the point's shape (--stages; Rate for
	// --rate-stages), from the opening of its measured window:
	// EventMeasureStart of a staged point.
	LoadStages Stages
	Rate       bool
}

// SettingOutput is an output that could not start.
const SettingOutput Setting = "output"

// stream is the one path from the recipe and the generator to the
// outputs.
type stream struct {
	outs       []Output
	lates      []LateOutput
	wantOps    bool // an OperationsOutput wants histograms by operation
	progresses []Progresser
	// measuring, when set, runs as each measured window opens (the
	// client forgets the traced requests of the set-up and warm-up).
	measuring func()
}

func newStream(outs []Output) *stream {
	s := &stream{outs: outs}
	for _, o := range outs {
		if p, ok := o.(Progresser); ok {
			s.progresses = append(s.progresses, p)
		}
		if l, ok := o.(LateOutput); ok {
			s.lates = append(s.lates, l)
		}
		if w, ok := o.(OperationsOutput); ok && w.WantsOperationHistograms() {
			s.wantOps = true
		}
	}
	return s
}

// observed runs body between the outputs' Start and Stop, and tells Stop
// what body returned (final makes the Final of it).
func observed[R any](ctx context.Context, outs []Output, m Meta, body func(*stream) (R, error), final func(R, error) Final) (R, error) {
	out := newStream(outs)
	if err := out.start(m); err != nil {
		var none R
		return none, err
	}
	r, err := body(out)
	out.finish(ctx, final(r, err))
	return r, err
}

// start starts every output; when one fails, those started are stopped
// with its error.
func (s *stream) start(m Meta) error {
	for i, o := range s.outs {
		if err := o.Start(m); err != nil {
			ce := &ConfigError{Setting: SettingOutput, Err: err}
			for _, started := range s.outs[:i] {
				started.Stop(Final{Err: ce})
			}
			return ce
		}
	}
	return nil
}

// finish tells the outputs of an interrupt, then stops them.
func (s *stream) finish(ctx context.Context, f Final) {
	if ctx.Err() != nil {
		s.event(Event{Kind: EventInterrupted})
	}
	for _, o := range s.outs {
		o.Stop(f)
	}
}

func (s *stream) event(e Event) {
	for _, o := range s.outs {
		o.Event(e)
	}
}

func (s *stream) phase(ph Phase) { s.event(Event{Kind: EventPhase, Phase: ph}) }

func (s *stream) warn(setting Setting, err error) {
	s.event(Event{Kind: EventWarning, Setting: setting, Err: err})
}

// level is the generator's Observer for one point: it passes the point's
// moments and intervals on, tagged with its step.
func (s *stream) level(step sweep.Step, m Model) bench.Observer {
	l := levelStream{s: s, step: step}
	switch m := m.(type) {
	case ClosedStages:
		l.stages = m.Stages
	case RateStages:
		l.stages, l.rate = m.Stages, true
	}
	if len(s.progresses) > 0 {
		return progressStream{l}
	}
	return l
}

type levelStream struct {
	s      *stream
	step   sweep.Step
	stages bench.Stages // the point's shape, if staged
	rate   bool         // the stages are rates
}

func (l levelStream) Measuring() {
	if l.s.measuring != nil {
		l.s.measuring()
	}
	l.s.event(Event{Kind: EventMeasureStart, Step: l.step, LoadStages: l.stages, Rate: l.rate})
}
func (l levelStream) LoadDone() { l.s.event(Event{Kind: EventLoadDone, Step: l.step}) }

func (l levelStream) Interval(iv bench.Interval) {
	for _, o := range l.s.outs {
		o.Interval(PointInterval{Interval: iv, Step: l.step})
	}
}

func (l levelStream) WantsOperationHistograms() bool { return l.s.wantOps }

func (l levelStream) Late(iv bench.Interval) {
	for _, o := range l.s.lates {
		o.Late(PointInterval{Interval: iv, Step: l.step})
	}
}

// progressStream is a levelStream whose outputs want progress too.
type progressStream struct{ levelStream }

func (p progressStream) Progress(pr bench.Progress) {
	for _, o := range p.s.progresses {
		o.Progress(PointProgress{Progress: pr, Step: p.step})
	}
}

// NopOutput does nothing; embed it to implement only part of Output.
type NopOutput struct{}

func (NopOutput) Start(Meta) error       { return nil }
func (NopOutput) Interval(PointInterval) {}
func (NopOutput) Event(Event)            {}
func (NopOutput) Stop(Final)             {}
