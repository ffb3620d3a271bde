// Package telemetry holds the outputs that stream a run or sweep while it
// runs: a JSON Lines file that survives the process being killed, and the
// exporters to Prometheus remote write and OpenTelemetry. Each is a
// harness.Output; none blocks the series loop for longer than a write to a
// local file.
package telemetry

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/workload"
)

// SchemaJSONL names the JSON Lines file's format in its header line.
const SchemaJSONL = "mcpbench.jsonl/v1"

// The line types of the file, in the order they come: one header, the
// workload once the target is known, then intervals and events as they
// happen, and a summary when the command ended in an orderly way. An
// interval is written as soon as its bucket is settled, a grace after its
// end; the rare answers filed in it later follow as a late line (its
// step and index, their counts and histogram), which a reader adds in.
const (
	lineHeader   = "header"
	lineWorkload = "workload"
	lineInterval = "interval"
	lineLate     = "late"
	lineEvent    = "event"
	lineSummary  = "summary"
)

// headerLine is the run's metadata, written at Start.
type headerLine struct {
	Type      string            `json:"type"`
	Schema    string            `json:"schema"`
	Command   string            `json:"command"`
	Version   string            `json:"mcpbench_version"`
	RunID     string            `json:"run_id,omitempty"`
	IntervalS float64           `json:"interval_s"`
	Levels    []level           `json:"levels"`
	Shard     *results.Shard    `json:"shard,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// workloadLine is the report's header and the tools called, once the
// target has answered.
type workloadLine struct {
	Type   string              `json:"type"`
	Header results.Header      `json:"header"`
	Tools  []workload.ToolInfo `json:"tools,omitempty"`
}

// intervalLine is one settled bucket: answers by operation and outcome,
// and the bucket's histogram, so that a reader rebuilds the point's
// figures exactly.
type intervalLine struct {
	Type    string    `json:"type"`
	Step    int       `json:"step"` // the sweep point (from 1); 0 in a run
	Index   int       `json:"index"`
	Start   time.Time `json:"start"`
	EndS    float64   `json:"end_s"`
	LengthS float64   `json:"length_s"`
	Sent    int64     `json:"sent"`
	outcomes
	P50MS      measure.Figure    `json:"p50_ms"` // null with no answers, as in late lines
	P95MS      measure.Figure    `json:"p95_ms"`
	P99MS      measure.Figure    `json:"p99_ms"`
	MaxMS      measure.Figure    `json:"max_ms"`
	Operations []operationCounts `json:"operations,omitempty"`
	CPUS       float64           `json:"cpu_s"`
	Histogram  string            `json:"histogram,omitempty"`
	Server     []serverValue     `json:"server,omitempty"`
}

// outcomes are answers by outcome: the successes, and the others by
// their error kind.
type outcomes struct {
	OK     int64            `json:"ok"`
	Errors map[string]int64 `json:"errors,omitempty"`
}

// operationCounts are one operation's answers in a bucket, and their
// latencies when the bucket mixes operations.
type operationCounts struct {
	measure.Operation
	outcomes
	Histogram string `json:"histogram,omitempty"`
}

// serverValue is one server gauge read at the bucket's end; nil when the
// reading is missing.
type serverValue struct {
	Name   string   `json:"name"`
	Unit   string   `json:"unit,omitempty"`
	Kind   string   `json:"kind"`
	Source string   `json:"source"`
	Value  *float64 `json:"value"`
}

// eventLine is one of the recipe's moments.
type eventLine struct {
	Type    string         `json:"type"`
	Event   string         `json:"event"`
	Step    int            `json:"step,omitempty"`
	Setting string         `json:"setting,omitempty"`
	Point   *measure.Point `json:"point,omitempty"`
	// Stage names a set-up step (event "stage").
	Stage string `json:"stage,omitempty"`
	// LoadStage is one stage of a staged point (event "load_stage").
	LoadStage *loadStage `json:"load_stage,omitempty"`
	// Gate is a pass/fail check as the exit code saw it (event "gate").
	Gate *results.Gate `json:"gate,omitempty"`
}

// loadStage is a stage of --stages or --rate-stages: from StartS after
// the measured window opens, over DurationS, the target (workers, or
// requests/s with Rate) moves to Target.
type loadStage struct {
	Index     int     `json:"index"`
	StartS    float64 `json:"start_s"`
	DurationS float64 `json:"duration_s"`
	Target    float64 `json:"target"`
	Rate      bool    `json:"rate,omitempty"`
}

// summaryLine closes the file with the final report, as the command
// writes it before its gates (or the error that left none).
type summaryLine struct {
	Type  string               `json:"type"`
	Run   *results.RunReport   `json:"run,omitempty"`
	Sweep *results.SweepReport `json:"sweep,omitempty"`
	Error string               `json:"error,omitempty"`
}

// JSONL is the output of --out json=FILE. Each line goes straight to the
// file with one write, so a process killed at any moment leaves every
// line written before, and at most the interval in progress is lost.
type JSONL struct {
	Path   string
	Labels map[string]string
	RunID  string
	// Wrap, when set, wraps the file (e.g. to scrub secrets); each line
	// reaches it in one Write.
	Wrap func(io.Writer) io.Writer

	mu      sync.Mutex
	stopped bool
	f       *os.File
	w       io.Writer
	buf     []byte
	err     error
}

// Start creates the file and writes the header.
func (j *JSONL) Start(m harness.Meta) error {
	f, err := os.Create(j.Path)
	if err != nil {
		return err
	}
	j.f, j.w = f, f
	if j.Wrap != nil {
		j.w = j.Wrap(f)
	}
	j.write(headerLine{Type: lineHeader, Schema: SchemaJSONL, Command: m.Command, Version: m.Version, RunID: j.RunID,
		IntervalS: intervalOf(m).Seconds(), Levels: levelsOf(m.Levels), Shard: m.Shard, Labels: j.Labels})
	return j.err
}

// level is a load level as the file names it.
type level struct {
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`
}

