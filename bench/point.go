package bench

import (
	"encoding/base64"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms record microseconds from 1 µs to one hour at 3 significant
// digits: the precision wrk2 and fortio use, small enough to keep one per
// worker.
const (
	histMinMicros = 1
	histMaxMicros = 3_600_000_000
	histDigits    = 3
)

// NewHistogram returns an empty latency histogram in microseconds.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMinMicros, histMaxMicros, histDigits)
}

// EncodeHistogram is the base64 text of the compressed HdrHistogram V2 form,
// which merge decodes without loss. Histograms of NewHistogram's geometry
// go through a kept encoder (histenc.go), the others through the library.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	if !bucketGeometry(h) {
		return encodeWithLibrary(h)
	}
	e := histEncoders.Get().(*histEncoder)
	defer histEncoders.Put(e)
	return e.encode(h), nil
}

// encodeWithLibrary is EncodeHistogram by the library's encoder.
func encodeWithLibrary(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeHistogram reverses EncodeHistogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
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

// Uncorrected holds open-loop latency measured from the actual send time,
// reported beside the corrected figures so the size of coordinated omission
// is visible.
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
	u.Histogram, _ = EncodeHistogram(h)
}

// ScheduleLag is how late the open-loop generator sent requests against
// their intended times.
type ScheduleLag struct {
	P99       float64 `json:"p99"`
	Max       float64 `json:"max"`
	Histogram string  `json:"histogram,omitempty"` // as Uncorrected.Histogram
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (l *ScheduleLag) Fill(h *hdrhistogram.Histogram) {
	l.P99, l.Max = ms(h.ValueAtQuantile(99)), ms(h.Max())
	l.Histogram, _ = EncodeHistogram(h)
}

// Stage summarises the time to one stage of the requests that reached it
// (the first event of a streamed answer, a task's creation), apart from
// their full latency. Milliseconds.
type Stage struct {
	Count int64   `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P90MS float64 `json:"p90_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	// Histogram keeps merged shard reports exact, as elsewhere.
	Histogram string `json:"histogram,omitempty"`
}

// NewStage summarises h (microseconds); nil when no request reached the
// stage.
func NewStage(h *hdrhistogram.Histogram) *Stage {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	st := &Stage{Count: h.TotalCount(), P50MS: ms(h.ValueAtQuantile(50)), P90MS: ms(h.ValueAtQuantile(90)),
		P99MS: ms(h.ValueAtQuantile(99)), MaxMS: ms(h.Max())}
	st.Histogram, _ = EncodeHistogram(h)
	return st
}

// ClientStats describes the generator itself, so a reader can tell a slow
// server from a starved client.
type ClientStats struct {
	PoolMaxConns int `json:"pool_max_conns"`
	// PoolWaits counts measured requests that waited more than
	// PoolWaitThreshold for a connection (a dial, or a queue behind busy
	// ones): 0 when the pool fits the load.
	PoolWaits        int64   `json:"pool_waits"`
	CPUS             float64 `json:"cpu_s"`
	Saturated        bool    `json:"saturated"`
	SaturationReason string  `json:"saturation_reason,omitempty"`
	Engine           string  `json:"engine,omitempty"`
	// Driver is what ran the workers (DriverGoroutines, DriverLoops) and
	// Loops how many event loops, when they did.
	Driver string `json:"driver,omitempty"`
	Loops  int    `json:"loops,omitempty"`
}

// OperationStats are the figures of one operation (method and tool) within
// a point.
type OperationStats struct {
	Operation
	Latency
	RPS float64 `json:"rps"`
	// Histogram is the step's encoded histogram in a session run (merge
	// is exact per step); plain runs leave it out.
	Histogram string `json:"histogram,omitempty"`
}

// Point is one measured load level: the unit a run reports and a sweep
// collects.
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
	// TaskCreated the time to a deferred task's creation (Sample).
	FirstEvent  *Stage `json:"first_event,omitempty"`
	TaskCreated *Stage `json:"task_created,omitempty"`
	// Counters are what a Counting workload counted while measuring.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Sessions is set by a session run: its figures about whole sessions.
	Sessions *SessionStats `json:"sessions,omitempty"`
	// Series is the point interval by interval (Config.Interval).
	Series *Series `json:"series,omitempty"`

	// Hist is the decoded form of Histogram, kept for merging and for
	// percentiles a report may want beyond the fixed ones.
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
