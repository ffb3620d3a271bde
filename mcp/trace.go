package mcp

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"time"
)

// Trace context (W3C traceparent) on a sampled share of the requests, in
// params._meta as the MCP semantic conventions say and in the HTTP
// header, so that a server's spans join the client's. A sampled request
// goes out as a copy of its Prepared with its own head and no cached
// headers: the unsampled ones, and every request without Options.Trace,
// take the usual path untouched (one nil check). What is done with the
// spans (exemplars, exporters) is the caller's, through OnSpan.

// Trace asks for trace context on a share of the requests.
type Trace struct {
	// Fraction of the requests sampled, in (0, 1].
	Fraction float64
	// OnSpan, when set, gets every sampled request once answered, from
	// the worker that sent it: it must not block.
	OnSpan func(Span)
}

// Span is one sampled request: its trace context and what came of it.
type Span struct {
	TraceID [16]byte
	SpanID  [8]byte
	Method  string
	Tool    string
	Start   time.Time
	End     time.Time
	Kind    Kind
}

// TraceParent is the span's traceparent value (sampled flag set).
func (s *Span) TraceParent() string {
	return "00-" + hex.EncodeToString(s.TraceID[:]) + "-" + hex.EncodeToString(s.SpanID[:]) + "-01"
}

// tracer samples requests.
type tracer struct{ opts Trace }

func newTracer(t *Trace) *tracer {
	if t == nil || t.Fraction <= 0 {
		return nil
	}
	return &tracer{opts: *t}
}

// doTraced sends p with trace context when the request is sampled.
func (s *Session) doTraced(ctx context.Context, p *Prepared, cursor string) Result {
	tr := s.c.tracer
	if cursor != "" || rand.Float64() >= tr.opts.Fraction {
		return s.doPlain(ctx, p, cursor)
	}
	var sp Span
	for i := 0; i < 16; i += 8 {
		putUint64(sp.TraceID[i:], rand.Uint64())
	}
	putUint64(sp.SpanID[:], rand.Uint64())
	tp, err := s.tracedCopy(p, sp.TraceParent())
	if err != nil {
		return s.doPlain(ctx, p, cursor)
	}
	sp.Method, sp.Tool, sp.Start = p.req.Method, p.req.Tool, time.Now()
	r := s.doPlain(ctx, tp, cursor)
	sp.End, sp.Kind = time.Now(), r.Kind
	if tr.opts.OnSpan != nil {
		tr.opts.OnSpan(sp)
	}
	return r
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (56 - 8*i))
	}
}

// tracedCopy is p framed again with traceparent in params._meta and in
// the header; its headers are built afresh for it alone.
func (s *Session) tracedCopy(p *Prepared, traceparent string) (*Prepared, error) {
	meta := []byte(`{"traceparent":"` + traceparent + `"}`)
	if len(s.c.meta) > 1 {
		meta = append([]byte(`{"traceparent":"`+traceparent+`",`), s.c.meta[1:]...)
	}
	params, err := buildParams(p.req, meta, "")
	if err != nil {
		return nil, err
	}
	tp := &Prepared{req: p.req, head: frameHead(p.req.Method, params), nameHeader: p.nameHeader,
		params: p.params, relisted: p.relisted, traceparent: traceparent}
	return tp, nil
}
