package results

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// Notes merge writes about series it could not merge exactly.
const (
	noteSeriesMissing  = "series left out: some reports carry none"
	noteSeriesInterval = "series left out: the reports were bucketed at different intervals"
	noteServerSeries   = "server series are each taken from the first report that carries them (the server is one, however many generators sampled it)"
)

// mergeSeries merges the points' series bucket by bucket. Buckets line up
// by time: a report's first bucket lands where its start falls in the
// merged series, to the nearest interval. Counts and generator CPU add
// up, histograms merge exactly and the percentiles are taken from the
// result, so every column still sums to the merged totals.
func mergeSeries(ps []measure.Point) (*measure.Series, []string, error) {
	var ss []*measure.Series
	for _, p := range ps {
		if p.Series != nil {
			ss = append(ss, p.Series)
		}
	}
	switch {
	case len(ss) == 0:
		return nil, nil, nil
	case len(ss) < len(ps):
		return nil, []string{noteSeriesMissing}, nil
	}
	for j, s := range ss {
		if err := s.Check(); err != nil {
			return nil, nil, mismatch("report %d: %v", j+1, err)
		}
	}
	iv := ss[0].IntervalS
	base := ss[0].StartedAt
	for _, s := range ss {
		if math.Abs(s.IntervalS-iv) > 1e-9 || iv <= 0 {
			return nil, []string{noteSeriesInterval}, nil
		}
		if s.StartedAt.Before(base) {
			base = s.StartedAt
		}
	}
	offsets := make([]int, len(ss))
	n, total := 0, 0
	for _, s := range ss {
		total += s.Len()
	}
	for j, s := range ss {
		off := math.Round(s.StartedAt.Sub(base).Seconds() / iv)
		// Reports of one load start within moments of each other; a gap
		// wider than all their buckets together is not one load.
		if !(off >= 0 && off <= float64(total)) {
			return nil, nil, mismatch("report %d started %s after the first: too far apart to line up their series", j+1, s.StartedAt.Sub(base))
		}
		offsets[j] = int(off)
		n = max(n, offsets[j]+s.Len())
	}
	out := newSeriesOf(base, iv, n)
	hists := make([]*hdrhistogram.Histogram, n)
	for j, s := range ss {
		if offsets[j]+s.Len() == n {
			out.LastS = max(out.LastS, s.LastS)
		}
		if err := addSeries(out, hists, s, offsets[j], j); err != nil {
			return nil, nil, err
		}
	}
	if err := finishSeries(out, hists); err != nil {
		return nil, nil, err
	}
	var notes []string
	if mergeServer(out, ss, offsets) > 1 {
		notes = append(notes, noteServerSeries)
	}
	return out, notes, nil
}

func newSeriesOf(start time.Time, interval float64, n int) *measure.Series {
	return &measure.Series{
		StartedAt: start, IntervalS: interval,
		Sent: make([]int64, n), OK: make([]int64, n), RPS: make(measure.Column, n),
		P50MS: make([]float64, n), P95MS: make([]float64, n), P99MS: make([]float64, n), MaxMS: make([]float64, n),
		InFlight: make([]int64, n), CPUS: make([]float64, n), Histograms: make([]string, n),
	}
}

// addSeries adds report j's series s into out from bucket off on.
func addSeries(out *measure.Series, hists []*hdrhistogram.Histogram, s *measure.Series, off, j int) error {
	for i := range s.Len() {
		k := off + i
		out.Sent[k] += s.Sent[i]
		out.OK[k] += s.OK[i]
		if i < len(s.CPUS) {
			out.CPUS[k] += s.CPUS[i]
		}
		for kind, col := range s.Errors {
			if out.Errors == nil {
				out.Errors = map[string][]int64{}
			}
			if out.Errors[kind] == nil {
				out.Errors[kind] = make([]int64, len(out.OK))
			}
			out.Errors[kind][k] += col[i]
		}
		if i >= len(s.Histograms) || s.Histograms[i] == "" {
			if s.Requests(i) > 0 {
				return mismatch("report %d: series bucket %d has %d answers but no histogram", j+1, i+1, s.Requests(i))
			}
			continue
		}
		if !mergeEncoded(&hists[k], s.Histograms[i]) {
			return mismatch("report %d: series bucket %d: unreadable histogram", j+1, i+1)
		}
	}
	return nil
}

// finishSeries derives what does not add up: rates, percentiles, the
// encoded histograms and the running in-flight count.
func finishSeries(out *measure.Series, hists []*hdrhistogram.Histogram) error {
	var inFlight int64
	for k, h := range hists {
		answered := out.Requests(k)
		inFlight += out.Sent[k] - answered
		out.InFlight[k] = inFlight
		out.RPS[k] = measure.BucketRate(answered, k, out.Len(), out.IntervalS, out.LastS)
		if answered == 0 {
			out.P50MS[k], out.P95MS[k], out.P99MS[k], out.MaxMS[k] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		}
		if h == nil {
			continue
		}
		var l measure.Latency
		l.FillPercentiles(h)
		out.P50MS[k], out.P95MS[k], out.P99MS[k], out.MaxMS[k] = l.P50MS, l.P95MS, l.P99MS, l.MaxMS
		enc, err := hist.Encode(h)
		if err != nil {
			return err
		}
		out.Histograms[k] = enc
	}
	return nil
}

// mergeServer copies each server series (by name and source) from the
// first report that has it, shifted into place, and returns how many
// reports carried any.
func mergeServer(out *measure.Series, ss []*measure.Series, offsets []int) int {
	seen := map[string]bool{}
	carriers := 0
	for j, s := range ss {
		if len(s.Server) > 0 {
			carriers++
		}
		for _, g := range s.Server {
			key := g.Name + "\x00" + g.Source
			if seen[key] {
				continue
			}
			seen[key] = true
			col := make(measure.Column, out.Len())
			for k := range col {
				col[k] = math.NaN()
			}
			copy(col[offsets[j]:], g.Values)
			g.Values = col
			out.Server = append(out.Server, g)
		}
	}
	return carriers
}
