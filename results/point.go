package results

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The report's shape of a measured load level. Each type here mirrors a
// plain measurement type of bench field for field, in the same order, and
// adds the JSON names: bench measures, this package says how a report
// writes it (measured.go converts between the two). The field order is
// the order of the report's keys, so it never changes.

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

// Uncorrected is open-loop latency from the actual send time, beside the
// corrected figures, so the size of coordinated omission shows.
type Uncorrected struct {
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	// Histogram keeps merged shard reports exact here too.
	Histogram string `json:"histogram,omitempty"`
}

// ScheduleLag is how late the open loop sent requests (or started
// sessions) against their intended times.
type ScheduleLag struct {
	P99       float64 `json:"p99"`
	Max       float64 `json:"max"`
	Histogram string  `json:"histogram,omitempty"`
}

// Stage is the time to one stage of the requests that reached it (the
// first event of a streamed answer, a task's creation).
type Stage struct {
	Count     int64   `json:"count"`
	P50MS     float64 `json:"p50_ms"`
	P90MS     float64 `json:"p90_ms"`
	P99MS     float64 `json:"p99_ms"`
	MaxMS     float64 `json:"max_ms"`
	Histogram string  `json:"histogram,omitempty"`
}

// ClientStats describe the generator, so a reader can tell a slow server
// from a starved client.
type ClientStats struct {
	PoolMaxConns     int     `json:"pool_max_conns"`
	PoolWaits        int64   `json:"pool_waits"`
	Dials            int64   `json:"dials"`
	CPUS             float64 `json:"cpu_s"`
	Saturated        bool    `json:"saturated"`
	SaturationReason string  `json:"saturation_reason,omitempty"`
	Engine           string  `json:"engine,omitempty"`
	Driver           string  `json:"driver,omitempty"`
	Loops            int     `json:"loops,omitempty"`
}

// OperationStats are the figures of one operation (or session step)
// within a point.
type OperationStats struct {
	Operation
	Latency
	RPS       float64 `json:"rps"`
	Histogram string  `json:"histogram,omitempty"`
}

// Point is one measured load level as a report writes it: the body of a
// run report and each point of a sweep.
type Point struct {
	Concurrency int      `json:"concurrency"`
	Rate        *float64 `json:"rate"`
	Total       int64    `json:"total"`
	Latency
	ElapsedS      float64           `json:"elapsed_s"`
	RPS           float64           `json:"rps"`
	OfferedRPS    float64           `json:"offered_rps,omitempty"`
	Unsent        int64             `json:"unsent,omitempty"`
	BytesSent     int64             `json:"bytes_sent"`
	BytesReceived int64             `json:"bytes_received"`
	Histogram     string            `json:"histogram"`
	Uncorrected   *Uncorrected      `json:"uncorrected,omitempty"`
	ScheduleLagMS *ScheduleLag      `json:"schedule_lag_ms,omitempty"`
	Client        ClientStats       `json:"client"`
	Interrupted   bool              `json:"interrupted,omitempty"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	ByOperation   []OperationStats  `json:"by_operation,omitempty"`
	FirstEvent    *Stage            `json:"first_event,omitempty"`
	TaskCreated   *Stage            `json:"task_created,omitempty"`
	Counters      map[string]int64  `json:"counters,omitempty"`
	Sessions      *SessionStats     `json:"sessions,omitempty"`
	Series        *Series           `json:"series,omitempty"`
	Stages        []StageSummary    `json:"stages,omitempty"`
	Spikes        []Spike           `json:"spikes,omitempty"`

	// Hist is the decoded Histogram, for merging and for percentiles a
	// renderer wants beyond the fixed ones.
	Hist *hdrhistogram.Histogram `json:"-"`
}

// SessionStats are a session run's figures about whole sessions.
type SessionStats struct {
	Started int64 `json:"started"`
	SessionFigures
	Uncorrected *Uncorrected    `json:"uncorrected,omitempty"`
	StartLagMS  *ScheduleLag    `json:"start_lag_ms,omitempty"`
	Unstarted   int64           `json:"unstarted,omitempty"`
	Abandoned   int64           `json:"abandoned,omitempty"`
	ByScenario  []ScenarioStats `json:"by_scenario"`
}

// ScenarioStats are the session figures of one scenario.
type ScenarioStats struct {
	Scenario string `json:"scenario"`
	SessionFigures
}

// SessionFigures describe completed sessions, of one scenario or all.
type SessionFigures struct {
	Completed   int64        `json:"completed"`
	Failed      int64        `json:"failed"`
	PerSecond   float64      `json:"per_second"`
	Steps       int64        `json:"steps"`
	ThinkS      float64      `json:"think_s"`
	MeanSteps   float64      `json:"mean_steps"`
	MeanThinkMS float64      `json:"mean_think_ms"`
	Duration    SessionTimes `json:"duration_ms"`
	Active      SessionTimes `json:"active_ms"`
}

// SessionTimes summarise a session duration histogram in milliseconds.
type SessionTimes struct {
	MeanMS    float64 `json:"mean"`
	P50MS     float64 `json:"p50"`
	P90MS     float64 `json:"p90"`
	P95MS     float64 `json:"p95"`
	P99MS     float64 `json:"p99"`
	MaxMS     float64 `json:"max"`
	Histogram string  `json:"histogram,omitempty"`
}
