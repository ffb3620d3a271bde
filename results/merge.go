package results

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

// Shard says which share of a load a report measured: Index in 0..Count-1
// (0-based, like a Kubernetes Indexed Job's completion index).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// MergeInfo is carried by merge's output: which reports went in, and which
// figures are not exact.
type MergeInfo struct {
	Reports int     `json:"reports"`
	Shards  []Shard `json:"shards,omitempty"`
	// Missing lists shard indices absent from a partial merge
	// (--allow-missing); the figures then cover only the shards present.
	Missing []int    `json:"missing,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// MergeOptions tune Merge.
type MergeOptions struct {
	// AllowMissing merges an incomplete set of shards (with a warning)
	// instead of refusing it.
	AllowMissing bool
}

// ErrMismatch marks reports that cannot be merged: different workloads,
// schemas or targets, duplicate or missing shards. Callers treat it as
// bad input.
var ErrMismatch = errors.New("cannot merge")

func mismatch(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMismatch, fmt.Sprintf(format, a...))
}

// Notes merge writes into its output when the figures it names could not
// be merged exactly.
const (
	noteUncorrected = "uncorrected and schedule_lag_ms are the largest shard's figures (an upper bound, not exact): some reports carry no histogram of them"
	noteByOperation = "by_operation percentiles are the largest shard's figures (an upper bound, not exact); counts, min, mean and max are exact"
	noteSweepSpan   = "each point's elapsed_s is the longest shard's (shards are assumed to run the point at the same time)"
	noteSessions    = "session durations are the largest shard's figures (an upper bound, not exact): some reports carry no histogram of them; session counts are exact"
)

// MergeRuns combines the reports of shards (or of independent generators
// driving the same server at the same time) into one. Histograms are
// merged exactly and the percentiles recomputed from the result; counters,
// concurrency and rate are summed; the elapsed time is the span from the
// first start to the last end. It returns warnings worth showing the user.
func MergeRuns(rs []*RunReport, opt MergeOptions) (*RunReport, []string, error) {
	if len(rs) < 2 {
		return nil, nil, mismatch("give at least two reports")
	}
	first := rs[0]
	for i, r := range rs {
		if err := sameRunWork(first, r, i); err != nil {
			return nil, nil, err
		}
	}
	shards := make([]*Shard, len(rs))
	for i, r := range rs {
		shards[i] = r.Shard
		if r.Hist == nil && r.Histogram != "" {
			h, err := hist.Decode(r.Histogram)
			if err != nil {
				return nil, nil, mismatch("report %d: %v", i+1, err)
			}
			r.Hist = h
		}
	}
	info, warns, err := checkShards(shards, opt)
	if err != nil {
		return nil, nil, err
	}
	if err := refuseSameRunTwice(rs); err != nil {
		return nil, nil, err
	}

	start, end := first.StartedAt, time.Time{}
	points := make([]measure.Point, len(rs))
	for i, r := range rs {
		if r.StartedAt.Before(start) {
			start = r.StartedAt
		}
		if e := r.StartedAt.Add(seconds(r.ElapsedS)); e.After(end) {
			end = e
		}
		points[i] = r.Point
	}
	p, notes, err := mergePoints(points, end.Sub(start).Seconds())
	if err != nil {
		return nil, nil, err
	}
	info.Notes = notes

	out := &RunReport{Header: first.Header, Workload: first.Workload, Point: p, Gates: []Gate{}, Merged: info}
	if first.Soak != nil {
		out.Soak = AnalyzeSoak(p.Series, SoakOptions{Warmup: seconds(first.Soak.WarmupS)})
	}
	out.StartedAt = start
	out.Workload.Operations = slices.Clone(first.Workload.Operations)
	for _, r := range rs[1:] {
		out.Workload.Warmup += r.Workload.Warmup
		if r.MCPBenchVersion != first.MCPBenchVersion {
			warns = append(warns, fmt.Sprintf("reports come from different mcpbench versions (%s, %s)", first.MCPBenchVersion, r.MCPBenchVersion))
		}
	}
	return out, warns, nil
}

// MergeSweeps combines shard sweeps point by point (the i-th point of
// every shard measured the same level at the same time) and analyses the
// merged points again.
func MergeSweeps(rs []*SweepReport, opt MergeOptions) (*SweepReport, []string, error) {
	if len(rs) < 2 {
		return nil, nil, mismatch("give at least two reports")
	}
	first := rs[0]
	shards := make([]*Shard, len(rs))
	for i, r := range rs {
		if err := sameSweepWork(first, r, i); err != nil {
			return nil, nil, err
		}
		shards[i] = r.Shard
	}
	info, warns, err := checkShards(shards, opt)
	if err != nil {
		return nil, nil, err
	}
	sharded := first.Shard != nil
	n := len(first.Points)
	merged := make([]measure.Point, n)
	var notes []string
	for k := range n {
		col := make([]measure.Point, len(rs))
		span := 0.0
		for i, r := range rs {
			p := r.Points[k]
			if p.Histogram != "" && p.Hist == nil {
				h, err := hist.Decode(p.Histogram)
				if err != nil {
					return nil, nil, mismatch("report %d, point %d: %v", i+1, k+1, err)
				}
				p.Hist = h
			}
			if err := sameLevel(col[0], p, i, k, sharded); err != nil {
				return nil, nil, err
			}
			col[i] = p
			span = max(span, p.ElapsedS)
		}
		mp, ns, err := mergePoints(col, span)
		if err != nil {
			return nil, nil, err
		}
		merged[k] = mp
		notes = appendNew(notes, ns...)
	}
	info.Notes = appendNew(notes, noteSweepSpan)

	out := &SweepReport{Header: first.Header, Analysis: sweep.Analyze(merged, first.SLO), Merged: info}
	for _, r := range rs {
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		out.Interrupted = out.Interrupted || r.Interrupted
	}
	if first.Workload != nil {
		w := *first.Workload
		for _, r := range rs[1:] {
			w.Warmup += r.Workload.Warmup
		}
		out.Workload = &w
	}
	return out, warns, nil
}

// sameLevel checks that point k of report i measured the level point k of
// the first report did: the same rate (shards split it evenly), and a
// concurrency that is equal, or within one for shards (an uneven split).
func sameLevel(ref, p measure.Point, i, k int, sharded bool) error {
	if i == 0 {
		return nil
	}
	if (ref.Rate == nil) != (p.Rate == nil) {
		return mismatch("point %d is closed loop in one report and open loop in another", k+1)
	}
	if ref.Rate != nil {
		if math.Abs(*ref.Rate-*p.Rate) > 1e-9*max(1, *ref.Rate) {
			return mismatch("point %d: rate %s in report 1 but %s in report %d: not the same sweep levels", k+1, textfmt.Float(*ref.Rate), textfmt.Float(*p.Rate), i+1)
		}
		return nil
	}
	d := ref.Concurrency - p.Concurrency
	if d != 0 && (!sharded || d < -1 || d > 1) {
		return mismatch("point %d: concurrency %d in report 1 but %d in report %d: not the same sweep levels", k+1, ref.Concurrency, p.Concurrency, i+1)
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
