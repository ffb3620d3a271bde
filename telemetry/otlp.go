package telemetry

import (
	"context"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/results"
)

// MetricRequests is the OTLP name of the answers by operation and
// outcome (PromRequests in Prometheus).
const MetricRequests = "mcp.client.operation.requests"

// otelKeys spell the labels as OpenTelemetry attributes (the MCP
// semantic conventions' names); a user's label keeps its own name.
var otelKeys = map[string]string{LabelMethod: "mcp.method.name", LabelTool: "gen_ai.tool.name",
	LabelStep: "mcp.scenario.step", LabelOutcome: "error.type", LabelRun: "mcpbench.run.id",
	LabelShard: "mcpbench.shard", LabelLevel: "mcpbench.level"}

// OTLP is the output of --out otlp=URL: the same running totals as
// RemoteWrite, as OTLP cumulative metrics, through the OpenTelemetry Go
// SDK's HTTP exporter (OTEL_EXPORTER_OTLP_HEADERS and the other variables
// it reads apply).
type OTLP struct {
	exp   sdkmetric.Exporter
	t     *totals
	res   *resource.Resource
	scope instrumentation.Scope
	out   *sender[*metricdata.ResourceMetrics]
	// URL is the collector's, as given (NewSpans sends spans beside).
	URL *url.URL
}

// MetricsURL is u with OTLP's metrics path when it names none.
func MetricsURL(u *url.URL) *url.URL {
	c := *u
	if c.Path == "" || c.Path == "/" {
		c.Path = "/v1/metrics"
	}
	return &c
}

// NewOTLP makes the output for the collector's metrics endpoint u.
func NewOTLP(u *url.URL, labels map[string]string, shard *results.Shard, runID, version string) (*OTLP, error) {
	exp, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL(MetricsURL(u).String()),
		otlpmetrichttp.WithTimeout(sendTimeout),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: true, InitialInterval: 100 * time.Millisecond,
			MaxInterval: time.Second, MaxElapsedTime: 3 * time.Second}))
	if err != nil {
		return nil, err
	}
	o := &OTLP{exp: exp, t: newTotals(baseLabels(runID, shard, labels)),
		res:   resource.NewSchemaless(attribute.String("service.name", "mcpbench"), attribute.String("service.version", version)),
		scope: instrumentation.Scope{Name: "github.com/mcpbench/mcpbench", Version: version}}
	o.out = newSender(func(ctx context.Context, rm *metricdata.ResourceMetrics) error { return exp.Export(ctx, rm) })
	o.URL = u
	return o, nil
}

// Start does nothing: the collector is first reached with the first
// interval, and a dead one is said at the end, once.
func (o *OTLP) Start(harness.Meta) error { return nil }

// Event does nothing.
func (o *OTLP) Event(harness.Event) {}

// Interval adds the bucket to the totals and queues them.
func (o *OTLP) Interval(iv harness.PointInterval) {
	if at, _, ok := o.t.add(iv); ok {
		o.out.offer(o.metrics(at))
	}
}

// WantsOperationHistograms: each operation has its own duration
// histogram, also in a mix.
func (o *OTLP) WantsOperationHistograms() bool { return true }

// Late adds answers filed after their bucket's interval to the totals;
// the next export carries them.
func (o *OTLP) Late(iv harness.PointInterval) { o.t.addLate(iv) }

// Stop sends the report's exact totals, lets the queue empty within
// FlushBudget and shuts the exporter down.
func (o *OTLP) Stop(f harness.Final) {
	if at, ok := o.t.reconcile(f); ok {
		o.out.offer(o.metrics(at))
	}
	o.out.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = o.exp.Shutdown(ctx)
}

// Problem says what did not reach the collector.
func (o *OTLP) Problem() string { return o.out.problem("OTLP metric exports") }

// metrics are the totals at `at` as OTLP data.
func (o *OTLP) metrics(at time.Time) *metricdata.ResourceMetrics {
	h := metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}
	for _, c := range o.t.hists {
		counts := make([]uint64, len(DurationBuckets)+1)
		var below int64
		for i, n := range c.buckets { // cumulative "le" counts into per-bucket counts
			counts[i] = uint64(n - below)
			below = n
		}
		counts[len(DurationBuckets)] = uint64(c.count - below)
		h.DataPoints = append(h.DataPoints, metricdata.HistogramDataPoint[float64]{Attributes: attributesOf(c.labels),
			StartTime: o.t.start, Time: at, Count: uint64(c.count), Bounds: DurationBuckets, BucketCounts: counts, Sum: c.sum})
	}
	s := metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}
	for _, c := range o.t.counts {
		s.DataPoints = append(s.DataPoints, metricdata.DataPoint[int64]{Attributes: attributesOf(c.labels),
			StartTime: o.t.start, Time: at, Value: c.count})
	}
	return &metricdata.ResourceMetrics{Resource: o.res, ScopeMetrics: []metricdata.ScopeMetrics{{Scope: o.scope,
		Metrics: []metricdata.Metrics{
			{Name: MetricDuration, Description: "Duration of MCP requests as the client (mcpbench) saw them", Unit: "s", Data: h},
			{Name: MetricRequests, Description: "MCP requests answered, by operation and outcome", Unit: "{request}", Data: s},
		}}}}
}

// attributesOf is a label set as OpenTelemetry attributes.
func attributesOf(ls []label) attribute.Set {
	kvs := make([]attribute.KeyValue, 0, len(ls))
	for _, l := range ls {
		k := l.name
		if ok := otelKeys[k]; ok != "" {
			k = ok
		}
		kvs = append(kvs, attribute.String(k, l.value))
	}
	return attribute.NewSet(kvs...)
}
