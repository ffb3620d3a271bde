// Package measure is the one vocabulary of what mcpbench measures: a
// load level's Point and the figures it holds, its Series and the session
// figures. bench fills these values, results does arithmetic over them
// and report renders them. The JSON names are the report's, and the field
// order is the order of the report's keys, so it never changes
// (results/testdata/schema.golden.json holds every field).
package measure

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// Operation is one operation of a workload (method and tool), or a step of
// a scenario.
type Operation struct {
	Method   string `json:"method"`
	Tool     string `json:"tool,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Step     string `json:"step,omitempty"`
}

// Latency is the latency and error summary shared by a whole point and by
// each operation inside it. Milliseconds throughout.
type Latency struct {
	Requests     int64            `json:"requests"`
	OK           int64            `json:"ok"`
	Errors       int64            `json:"errors"`
	ErrorRate    float64          `json:"error_rate"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	MinMS        float64          `json:"min_ms"`
	MeanMS       float64          `json:"mean_ms"`
	P50MS        float64          `json:"p50_ms"`
	P90MS        float64          `json:"p90_ms"`
	P95MS        float64          `json:"p95_ms"`
	P99MS        float64          `json:"p99_ms"`
	P999MS       float64          `json:"p999_ms"`
	MaxMS        float64          `json:"max_ms"`
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

// Uncorrected is open-loop latency measured from the actual send time,
// reported beside the corrected figures so the size of coordinated
// omission shows.
type Uncorrected struct {
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	// Histogram is the encoded histogram behind the figures, so merged
	// shard reports stay exact here too.
	Histogram string `json:"histogram,omitempty"`
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (u *Uncorrected) Fill(h *hdrhistogram.Histogram) {
	u.P50MS, u.P95MS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95))
	u.P99MS, u.MaxMS = ms(h.ValueAtQuantile(99)), ms(h.Max())
	u.Histogram, _ = hist.Encode(h)
}

// ScheduleLag is how late the open loop sent requests (or started
// sessions) against their intended times.
type ScheduleLag struct {
	P99       float64 `json:"p99"`
	Max       float64 `json:"max"`
	Histogram string  `json:"histogram,omitempty"` // as Uncorrected.Histogram
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (l *ScheduleLag) Fill(h *hdrhistogram.Histogram) {
	l.P99, l.Max = ms(h.ValueAtQuantile(99)), ms(h.Max())
	l.Histogram, _ = hist.Encode(h)
}

// Timing summarises the time to one milestone of the requests that reached
// it (the first event of a streamed answer, a task's creation), apart from
// their full latency, or the generator's own notice delay. Milliseconds.
type Timing struct {
	Count int64   `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P90MS float64 `json:"p90_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	// Histogram keeps merged shard reports exact, as elsewhere.
	Histogram string `json:"histogram,omitempty"`
}

// NewTiming summarises h (microseconds); nil when no request reached the
// milestone.
func NewTiming(h *hdrhistogram.Histogram) *Timing {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	t := &Timing{Count: h.TotalCount(), P50MS: ms(h.ValueAtQuantile(50)), P90MS: ms(h.ValueAtQuantile(90)),
		P99MS: ms(h.ValueAtQuantile(99)), MaxMS: ms(h.Max())}
	t.Histogram, _ = hist.Encode(h)
	return t
}

// ClientStats describe the generator itself, so a reader can tell a slow
// server from a starved client.
type ClientStats struct {
	PoolMaxConns int `json:"pool_max_conns"`
	// PoolWaits counts measured requests that waited more than the pool's
	// threshold for a connection (a dial, or a queue behind busy ones): 0
	// when the pool fits the load.
	PoolWaits int64 `json:"pool_waits"`
	// Dials is how many connections the client opened for the point:
	// since the last point ended, the client's setup in the first. Kept
	// connections make it the pool's size, whatever the requests.
	Dials            int64   `json:"dials"`
	CPUS             float64 `json:"cpu_s"`
	Saturated        bool    `json:"saturated"`
	SaturationReason string  `json:"saturation_reason,omitempty"`
	Engine           string  `json:"engine,omitempty"`
	// Driver is what ran the workers (goroutines or event loops) and
	// Loops how many event loops, when they did.
	Driver string `json:"driver,omitempty"`
	Loops  int    `json:"loops,omitempty"`
	// LatencyClock says what ended the latencies: "kernel-receive" (the
	// kernel's receive stamp of the answer), "user-space" (the generator's
	// noticing it) or "mixed". NoticeDelay is the generator's own delay
	// between the two, for the answers the kernel stamped (nil when none
	// were).
	LatencyClock string  `json:"latency_clock,omitempty"`
	NoticeDelay  *Timing `json:"notice_delay,omitempty"`
}

// OperationStats are the figures of one operation (or session step)
// within a point.
type OperationStats struct {
	Operation
	Latency
	RPS float64 `json:"rps"`
	// Histogram is the step's encoded histogram in a session run (merge
	// is exact per step); plain runs leave it out.
	Histogram string `json:"histogram,omitempty"`
}

// Point is one measured load level: the body of a run report and each
// point of a sweep.
type Point struct {
	Concurrency int      `json:"concurrency"`
	Rate        *float64 `json:"rate"`
	Total       int64    `json:"total"`
	Latency
	ElapsedS   float64 `json:"elapsed_s"`
	RPS        float64 `json:"rps"`
	OfferedRPS float64 `json:"offered_rps,omitempty"`
	// Unsent counts open-loop requests due in the window that the
	// generator never sent because it was still behind at the end.
	Unsent        int64        `json:"unsent,omitempty"`
	BytesSent     int64        `json:"bytes_sent"`
	BytesReceived int64        `json:"bytes_received"`
	Histogram     string       `json:"histogram"`
	Uncorrected   *Uncorrected `json:"uncorrected,omitempty"`
	ScheduleLagMS *ScheduleLag `json:"schedule_lag_ms,omitempty"`
	Client        ClientStats  `json:"client"`
	Interrupted   bool         `json:"interrupted,omitempty"`
	// ErrorExamples keeps the first message of each error kind.
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	// ByOperation has one entry per operation of a mix, or per step of a
	// session run.
	ByOperation []OperationStats `json:"by_operation,omitempty"`
	// FirstEvent is the time to the first event of streamed answers,
	// TaskCreated the time to a deferred task's creation.
	FirstEvent  *Timing `json:"first_event,omitempty"`
	TaskCreated *Timing `json:"task_created,omitempty"`
	// Counters are what a counting workload counted while measuring.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Sessions is set by a session run: its figures about whole sessions.
	Sessions *SessionStats `json:"sessions,omitempty"`
	// Series is the point interval by interval.
	Series *Series `json:"series,omitempty"`
	// Stages summarise a staged level stage by stage, and Spikes its
	// rises and recoveries.
	Stages []StageSummary `json:"stages,omitempty"`
	Spikes []Spike        `json:"spikes,omitempty"`

	// Hist is the decoded Histogram, kept for merging and for
	// percentiles a renderer wants beyond the fixed ones.
	Hist *hdrhistogram.Histogram `json:"-"`
}

// Feasible reports whether the point meets an SLO. A zero bound means
// "no bound".
func (p Point) Feasible(p95MS, p99MS, maxErrorRate float64) bool {
	if p95MS > 0 && p.P95MS > p95MS {
		return false
	}
	if p99MS > 0 && p.P99MS > p99MS {
		return false
	}
	return p.ErrorRate <= maxErrorRate
}

func ms(us int64) float64 { return float64(us) / 1000 }