func levelsOf(ls []sweep.Level) []level {
	out := make([]level, len(ls))
	for i, l := range ls {
		out[i] = level(l)
	}
	return out
}

// intervalOf is the series' bucket length the command asked for.
func intervalOf(m harness.Meta) time.Duration {
	if m.Interval > 0 {
		return m.Interval
	}
	return time.Second
}

// WantsOperationHistograms: the file keeps each operation's latencies
// per interval.
func (j *JSONL) WantsOperationHistograms() bool { return true }

// Interval writes a settled bucket.
func (j *JSONL) Interval(iv harness.PointInterval) {
	j.write(intervalLineOf(iv))
}

// Late writes the answers filed in a bucket after its interval line.
func (j *JSONL) Late(iv harness.PointInterval) {
	l := intervalLineOf(iv)
	l.Type, l.Sent, l.CPUS, l.Server = lineLate, 0, 0, nil
	l.noLatency()
	j.write(l)
}

// noLatency leaves the line's percentiles out (null): it has no answers
// of its own to take them from.
func (l *intervalLine) noLatency() {
	nan := measure.Figure(math.NaN())
	l.P50MS, l.P95MS, l.P99MS, l.MaxMS = nan, nan, nan, nan
}

// intervalLineOf is iv as the file has it.
func intervalLineOf(iv harness.PointInterval) intervalLine {
	l := intervalLine{Type: lineInterval, Step: iv.Step.N, Index: iv.Index, Start: iv.Start.UTC(),
		EndS: iv.End.Seconds(), LengthS: iv.Length.Seconds(), Sent: iv.Sent, CPUS: iv.CPU.Seconds(),
		outcomes: outcomesOf(iv.Kinds, iv.Counts[:]), Histogram: iv.Histogram(),
		P50MS: measure.Figure(iv.P50MS), P95MS: measure.Figure(iv.P95MS), P99MS: measure.Figure(iv.P99MS), MaxMS: measure.Figure(iv.MaxMS)}
	if iv.Requests == 0 {
		l.noLatency()
	}
	for i, op := range iv.Operations {
		counts := iv.Counts[:] // one operation: the bucket's counts are its
		if iv.ByOperation != nil {
			counts = iv.ByOperation[i][:]
		}
		l.Operations = append(l.Operations, operationCounts{Operation: measure.Operation(op), outcomes: outcomesOf(iv.Kinds, counts),
			Histogram: iv.OperationHistogram(i)})
	}
	for i, g := range iv.Gauges {
		v := serverValue{Name: g.Name, Unit: g.Unit, Kind: g.Kind, Source: g.Source}
		if i < len(iv.Server) && iv.Server[i] == iv.Server[i] { // NaN is a missing reading
			x := iv.Server[i]
			v.Value = &x
		}
		l.Server = append(l.Server, v)
	}
	return l
}

