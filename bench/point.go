package bench

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// NewHistogram returns an empty latency histogram in microseconds, of the
// geometry every report's histograms have (internal/hist).
func NewHistogram() *hdrhistogram.Histogram { return hist.New() }

// Latency is the latency and error summary shared by a whole point and by
// each operation inside it. Milliseconds throughout.
type Latency struct {
	Requests     int64
	OK           int64
	Errors       int64
	ErrorRate    float64
	ErrorsByKind map[string]int64
	MinMS        float64
	MeanMS       float64
	P50MS        float64
	P90MS        float64
	P95MS        float64
	P99MS        float64
	P999MS       float64
	MaxMS        float64
}

// Uncorrected holds open-loop latency measured from the actual send time,
// reported beside the corrected figures so the size of coordinated omission
// is visible.
type Uncorrected struct {
	P50MS float64
	P95MS float64
	P99MS float64
	MaxMS float64
	// Histogram is the encoded histogram behind the figures, so merged
	// shard reports stay exact here too.
	Histogram string
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (u *Uncorrected) Fill(h *hdrhistogram.Histogram) {
	u.P50MS, u.P95MS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95))
	u.P99MS, u.MaxMS = ms(h.ValueAtQuantile(99)), ms(h.Max())
	u.Histogram, _ = hist.Encode(h)
}

// ScheduleLag is how late the open-loop generator sent requests against
// their intended times.
type ScheduleLag struct {
	P99       float64
	Max       float64
	Histogram string // as Uncorrected.Histogram
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (l *ScheduleLag) Fill(h *hdrhistogram.Histogram) {
	l.P99, l.Max = ms(h.ValueAtQuantile(99)), ms(h.Max())
	l.Histogram, _ = hist.Encode(h)
}

// Stage summarises the time to one stage of the requests that reached it
// (the first event of a streamed answer, a task's creation), apart from
// their full latency. Milliseconds.
type Stage struct {
	Count int64
	P50MS float64
	P90MS float64
	P99MS float64
	MaxMS float64
	// Histogram keeps merged shard reports exact, as elsewhere.
	Histogram string
}

// NewStage summarises h (microseconds); nil when no request reached the
// stage.
func NewStage(h *hdrhistogram.Histogram) *Stage {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	st := &Stage{Count: h.TotalCount(), P50MS: ms(h.ValueAtQuantile(50)), P90MS: ms(h.ValueAtQuantile(90)),
		P99MS: ms(h.ValueAtQuantile(99)), MaxMS: ms(h.Max())}
	st.Histogram, _ = hist.Encode(h)
	return st
}

// ClientStats describes the generator itself, so a reader can tell a slow
// server from a starved client.
type ClientStats struct {
	PoolMaxConns int
	// PoolWaits counts measured requests that waited more than
	// PoolWaitThreshold for a connection (a dial, or a queue behind busy
	// ones): 0 when the pool fits the load.
	PoolWaits int64
	// Dials is how many connections the client opened for the point:
	// since the last point ended, the client's setup in the first. Kept
	// connections make it the pool's size, whatever the requests.
	Dials            int64
	CPUS             float64
	Saturated        bool
	SaturationReason string
	Engine           string
	// Driver is what ran the workers (DriverGoroutines, DriverLoops) and
	// Loops how many event loops, when they did.
	Driver string
	Loops  int
}

// OperationStats are the figures of one operation (method and tool) within
// a point.
type OperationStats struct {
	Operation
	Latency
	RPS float64
	// Histogram is the step's encoded histogram in a session run (merge
	// is exact per step); plain runs leave it out.
	Histogram string
}

// Point is one measured load level: the unit a run reports and a sweep
// collects. It and the types it holds are plain measurements; the report's
// shape of them, with their JSON names, is results.Point, which keeps these
// fields in this order (results converts one into the other).
type Point struct {
	Concurrency int
	Rate        *float64
	Total       int64
	Latency
	ElapsedS   float64
	RPS        float64
	OfferedRPS float64
	// Unsent counts open-loop requests due in the window that the
	// generator never sent because it was still behind at the end.
	Unsent        int64
	BytesSent     int64
	BytesReceived int64
	Histogram     string
	Uncorrected   *Uncorrected
	ScheduleLagMS *ScheduleLag
	Client        ClientStats
	Interrupted   bool
	// ErrorExamples keeps the first message of each error kind.
	ErrorExamples map[string]string
	// ByOperation has one entry per operation of a mix, or per step of a
	// session run.
	ByOperation []OperationStats
	// FirstEvent is the time to the first event of streamed answers,
	// TaskCreated the time to a deferred task's creation (Sample).
	FirstEvent  *Stage
	TaskCreated *Stage
	// Counters are what a Counting workload counted while measuring.
	Counters map[string]int64
	// Sessions is set by a session run: its figures about whole sessions.
	Sessions *SessionStats
	// Series is the point interval by interval (Config.Interval).
	Series *Series
	// Stages summarise a staged level stage by stage, and Spikes its
	// rises and recoveries (stage_summary.go).
	Stages []StageSummary
	Spikes []Spike

	// Hist is the decoded form of Histogram, kept for merging and for
	// percentiles a report may want beyond the fixed ones.
	Hist *hdrhistogram.Histogram
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
