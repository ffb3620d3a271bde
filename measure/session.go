package measure

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// SessionStats are a session run's figures about whole sessions; the
// Point around them holds the step figures (its requests are the steps,
// ByOperation has one entry per step).
type SessionStats struct {
	// Started counts measured sessions begun; the figures below count
	// those that ran to their end (an interrupt cuts the others short).
	Started int64 `json:"started"`
	SessionFigures
	// Open loop only: duration from the actual start, how late sessions
	// started against the schedule, and how many due in the window were
	// never started.
	Uncorrected *Uncorrected `json:"uncorrected,omitempty"`
	StartLagMS  *ScheduleLag `json:"start_lag_ms,omitempty"`
	Unstarted   int64        `json:"unstarted,omitempty"`
	// Abandoned counts the measured sessions ended without a DELETE on
	// purpose (--abandon-sessions).
	Abandoned int64 `json:"abandoned,omitempty"`
	// ByScenario has one entry per scenario, in the workload's order.
	ByScenario []ScenarioStats `json:"by_scenario"`
	// PeakOpen is the most sessions under way at once (sampled every
	// 50 ms), and MemoryPerSession the generator's Go memory (heap
	// objects and stacks) per session then, over what it held before the
	// users were made: the cost of an idle session when users mostly
	// think. 0 when no sample saw a session open.
	PeakOpen         int64   `json:"peak_open,omitempty"`
	MemoryPerSession float64 `json:"memory_per_session_bytes,omitempty"`
}

// ScenarioStats are the session figures of one scenario.
type ScenarioStats struct {
	Scenario string `json:"scenario"`
	SessionFigures
}

// SessionFigures describe completed sessions, of one scenario or all.
type SessionFigures struct {
	// Completed sessions ran to their end; Failed ones had at least one
	// step in error.
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	// PerSecond is completed sessions per second of the measured window.
	PerSecond float64 `json:"per_second"`
	// Steps and ThinkS are the step count and think time in all;
	// MeanSteps and MeanThinkMS are per session.
	Steps       int64   `json:"steps"`
	ThinkS      float64 `json:"think_s"`
	MeanSteps   float64 `json:"mean_steps"`
	MeanThinkMS float64 `json:"mean_think_ms"`
	// Duration is a session's wall time, think time included; in an open
	// loop it runs from the session's intended start, so a session that
	// waited for a free user carries the wait (coordinated omission).
	// Active leaves the think time out: the time spent waiting on the
	// server.
	Duration SessionTimes `json:"duration_ms"`
	Active   SessionTimes `json:"active_ms"`
}

// Add sums o's counts (not its durations or means) into f; merged
// reports use it too.
func (f *SessionFigures) Add(o *SessionFigures) {
	f.Completed += o.Completed
	f.Failed += o.Failed
	f.Steps += o.Steps
	f.ThinkS += o.ThinkS
}

// Means sets the per-session means and the rate from the totals, over a
// window of elapsedS seconds. Merged reports use it too.
func (f *SessionFigures) Means(elapsedS float64) {
	f.MeanSteps, f.MeanThinkMS, f.PerSecond = 0, 0, 0
	if f.Completed > 0 {
		f.MeanSteps = float64(f.Steps) / float64(f.Completed)
		f.MeanThinkMS = 1000 * f.ThinkS / float64(f.Completed)
	}
	if elapsedS > 0 {
		f.PerSecond = float64(f.Completed) / elapsedS
	}
}

// SessionTimes summarise a session duration histogram, in milliseconds,
// and keep it encoded so merged reports stay exact.
type SessionTimes struct {
	MeanMS    float64 `json:"mean"`
	P50MS     float64 `json:"p50"`
	P90MS     float64 `json:"p90"`
	P95MS     float64 `json:"p95"`
	P99MS     float64 `json:"p99"`
	MaxMS     float64 `json:"max"`
	Histogram string  `json:"histogram,omitempty"`
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
