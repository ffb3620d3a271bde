package telemetry

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// Recording is a JSON Lines file read back: what the command wrote
// before it ended or was killed.
type Recording struct {
	header    headerLine
	workload  *workloadLine
	intervals []intervalLine
	points    map[int]*measure.Point // level_end events' points, by step
	gates     []results.Gate         // gate events, after the summary
	summary   *summaryLine
	// Cut says the file ends inside a line: the process died writing it.
	Cut bool
}

// ErrNotJSONL is a file that does not begin with this format's header.
var ErrNotJSONL = errors.New("not an mcpbench JSON Lines file (no " + SchemaJSONL + " header)")

// ReadJSONL reads a file that JSONL wrote. A last line cut short (the
// process was killed while writing it) is left out; a broken line before
// the last is an error.
func ReadJSONL(rd io.Reader) (*Recording, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 256<<20) // a summary holds a whole report
	rec := &Recording{points: map[int]*measure.Point{}}
	n := 0
	var pending error
	for sc.Scan() {
		n++
		if pending != nil {
			return nil, pending
		}
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := rec.add(line, n); err != nil {
			if rec.header.Schema != SchemaJSONL {
				return nil, ErrNotJSONL // not even a header first
			}
			pending = err // fatal unless it is the last line
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n == 0 || rec.header.Schema != SchemaJSONL {
		return nil, ErrNotJSONL
	}
	rec.Cut = pending != nil
	return rec, nil
}

// add files one line.
func (rec *Recording) add(line []byte, n int) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("line %d: %w", n, err)
	}
	if n == 1 && head.Type != lineHeader {
		return ErrNotJSONL
	}
	var err error
	switch head.Type {
	case lineHeader:
		err = json.Unmarshal(line, &rec.header)
	case lineWorkload:
		rec.workload = &workloadLine{}
		err = json.Unmarshal(line, rec.workload)
	case lineInterval:
		var iv intervalLine
		if err = json.Unmarshal(line, &iv); err == nil {
			rec.intervals = append(rec.intervals, iv)
		}
	case lineLate:
		var late intervalLine
		if err = json.Unmarshal(line, &late); err == nil {
			err = rec.addLate(late)
		}
	case lineEvent:
		var e eventLine
		if err = json.Unmarshal(line, &e); err == nil && e.Event == "level_end" && e.Point != nil {
			rec.points[e.Step] = e.Point
		}
		if e.Event == "gate" && e.Gate != nil {
			rec.gates = append(rec.gates, *e.Gate)
		}
	case lineSummary:
		rec.summary = &summaryLine{}
		err = json.Unmarshal(line, rec.summary)
	}
	if err != nil {
		return fmt.Errorf("line %d: %w", n, err)
	}
	return nil
}

// Command is what wrote the file: "run" or "sweep".
func (rec *Recording) Command() string { return rec.header.Command }

// Complete says the file has its summary: the command ended in an orderly
// way and its report is in the file whole.
func (rec *Recording) Complete() bool {
	return rec.summary != nil && (rec.summary.Run != nil || rec.summary.Sweep != nil)
}

// Intervals is how many settled buckets the file holds.
func (rec *Recording) Intervals() int { return len(rec.intervals) }

// Run is the run's report: the summary's when the file has one, else
// rebuilt from the intervals written (the point marked interrupted).
func (rec *Recording) Run() (*results.RunReport, error) {
	if rec.header.Command != "run" {
		return nil, fmt.Errorf("the file is of a %s, not a run", rec.header.Command)
	}
	if rec.Complete() && rec.summary.Run != nil {
		r := rec.summary.Run
		if len(rec.gates) > 0 {
			r.Gates = rec.gates
		}
		return r, nil
	}
	return rec.RebuildRun()
}

// RebuildRun is the run's report rebuilt from its intervals alone, as if
// the summary were missing (Run does this when it is; a test checks that
// the two agree).
func (rec *Recording) RebuildRun() (*results.RunReport, error) {
	if len(rec.header.Levels) != 1 {
		return nil, fmt.Errorf("the file's header names %d levels, a run has one", len(rec.header.Levels))
	}
	r := &results.RunReport{Gates: []results.Gate{}, Shard: rec.header.Shard}
	if rec.workload != nil {
		r.Header = rec.workload.Header
		r.Workload.Tools = rec.workload.Tools
	}
	r.Schema, r.MCPBenchVersion = results.SchemaRun, rec.header.Version
	lv := rec.header.Levels[0]
	r.Workload.Mode = "closed"
	if lv.Rate > 0 {
		r.Workload.Mode = "open"
	}
	p, ops, err := pointOf(lv, rec.header.IntervalS, rec.intervals)
	if err != nil {
		return nil, err
	}
	r.Point, r.Workload.Operations = p, ops
	r.Interrupted = true
	return r, nil
}

