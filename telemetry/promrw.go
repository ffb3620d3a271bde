package telemetry

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mcpbench/mcpbench/harness"
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
	out   *sender[*prompb.WriteRequest]

	t *totals
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
	rw := &RemoteWrite{RunID: runID, api: api, t: newTotals(baseLabels(runID, shard, labels))}
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
	if at, ok := rw.t.reconcile(f); ok {
		req := &prompb.WriteRequest{}
		rw.appendSamples(req, at, false)
		rw.out.offer(req)
	}
	rw.out.close()
}

// Problem says what did not reach the endpoint.
func (rw *RemoteWrite) Problem() string { return rw.out.problem("remote-write requests") }

// Interval adds the bucket to the totals and queues their samples.
func (rw *RemoteWrite) Interval(iv harness.PointInterval) {
	at, first, ok := rw.t.add(iv)
	if !ok {
		return
	}
	req := &prompb.WriteRequest{}
	if first { // the totals start from zero where the window opens
		rw.appendSamples(req, rw.t.start, true)
	}
	rw.appendSamples(req, at, false)
	rw.out.offer(req)
}

// WantsOperationHistograms: each operation has its own duration
// histogram, also in a mix.
func (rw *RemoteWrite) WantsOperationHistograms() bool { return true }

// Late adds answers filed after their bucket's interval to the totals;
// the next interval's samples carry them.
func (rw *RemoteWrite) Late(iv harness.PointInterval) { rw.t.addLate(iv) }

// appendSamples adds every series' total at t (zero when zero is set).
func (rw *RemoteWrite) appendSamples(req *prompb.WriteRequest, t time.Time, zero bool) {
	ts := t.UnixMilli()
	val := func(x float64) float64 {
		if zero {
			return 0
		}
		return x
	}
	for _, c := range rw.t.hists {
		for i, b := range DurationBuckets {
			req.Timeseries = append(req.Timeseries, series(PromDuration+"_bucket", c.labels, label{"le", ftoa(b)}, val(float64(c.buckets[i])), ts))
		}
		req.Timeseries = append(req.Timeseries,
			series(PromDuration+"_bucket", c.labels, label{"le", "+Inf"}, val(float64(c.count)), ts),
			series(PromDuration+"_count", c.labels, label{}, val(float64(c.count)), ts),
			series(PromDuration+"_sum", c.labels, label{}, val(c.sum), ts))
	}
	for _, c := range rw.t.counts {
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
	slices.SortFunc(pl, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
	return prompb.TimeSeries{Labels: pl, Samples: []prompb.Sample{{Value: v, Timestamp: ts}}}
}
