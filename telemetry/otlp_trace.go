package telemetry

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
)

// Spans exports the client spans of the requests --trace sampled, with
// the trace and span ids they carried, so a server's spans (children of
// the traceparent it received) join them. Workers hand spans over without
// waiting: they are batched once an interval and queued like metrics.
type Spans struct {
	exp   *otlptrace.Exporter
	scope instrumentation.Scope
	attrs []attribute.KeyValue

	mu      sync.Mutex
	pending []mcp.Span
	out     *sender[[]sdktrace.ReadOnlySpan]
}

// maxPending bounds the spans waiting for the next interval; beyond it a
// span is dropped (and counted).
const maxPending = 100_000

// TracesURL is the OTLP traces endpoint beside the metrics one u names.
func TracesURL(u *url.URL) *url.URL {
	c := *u
	c.Path = strings.TrimSuffix(strings.TrimSuffix(c.Path, "/"), "/v1/metrics") + "/v1/traces"
	return &c
}

// NewSpans makes the span exporter for the collector at u (its metrics
// or base URL).
func NewSpans(u *url.URL, labels map[string]string, runID, version string) (*Spans, error) {
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(TracesURL(u).String()),
		otlptracehttp.WithTimeout(sendTimeout))
	if err != nil {
		return nil, err
	}
	base := attributesOf(baseLabels(runID, nil, labels))
	s := &Spans{exp: exp, scope: instrumentation.Scope{Name: "github.com/mcpbench/mcpbench", Version: version},
		attrs: base.ToSlice()}
	s.out = newSender(func(ctx context.Context, b []sdktrace.ReadOnlySpan) error { return exp.ExportSpans(ctx, b) })
	return s, nil
}

// Span takes one sampled request (Trace.OnSpan), from a worker.
func (s *Spans) Span(sp mcp.Span) {
	s.mu.Lock()
	if len(s.pending) < maxPending {
		s.pending = append(s.pending, sp)
	} else {
		s.out.count(1, nil)
	}
	s.mu.Unlock()
}

// Start, Event: nothing.
func (s *Spans) Start(harness.Meta) error { return nil }
func (s *Spans) Event(harness.Event)      {}

// Interval queues the spans gathered since the last one.
func (s *Spans) Interval(harness.PointInterval) { s.flush() }

// Stop queues the rest and lets the queue empty within FlushBudget.
func (s *Spans) Stop(harness.Final) {
	s.flush()
	s.out.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.exp.Shutdown(ctx)
}

// Problem says what did not reach the collector.
func (s *Spans) Problem() string { return s.out.problem("OTLP span exports") }

func (s *Spans) flush() {
	s.mu.Lock()
	batch := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	ro := make([]sdktrace.ReadOnlySpan, 0, len(batch))
	for i := range batch {
		ro = append(ro, s.stub(&batch[i]).Snapshot())
	}
	s.out.offer(ro)
}

// stub is a sampled request as a client span (the MCP conventions' name:
// the method, and the tool for tools/call).
func (s *Spans) stub(sp *mcp.Span) tracetest.SpanStub {
	name := sp.Method
	attrs := append([]attribute.KeyValue{attribute.String("mcp.method.name", sp.Method)}, s.attrs...)
	if sp.Tool != "" {
		name += " " + sp.Tool
		attrs = append(attrs, attribute.String("gen_ai.tool.name", sp.Tool))
	}
	st := sdktrace.Status{Code: codes.Ok}
	if sp.Kind != 0 {
		st = sdktrace.Status{Code: codes.Error, Description: sp.Kind.String()}
		attrs = append(attrs, attribute.String("error.type", sp.Kind.String()))
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: sp.TraceID, SpanID: sp.SpanID, TraceFlags: trace.FlagsSampled})
	return tracetest.SpanStub{Name: name, SpanContext: sc, SpanKind: trace.SpanKindClient, StartTime: sp.Start,
		EndTime: sp.End, Attributes: attrs, Status: st, InstrumentationScope: s.scope}
}
