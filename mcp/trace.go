package mcp

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// Trace context (W3C traceparent) on a sampled share of the requests, in
// params._meta as the MCP semantic conventions say and in the HTTP
// header, so that a server's spans join the client's. A sampled request
// goes out as a copy of its Prepared with its own head and no cached
// headers: the unsampled ones, and every request without Options.Trace,
// take the usual path untouched (one nil check).

// Trace asks for trace context on a share of the requests.
type Trace struct {
	// Fraction of the requests sampled, in (0, 1].
	Fraction float64
	// OnSpan, when set, gets every sampled request once answered, from
	// the worker that sent it: it must not block.
	OnSpan func(Span)
	// Keep is how many of the slowest sampled requests of each operation
	// Exemplars keeps (default 5).
	Keep int
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

// tracer samples requests and keeps the slowest of each operation.
type tracer struct {
	opts Trace
	mu   sync.Mutex
	slow map[[2]string][]Span // by method and tool, slowest first
}

func newTracer(t *Trace) *tracer {
	if t == nil || t.Fraction <= 0 {
		return nil
	}
	o := *t
	if o.Keep <= 0 {
		o.Keep = 5
	}
	return &tracer{opts: o, slow: map[[2]string][]Span{}}
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
	tr.keep(sp)
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

// keep files sp among the slowest of its operation.
func (t *tracer) keep(sp Span) {
	key := [2]string{sp.Method, sp.Tool}
	d := sp.End.Sub(sp.Start)
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.slow[key]
	if len(list) == t.opts.Keep && d <= list[len(list)-1].End.Sub(list[len(list)-1].Start) {
		return
	}
	i, _ := slices.BinarySearchFunc(list, d, func(s Span, d time.Duration) int {
		if s.End.Sub(s.Start) > d {
			return -1
		}
		return 1
	})
	list = slices.Insert(list, i, sp)
	if len(list) > t.opts.Keep {
		list = list[:t.opts.Keep]
	}
	t.slow[key] = list
}

// Exemplars are the slowest sampled requests of each operation, slowest
// first within one; nil without Options.Trace.
func (c *Client) Exemplars() []Span {
	if c.tracer == nil {
		return nil
	}
	c.tracer.mu.Lock()
	defer c.tracer.mu.Unlock()
	var out []Span
	keys := make([][2]string, 0, len(c.tracer.slow))
	for k := range c.tracer.slow {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		out = append(out, c.tracer.slow[k]...)
	}
	return out
}

// ResetExemplars forgets the requests sampled so far (those of a warm-up).
func (c *Client) ResetExemplars() {
	if c.tracer != nil {
		c.tracer.mu.Lock()
		clear(c.tracer.slow)
		c.tracer.mu.Unlock()
	}
}
