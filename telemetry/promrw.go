package telemetry

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/results"
)

// RemoteWrite is the output of --out prometheus-rw=URL: at each settled
// interval, the running totals of every series (the duration histogram's
// buckets, count and sum; answers by operation and outcome) as one
// remote-write 1.0 request, the form every Prometheus accepts. Totals
// make a dropped request cost only its timestamp's samples.
type RemoteWrite struct {
	// RunID labels every series, so two runs never mix.
	RunID string
	api   *remote.API
	base  []label
	out   *sender[*prompb.WriteRequest]

	// What the intervals add up to, by series; only the series loop
	// touches it.
	scratch *hdrhistogram.Histogram
	hists   map[string]*cumulative
	counts  map[string]*cumulative
	last    time.Time // the latest sample's time
}

// cumulative is one series' running total(s).
type cumulative struct {
	labels  []label
	buckets []int64 // the histogram's, one per DurationBuckets bound
	count   int64
	sum     float64
}

// sendTimeout bounds one request, its retries included.
const sendTimeout = 5 * time.Second

// NewRemoteWrite makes the output for the endpoint u (its full path,
// e.g. /api/v1/write). labels are the user's, added to every series.
func NewRemoteWrite(u *url.URL, labels map[string]string, shard *results.Shard, runID string) *RemoteWrite {
	// The URL's path is the endpoint's: no API path is added to it.
	api, _ := remote.NewAPI(u.String(), remote.WithAPIPath(""),
		remote.WithAPIHTTPClient(&http.Client{Timeout: sendTimeout}),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: 100 * time.Millisecond, Max: time.Second, MaxRetries: 2}))
	rw := &RemoteWrite{RunID: runID, api: api, base: baseLabels(runID, shard, labels),
		scratch: hist.New(), hists: map[string]*cumulative{}, counts: map[string]*cumulative{}}
	rw.out = newSender(rw.send)
	return rw
}

func (rw *RemoteWrite) send(ctx context.Context, req *prompb.WriteRequest) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	_, err := rw.api.Write(ctx, remote.WriteV1MessageType, req)
	return err
}

// Start does nothing: the endpoint is first reached with the first
// interval, and a dead one is said at the end, once.
func (rw *RemoteWrite) Start(harness.Meta) error { return nil }

// Event does nothing: the series carry what a dashboard plots.
func (rw *RemoteWrite) Event(harness.Event) {}

// Stop sends the report's exact totals and lets the queue empty within
// FlushBudget.
func (rw *RemoteWrite) Stop(f harness.Final) {
	rw.reconcile(f)
	rw.out.close()
}

// Problem says what did not reach the endpoint.
func (rw *RemoteWrite) Problem() string { return rw.out.problem("remote-write requests") }

// Interval adds the bucket to the totals and queues their samples.
func (rw *RemoteWrite) Interval(iv harness.PointInterval) {
	first := len(rw.hists) == 0
	level := levelLabel(iv)
	rw.scratch.Reset()
	if err := iv.MergeHistogram(rw.scratch); err != nil {
		return
	}
	h := rw.cumulativeOf(rw.hists, durationLabels(iv, level, rw.base))
	addHistogram(h, rw.scratch)
	for i, op := range iv.Operations {
		counts := iv.Counts[:]
		if iv.ByOperation != nil {
			counts = iv.ByOperation[i][:]
		}
		for k, n := range counts {
			if n == 0 || k >= len(iv.Kinds) {
				continue
			}
			ls := append(withLevel(rw.base, level), opLabels(results.Operation(op))...)
			if k > 0 {
				ls = append(ls, label{LabelOutcome, iv.Kinds[k]})
			}
			rw.cumulativeOf(rw.counts, ls).count += n
		}
	}
	// The last bucket may end early (Length is the nominal interval);
	// a sample stamped in the future is not seen by a query until then.
	end := iv.Start.Add(iv.Length)
	if now := time.Now(); end.After(now) {
		end = now
	}
	req := &prompb.WriteRequest{}
	if first { // the totals start from zero where the window opens
		rw.appendSamples(req, iv.Start, true)
	}
	rw.appendSamples(req, end, false)
	rw.last = end
	rw.out.offer(req)
}

