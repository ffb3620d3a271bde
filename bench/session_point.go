package bench

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// SessionStats are a session run's figures about whole sessions; the
// Point around them holds the step figures (its requests are the steps,
// ByOperation has one entry per step).
type SessionStats struct {
	// Started counts measured sessions begun; the figures below count
	// those that ran to their end (an interrupt cuts the others short).
	Started int64
	SessionFigures
	// Open loop only: duration from the actual start, how late sessions
	// started against the schedule, and how many due in the window were
	// never started.
	Uncorrected *Uncorrected
	StartLagMS  *ScheduleLag
	Unstarted   int64
	// Abandoned counts the measured sessions ended without a DELETE on
	// purpose (--abandon-sessions).
	Abandoned int64
	// ByScenario has one entry per scenario, in the workload's order.
	ByScenario []ScenarioStats
	// PeakOpen is the most sessions under way at once (sampled every
	// 50 ms), and MemoryPerSession the generator's Go memory (heap
	// objects and stacks) per session then, over what it held before the
	// users were made: the cost of an idle session when users mostly
	// think. 0 when no sample saw a session open.
	PeakOpen         int64
	MemoryPerSession float64
}

// ScenarioStats are the session figures of one scenario.
type ScenarioStats struct {
	Scenario string
	SessionFigures
}

// SessionFigures describe completed sessions, of one scenario or all.
type SessionFigures struct {
	// Completed sessions ran to their end; Failed ones had at least one
	// step in error.
	Completed int64
	Failed    int64
	// PerSecond is completed sessions per second of the measured window.
	PerSecond float64
	// Steps and ThinkS are the step count and think time in all;
	// MeanSteps and MeanThinkMS are per session.
	Steps       int64
	ThinkS      float64
	MeanSteps   float64
	MeanThinkMS float64
	// Duration is a session's wall time, think time included; in an open
	// loop it runs from the session's intended start, so a session that
	// waited for a free user carries the wait (coordinated omission).
	// Active leaves the think time out: the time spent waiting on the
	// server.
	Duration SessionTimes
	Active   SessionTimes
}

// Add sums o's counts (not its durations or means) into f; merged
// reports use it too.
func (f *SessionFigures) Add(o *SessionFigures) {
	f.Completed += o.Completed
	f.Failed += o.Failed
	f.Steps += o.Steps
	f.ThinkS += o.ThinkS
}

// SessionTimes summarise a session duration histogram, in milliseconds,
// and keep it encoded so merged reports stay exact.
type SessionTimes struct {
	MeanMS    float64
	P50MS     float64
	P90MS     float64
	P95MS     float64
	P99MS     float64
	MaxMS     float64
	Histogram string
}

// Fill sets the figures from h (microseconds) and keeps h encoded; an
// empty h leaves them zero.
func (t *SessionTimes) Fill(h *hdrhistogram.Histogram) {
	*t = SessionTimes{}
	t.Histogram, _ = hist.Encode(h)
	if h.TotalCount() == 0 {
		return
	}
	t.MeanMS = h.Mean() / 1000
	t.P50MS, t.P90MS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(90))
	t.P95MS, t.P99MS = ms(h.ValueAtQuantile(95)), ms(h.ValueAtQuantile(99))
	t.MaxMS = ms(h.Max())
}

// Means sets the per-session means and the rate from the totals, over a
// window of elapsedS seconds. Merged reports use it too.
func (f *SessionFigures) Means(elapsedS float64) {
	f.MeanSteps, f.MeanThinkMS, f.PerSecond = means(f.Completed, f.Steps, f.ThinkS, elapsedS)
}

func means(completed, steps int64, thinkS, elapsedS float64) (meanSteps, meanThinkMS, perSecond float64) {
	if completed > 0 {
		meanSteps = float64(steps) / float64(completed)
		meanThinkMS = 1000 * thinkS / float64(completed)
	}
	if elapsedS > 0 {
		perSecond = float64(completed) / elapsedS
	}
	return meanSteps, meanThinkMS, perSecond
}

// fill adds the session figures to p, a session level's Point over
// elapsed: the load as users and sessions per second, and the sessions'
// own figures.
func (sr *sessionRunner) fill(p *Point, elapsed time.Duration) {
	p.Concurrency = len(sr.users)
	if sr.p.open() {
		rt := sr.p.rate
		p.Rate = &rt
	}
	s := &SessionStats{ByScenario: make([]ScenarioStats, len(sr.scenarios))}
	all, allActive := NewHistogram(), NewHistogram()
	for k, name := range sr.scenarios {
		sc := &s.ByScenario[k]
		sc.Scenario = name
		var think time.Duration
		for _, u := range sr.seen {
			c := u.byScenario[k]
			sc.Completed += c.completed
			sc.Failed += c.failed
			sc.Steps += c.steps
			think += c.think
		}
		sc.ThinkS = think.Seconds()
		sc.Duration.Fill(sr.duration[k])
		sc.Active.Fill(sr.active[k])
		sc.Means(elapsed.Seconds())
		all.Merge(sr.duration[k])
		allActive.Merge(sr.active[k])
		s.Add(&sc.SessionFigures)
	}
	for _, u := range sr.seen {
		s.Started += u.started
	}
	s.Duration.Fill(all)
	s.Active.Fill(allActive)
	s.Means(elapsed.Seconds())
	if sr.uncorrected != nil {
		s.Uncorrected, s.StartLagMS = &Uncorrected{}, &ScheduleLag{}
		s.Uncorrected.Fill(sr.uncorrected)
		s.StartLagMS.Fill(sr.lag)
		s.Unstarted = max(sr.due-s.Started, 0)
		sr.judgeWake(sr.wake)
	}
	p.Sessions = s
}
