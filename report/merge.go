package report

import (
	"errors"
	"fmt"
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/bench"
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
			h, err := bench.DecodeHistogram(r.Histogram)
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
	points := make([]bench.Point, len(rs))
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
	merged := make([]bench.Point, n)
	var notes []string
	for k := range n {
		col := make([]bench.Point, len(rs))
		span := 0.0
		for i, r := range rs {
			p := r.Points[k]
			if p.Histogram != "" && p.Hist == nil {
				h, err := bench.DecodeHistogram(p.Histogram)
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

	out := &SweepReport{Header: first.Header, Result: sweep.Analyze(merged, first.SLO), Merged: info}
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
func sameLevel(ref, p bench.Point, i, k int, sharded bool) error {
	if i == 0 {
		return nil
	}
	if (ref.Rate == nil) != (p.Rate == nil) {
		return mismatch("point %d is closed loop in one report and open loop in another", k+1)
	}
	if ref.Rate != nil {
		if math.Abs(*ref.Rate-*p.Rate) > 1e-9*max(1, *ref.Rate) {
			return mismatch("point %d: rate %s in report 1 but %s in report %d: not the same sweep levels", k+1, fmtFloat(*ref.Rate), fmtFloat(*p.Rate), i+1)
		}
		return nil
	}
	d := ref.Concurrency - p.Concurrency
	if d != 0 && (!sharded || d < -1 || d > 1) {
		return mismatch("point %d: concurrency %d in report 1 but %d in report %d: not the same sweep levels", k+1, ref.Concurrency, p.Concurrency, i+1)
	}
	return nil
}

// mergePoints sums what adds up and recomputes latency from the merged
// histogram; spanS is the wall time the merged point covers.
func mergePoints(ps []bench.Point, spanS float64) (bench.Point, []string, error) {
	var notes []string
	h := bench.NewHistogram()
	out := bench.Point{Latency: bench.Latency{ErrorsByKind: map[string]int64{}}}
	var rate float64
	var unc, lag *hdrhistogram.Histogram // open loop, when every shard has them
	exactOpen := true
	for i, p := range ps {
		if p.Requests > 0 && p.Hist == nil {
			return out, nil, mismatch("report %d has %d requests but no histogram: it cannot be merged exactly", i+1, p.Requests)
		}
		if p.Hist != nil {
			// Merge returns the count of values it had to drop for being
			// out of range; the histograms share one range, so none are.
			if dropped := h.Merge(p.Hist); dropped > 0 {
				return out, nil, mismatch("report %d: %d histogram values out of range", i+1, dropped)
			}
		}
		out.Concurrency += p.Concurrency
		out.Total += p.Total
		out.Requests += p.Requests
		out.OK += p.OK
		out.Errors += p.Errors
		for k, n := range p.ErrorsByKind {
			out.ErrorsByKind[k] += n
		}
		out.BytesSent += p.BytesSent
		out.BytesReceived += p.BytesReceived
		out.OfferedRPS += p.OfferedRPS
		out.Unsent += p.Unsent
		if p.Rate != nil {
			rate += *p.Rate
		}
		for k, ex := range p.ErrorExamples {
			if out.ErrorExamples == nil {
				out.ErrorExamples = map[string]string{}
			}
			if _, ok := out.ErrorExamples[k]; !ok {
				out.ErrorExamples[k] = ex
			}
		}
		out.Interrupted = out.Interrupted || p.Interrupted
		out.Client = mergeClient(out.Client, p.Client)
		if p.Uncorrected != nil {
			out.Uncorrected = maxUncorrected(out.Uncorrected, p.Uncorrected)
			exactOpen = exactOpen && mergeEncoded(&unc, p.Uncorrected.Histogram)
		}
		if p.ScheduleLagMS != nil {
			l := lagOf(out.ScheduleLagMS)
			out.ScheduleLagMS = &bench.ScheduleLag{P99: max(l.P99, p.ScheduleLagMS.P99), Max: max(l.Max, p.ScheduleLagMS.Max)}
			exactOpen = exactOpen && mergeEncoded(&lag, p.ScheduleLagMS.Histogram)
		}
	}
	// Shards that carry their open-loop histograms merge exactly; older
	// reports without them fall back to the largest shard's figures.
	if out.Uncorrected != nil || out.ScheduleLagMS != nil {
		if exactOpen && unc != nil && lag != nil && out.Uncorrected != nil && out.ScheduleLagMS != nil {
			out.Uncorrected.Fill(unc)
			out.ScheduleLagMS.Fill(lag)
		} else {
			if out.Uncorrected != nil {
				out.Uncorrected.Histogram = ""
			}
			if out.ScheduleLagMS != nil {
				out.ScheduleLagMS.Histogram = ""
			}
			notes = appendNew(notes, noteUncorrected)
		}
	}
	if ps[0].Rate != nil {
		out.Rate = &rate
	}
	if out.Requests > 0 {
		out.ErrorRate = float64(out.Errors) / float64(out.Requests)
	}
	out.Latency.FillPercentiles(h)
	out.Hist = h
	enc, err := bench.EncodeHistogram(h)
	if err != nil {
		return out, nil, fmt.Errorf("encoding merged histogram: %w", err)
	}
	out.Histogram = enc
	if spanS <= 0 {
		spanS = math.SmallestNonzeroFloat64
	}
	out.ElapsedS = spanS
	out.RPS = float64(out.Requests) / spanS
	if len(ps[0].ByOperation) > 0 {
		ops, err := mergeOperations(ps, spanS)
		if err != nil {
			return out, nil, err
		}
		out.ByOperation = ops
		notes = appendNew(notes, noteByOperation)
	}
	return out, notes, nil
}

// lagOf returns *l, or zeros for nil.
// mergeEncoded adds the encoded histogram enc into *into (made on first
// use) and reports whether it could: false for a report without one.
func mergeEncoded(into **hdrhistogram.Histogram, enc string) bool {
	if enc == "" {
		return false
	}
	h, err := bench.DecodeHistogram(enc)
	if err != nil {
		return false
	}
	if *into == nil {
		*into = bench.NewHistogram()
	}
	return (*into).Merge(h) == 0
}

func lagOf(l *bench.ScheduleLag) bench.ScheduleLag {
	if l == nil {
		return bench.ScheduleLag{}
	}
	return *l
}

func mergeClient(a, b bench.ClientStats) bench.ClientStats {
	a.PoolMaxConns += b.PoolMaxConns
	a.PoolWaits += b.PoolWaits
	a.CPUS += b.CPUS
	if b.Saturated {
		a.Saturated = true
		if !strings.Contains(a.SaturationReason, b.SaturationReason) {
			a.SaturationReason = strings.TrimPrefix(a.SaturationReason+"; "+b.SaturationReason, "; ")
		}
	}
	if a.Engine == "" {
		a.Engine = b.Engine
	}
	return a
}

func maxUncorrected(a, b *bench.Uncorrected) *bench.Uncorrected {
	if a == nil {
		c := *b
		return &c
	}
	return &bench.Uncorrected{P50MS: max(a.P50MS, b.P50MS), P95MS: max(a.P95MS, b.P95MS), P99MS: max(a.P99MS, b.P99MS), MaxMS: max(a.MaxMS, b.MaxMS)}
}

// mergeOperations merges per-operation figures. Reports carry no
// per-operation histograms, so the percentiles are upper bounds.
func mergeOperations(ps []bench.Point, spanS float64) ([]bench.OperationStats, error) {
	out := slices.Clone(ps[0].ByOperation)
	for i := range out {
		out[i].ErrorsByKind = map[string]int64{}
		out[i].Requests, out[i].OK, out[i].Errors = 0, 0, 0
		out[i].MinMS, out[i].MeanMS, out[i].P50MS, out[i].P90MS, out[i].P95MS, out[i].P99MS, out[i].P999MS, out[i].MaxMS = math.Inf(1), 0, 0, 0, 0, 0, 0, 0
	}
	for j, p := range ps {
		if len(p.ByOperation) != len(out) {
			return nil, mismatch("report %d has %d operations, report 1 has %d", j+1, len(p.ByOperation), len(out))
		}
		for i, o := range p.ByOperation {
			m := &out[i]
			if o.Operation != m.Operation {
				return nil, mismatch("report %d: operation %d is %s, report 1 has %s", j+1, i+1, opName(o.Operation), opName(m.Operation))
			}
			// The mean is over requests with a latency: ok and errors alike.
			m.MeanMS += o.MeanMS * float64(o.Requests)
			m.Requests += o.Requests
			m.OK += o.OK
			m.Errors += o.Errors
			for k, n := range o.ErrorsByKind {
				m.ErrorsByKind[k] += n
			}
			if o.Requests > 0 {
				m.MinMS = min(m.MinMS, o.MinMS)
			}
			m.P50MS, m.P90MS, m.P95MS = max(m.P50MS, o.P50MS), max(m.P90MS, o.P90MS), max(m.P95MS, o.P95MS)
			m.P99MS, m.P999MS, m.MaxMS = max(m.P99MS, o.P99MS), max(m.P999MS, o.P999MS), max(m.MaxMS, o.MaxMS)
		}
	}
	for i := range out {
		m := &out[i]
		if m.Requests > 0 {
			m.MeanMS /= float64(m.Requests)
			m.ErrorRate = float64(m.Errors) / float64(m.Requests)
		} else {
			m.MinMS = 0
		}
		m.RPS = float64(m.Requests) / spanS
	}
	return out, nil
}

// checkShards applies the shard rules: all reports carry a shard or none
// does; all shards of one count; no index twice; none missing unless
// allowed.
func checkShards(shards []*Shard, opt MergeOptions) (*MergeInfo, []string, error) {
	info := &MergeInfo{Reports: len(shards)}
	with := 0
	for _, s := range shards {
		if s != nil {
			with++
		}
	}
	switch {
	case with == 0:
		return info, []string{"the reports carry no shard (--shard): merged as independent generators run at the same time"}, nil
	case with < len(shards):
		return nil, nil, mismatch("%d of %d reports carry a shard and the others do not: merge shards of one sharded run", with, len(shards))
	}
	count := shards[0].Count
	seen := map[int]bool{}
	for _, s := range shards {
		if s.Count != count {
			return nil, nil, mismatch("shards of different counts (%d/%d and %d/%d): they are not one sharded run", shards[0].Index, count, s.Index, s.Count)
		}
		if s.Index < 0 || s.Index >= count {
			return nil, nil, mismatch("shard %d/%d is out of range", s.Index, count)
		}
		if seen[s.Index] {
			return nil, nil, mismatch("shard %d/%d is given twice", s.Index, count)
		}
		seen[s.Index] = true
		info.Shards = append(info.Shards, *s)
	}
	sort.Slice(info.Shards, func(i, j int) bool { return info.Shards[i].Index < info.Shards[j].Index })
	for i := range count {
		if !seen[i] {
			info.Missing = append(info.Missing, i)
		}
	}
	if len(info.Missing) == 0 {
		return info, nil, nil
	}
	list := fmt.Sprint(info.Missing)
	if !opt.AllowMissing {
		return nil, nil, mismatch("shards %s of %d are missing (--allow-missing merges the ones present)", list, count)
	}
	return info, []string{fmt.Sprintf("shards %s of %d are missing: the merged figures cover %d of %d shards", list, count, len(info.Shards), count)}, nil
}

// refuseSameRunTwice catches the same file given twice when reports carry
// no shard to tell them apart.
func refuseSameRunTwice(rs []*RunReport) error {
	seen := map[string]int{}
	for i, r := range rs {
		key := r.StartedAt.String() + "|" + r.Histogram
		if j, ok := seen[key]; ok && r.Requests > 0 {
			return mismatch("reports %d and %d are the same run", j+1, i+1)
		}
		seen[key] = i
	}
	return nil
}

func sameRunWork(a, b *RunReport, i int) error {
	if b.Schema != a.Schema {
		return mismatch("report %d is %s, report 1 is %s", i+1, b.Schema, a.Schema)
	}
	if err := sameTarget(a.Target, b.Target, i); err != nil {
		return err
	}
	return sameWorkload(&a.Workload, &b.Workload, i)
}

func sameSweepWork(a, b *SweepReport, i int) error {
	if b.Schema != a.Schema {
		return mismatch("report %d is %s, report 1 is %s", i+1, b.Schema, a.Schema)
	}
	if err := sameTarget(a.Target, b.Target, i); err != nil {
		return err
	}
	if (a.Workload == nil) != (b.Workload == nil) {
		return mismatch("report %d and report 1 differ in whether they record a workload", i+1)
	}
	if a.Workload != nil {
		if err := sameWorkload(a.Workload, b.Workload, i); err != nil {
			return err
		}
	}
	if a.SLO != b.SLO {
		return mismatch("report %d has a different SLO from report 1", i+1)
	}
	if len(a.Points) != len(b.Points) {
		return mismatch("report %d has %d points, report 1 has %d: not the same sweep levels", i+1, len(b.Points), len(a.Points))
	}
	return nil
}

func sameTarget(a, b Target, i int) error {
	if pa, pb := urlPath(a.URL), urlPath(b.URL); pa != pb {
		return mismatch("report %d measured path %q, report 1 %q: different targets", i+1, pb, pa)
	}
	return nil
}

func sameWorkload(a, b *Workload, i int) error {
	if a.Mode != b.Mode {
		return mismatch("report %d is %s loop, report 1 is %s loop: different workloads", i+1, b.Mode, a.Mode)
	}
	if !slices.Equal(a.Operations, b.Operations) {
		return mismatch("report %d sends %s, report 1 sends %s: different workloads", i+1, orDash(opsLine(b.Operations)), orDash(opsLine(a.Operations)))
	}
	return nil
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Path == "" {
		return "/"
	}
	return u.Path
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