// durationLabels are the labels of the duration histogram: the
// operation's when the level has one; a level that mixes several has one
// histogram per bucket, labelled mcp_method_name="all" (the counts by
// operation are exact in PromRequests).
func durationLabels(iv harness.PointInterval, level string, base []label) []label {
	ls := withLevel(base, level)
	if len(iv.Operations) == 1 {
		return append(ls, opLabels(results.Operation(iv.Operations[0]))...)
	}
	return append(ls, label{LabelMethod, "all"})
}

func withLevel(base []label, level string) []label {
	ls := slices.Clone(base)
	if level != "" {
		ls = append(ls, label{LabelLevel, level})
	}
	return ls
}

// cumulativeOf is the running total of the series with labels ls.
func (rw *RemoteWrite) cumulativeOf(m map[string]*cumulative, ls []label) *cumulative {
	slices.SortFunc(ls, func(a, b label) int { return cmpString(a.name, b.name) })
	key := ""
	for _, l := range ls {
		key += l.name + "\xff" + l.value + "\xff"
	}
	c, ok := m[key]
	if !ok {
		c = &cumulative{labels: ls, buckets: make([]int64, len(DurationBuckets))}
		m[key] = c
	}
	return c
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// addHistogram adds h's latencies (microseconds) to c's buckets, count
// and sum (seconds).
func addHistogram(c *cumulative, h *hdrhistogram.Histogram) {
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		// A bar spans values the histogram cannot tell apart; its highest
		// is the one the report's percentiles give.
		v := float64(bar.To) / 1e6
		c.count += bar.Count
		c.sum += v * float64(bar.Count)
		for i, b := range DurationBuckets {
			if v <= b {
				c.buckets[i] += bar.Count
			}
		}
	}
}

// appendSamples adds every series' total at t (zero when zero is set).
func (rw *RemoteWrite) appendSamples(req *prompb.WriteRequest, t time.Time, zero bool) {
	ts := t.UnixMilli()
	val := func(x float64) float64 {
		if zero {
			return 0
		}
		return x
	}
	for _, c := range rw.hists {
		for i, b := range DurationBuckets {
			req.Timeseries = append(req.Timeseries, series(PromDuration+"_bucket", c.labels, label{"le", ftoa(b)}, val(float64(c.buckets[i])), ts))
		}
		req.Timeseries = append(req.Timeseries,
			series(PromDuration+"_bucket", c.labels, label{"le", "+Inf"}, val(float64(c.count)), ts),
			series(PromDuration+"_count", c.labels, label{}, val(float64(c.count)), ts),
			series(PromDuration+"_sum", c.labels, label{}, val(c.sum), ts))
	}
	for _, c := range rw.counts {
		req.Timeseries = append(req.Timeseries, series(PromRequests, c.labels, label{}, val(float64(c.count)), ts))
	}
}

// series is one sample of the metric name with labels ls and extra (when
// named), its labels sorted as remote write requires.
func series(name string, ls []label, extra label, v float64, ts int64) prompb.TimeSeries {
	pl := make([]prompb.Label, 0, len(ls)+2)
	pl = append(pl, prompb.Label{Name: "__name__", Value: name})
	for _, l := range ls {
		pl = append(pl, prompb.Label{Name: l.name, Value: l.value})
	}
	if extra.name != "" {
		pl = append(pl, prompb.Label{Name: extra.name, Value: extra.value})
	}
	slices.SortFunc(pl, func(a, b prompb.Label) int { return cmpString(a.Name, b.Name) })
	return prompb.TimeSeries{Labels: pl, Samples: []prompb.Sample{{Value: v, Timestamp: ts}}}
}