// outcomesOf names the counts by outcome kind; kinds[0] is success.
func outcomesOf(kinds []string, counts []int64) outcomes {
	o := outcomes{OK: counts[0]}
	for k, n := range counts[1:] {
		if n != 0 && k+1 < len(kinds) {
			if o.Errors == nil {
				o.Errors = map[string]int64{}
			}
			o.Errors[kinds[k+1]] += n
		}
	}
	return o
}

// eventNames are the events the file keeps, by their names in it.
var eventNames = map[harness.EventKind]string{
	harness.EventLevelStart: "level_start", harness.EventMeasureStart: "measure_start",
	harness.EventLoadDone: "load_done", harness.EventMeasureEnd: "measure_end",
	harness.EventLevelEnd: "level_end", harness.EventInterrupted: "interrupted",
	harness.EventWarning: "warning",
}

// Event writes the workload line and the moments a reader wants; a
// warning keeps only the setting it concerns (its error may quote what
// the user typed).
func (j *JSONL) Event(e harness.Event) {
	if e.Kind == harness.EventWorkload {
		j.write(workloadLine{Type: lineWorkload, Header: e.Header, Tools: e.Tools})
		return
	}
	if e.Kind == harness.EventPhase {
		if name, ok := phaseNames[e.Phase]; ok {
			j.write(eventLine{Type: lineEvent, Event: "stage", Step: e.Step.N, Stage: name})
		}
		return
	}
	name, ok := eventNames[e.Kind]
	if !ok {
		return
	}
	j.write(eventLine{Type: lineEvent, Event: name, Step: e.Step.N, Setting: string(e.Setting), Point: e.Point})
	var at float64
	for i, st := range e.LoadStages {
		j.write(eventLine{Type: lineEvent, Event: "load_stage", Step: e.Step.N, LoadStage: &loadStage{Index: i, StartS: at,
			DurationS: st.Duration.Seconds(), Target: st.Target, Rate: e.Rate}})
		at += st.Duration.Seconds()
	}
}

// phaseNames are the set-up phases, by their names in the file.
var phaseNames = map[harness.Phase]string{
	harness.PhaseConnecting: "connecting", harness.PhaseLogSettle: "log_settle",
	harness.PhaseStartWait: "start_wait", harness.PhaseWorkload: "workload",
	harness.PhaseDone: "setup_done", harness.PhaseWarmUp: "warm_up",
}

// Gates appends the command's pass/fail checks, as its exit code saw
// them, to the file after its summary (the gates are applied to the
// report the summary holds).
func (j *JSONL) Gates(gs []results.Gate) {
	if len(gs) == 0 {
		return
	}
	j.mu.Lock()
	if !j.stopped || j.f != nil || j.err != nil {
		j.mu.Unlock()
		return // not written and stopped, or broken
	}
	f, err := os.OpenFile(j.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		j.err = err
		j.mu.Unlock()
		return
	}
	j.f, j.w = f, f
	if j.Wrap != nil {
		j.w = j.Wrap(f)
	}
	j.mu.Unlock()
	for i := range gs {
		j.write(eventLine{Type: lineEvent, Event: "gate", Gate: &gs[i]})
	}
	j.mu.Lock()
	j.f.Close()
	j.f = nil
	j.mu.Unlock()
}

// Stop writes the summary and closes the file.
func (j *JSONL) Stop(f harness.Final) {
	s := summaryLine{Type: lineSummary, Run: f.Run, Sweep: f.Sweep}
	if f.Err != nil {
		s.Error = f.Err.Error()
	}
	j.write(s)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.f.Close()
		j.f = nil
		j.stopped = true
	}
}

// write puts one line in the file with a single write; the first error
// is kept (Problem) and later lines are dropped.
func (j *JSONL) write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil || j.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		j.err = fmt.Errorf("%s: %w", j.Path, err)
		return
	}
	j.buf = append(append(j.buf[:0], b...), '\n')
	if _, err := j.w.Write(j.buf); err != nil {
		j.err = err
	}
}

// Problem says why lines are missing from the file: the first error
// writing it met ("" when none).
func (j *JSONL) Problem() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		return ""
	}
	return "lines after the first failed write are missing: " + j.err.Error()
}