// pointOf adds up a level's intervals into its point: counts, the merged
// histogram and what it gives, and the series.
func pointOf(lv level, intervalS float64, ivs []intervalLine) (measure.Point, []measure.Operation, error) {
	p := measure.Point{Concurrency: lv.Concurrency, Latency: measure.Latency{ErrorsByKind: map[string]int64{}}}
	if lv.Rate > 0 {
		rate := lv.Rate
		p.Rate = &rate
	}
	h := hist.New()
	var ops []measure.Operation
	for i, iv := range ivs {
		if iv.Histogram != "" {
			if err := hist.MergeEncoded(h, iv.Histogram); err != nil {
				return p, nil, fmt.Errorf("interval %d: %w", i, err)
			}
		}
		p.OK += iv.OK
		for k, n := range iv.Errors {
			p.ErrorsByKind[k] += n
			p.Errors += n
		}
		for _, op := range iv.Operations {
			if len(ops) < len(iv.Operations) {
				ops = append(ops, op.Operation)
			}
		}
		p.ElapsedS = iv.EndS
	}
	p.Requests = p.OK + p.Errors
	p.Total = p.Requests
	if p.Requests > 0 {
		p.ErrorRate = float64(p.Errors) / float64(p.Requests)
	}
	p.Latency.FillPercentiles(h)
	enc, err := hist.Encode(h)
	if err != nil {
		return p, nil, err
	}
	p.Histogram, p.Hist = enc, h
	if p.ElapsedS > 0 {
		p.RPS = float64(p.Requests) / p.ElapsedS
	}
	if len(ivs) > 0 {
		p.Series = seriesOf(intervalS, ivs)
	}
	if p.ByOperation, err = byOperation(ops, ivs, p.ElapsedS); err != nil {
		return p, nil, err
	}
	return p, ops, nil
}

// byOperation is the point's figures by operation, from intervals that
// carry each operation's latencies (a mix's); nil when they do not.
func byOperation(ops []measure.Operation, ivs []intervalLine, elapsedS float64) ([]measure.OperationStats, error) {
	if len(ops) < 2 {
		return nil, nil
	}
	out := make([]measure.OperationStats, len(ops))
	hs := make([]*hdrhistogram.Histogram, len(ops))
	carried := false
	for i := range out {
		out[i].Operation, out[i].ErrorsByKind, hs[i] = ops[i], map[string]int64{}, hist.New()
	}
	for _, iv := range ivs {
		for i, op := range iv.Operations {
			if i >= len(out) {
				break
			}
			o := &out[i]
			o.OK += op.OK
			for k, n := range op.Errors {
				o.ErrorsByKind[k] += n
				o.Errors += n
			}
			if op.Histogram != "" {
				carried = true
				if err := hist.MergeEncoded(hs[i], op.Histogram); err != nil {
					return nil, fmt.Errorf("interval %d, operation %d: %w", iv.Index, i, err)
				}
			}
		}
	}
	if !carried {
		return nil, nil
	}
	for i := range out {
		o := &out[i]
		o.Requests = o.OK + o.Errors
		if o.Requests > 0 {
			o.ErrorRate = float64(o.Errors) / float64(o.Requests)
		}
		if elapsedS > 0 {
			o.RPS = float64(o.Requests) / elapsedS
		}
		o.Latency.FillPercentiles(hs[i])
	}
	return out, nil
}

// seriesOf is the report's series of the intervals. In-flight counts are
// those the file can tell: sent and filed, less answered.
func seriesOf(intervalS float64, ivs []intervalLine) *measure.Series {
	last := ivs[len(ivs)-1]
	s := &measure.Series{StartedAt: ivs[0].Start, IntervalS: intervalS, LastS: last.LengthS, Errors: map[string][]int64{}}
	var sent, done int64
	for i, iv := range ivs {
		s.Sent = append(s.Sent, iv.Sent)
		s.OK = append(s.OK, iv.OK)
		for k, n := range iv.Errors {
			col := s.Errors[k]
			for len(col) < i {
				col = append(col, 0)
			}
			s.Errors[k] = append(col, n)
		}
		sent += iv.Sent
		done += iv.OK + sumErrors(iv.Errors)
		s.RPS = append(s.RPS, float64(iv.OK+sumErrors(iv.Errors))/iv.LengthS)
		p50, p95, p99, top := float64(iv.P50MS), float64(iv.P95MS), float64(iv.P99MS), float64(iv.MaxMS)
		if iv.OK+sumErrors(iv.Errors) == 0 { // files before null: 0 for none
			p50, p95, p99, top = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		}
		s.P50MS, s.P95MS = append(s.P50MS, p50), append(s.P95MS, p95)
		s.P99MS, s.MaxMS = append(s.P99MS, p99), append(s.MaxMS, top)
		s.InFlight = append(s.InFlight, max(sent-done, 0))
		s.CPUS = append(s.CPUS, iv.CPUS)
		s.Histograms = append(s.Histograms, iv.Histogram)
	}
	for k, col := range s.Errors {
		for len(col) < len(ivs) {
			col = append(col, 0)
		}
		s.Errors[k] = col
	}
	if len(s.Errors) == 0 {
		s.Errors = nil
	}
	return s
}

func sumErrors(m map[string]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// Sweep is the sweep's report when the file has its summary. A sweep
// killed midway is refused: its finished points are in the file's
// level_end events, but its analysis (knee, fit, recommendation) is not.
func (rec *Recording) Sweep() (*results.SweepReport, error) {
	if rec.header.Command != "sweep" {
		return nil, fmt.Errorf("the file is of a %s, not a sweep", rec.header.Command)
	}
	if rec.Complete() && rec.summary.Sweep != nil {
		r := rec.summary.Sweep
		if len(rec.gates) > 0 {
			r.Gates = rec.gates
		}
		return r, nil
	}
	return nil, fmt.Errorf("the sweep ended before its summary was written (%d points finished): rebuilding a cut sweep is not supported", len(rec.points))
}
