package target

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server takes note of the W3C trace context that its requests
// carry in params._meta, where the MCP semantic
// conventions put it and where a server instrumented with OpenTelemetry
// takes its parent span from: a test can then line a load generator's
// exemplars up with the traces the server itself received.

// traceIDs counts the requests of each trace id received.
type traceIDs struct {
	mu  sync.Mutex
	ids map[string]int
}

// maxTraceIDs bounds the trace ids kept, so a long traced soak cannot
// grow the server without end.
const maxTraceIDs = 1 << 16

func (t *traceIDs) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// Any request's params may carry the context (a sampled initialize
		// or ping as well as calls and lists); a request without params
		// holds a nil pointer, whose GetMeta would fault.
		var meta map[string]any
		if p := req.GetParams(); p != nil {
			if v := reflect.ValueOf(p); v.Kind() != reflect.Pointer || !v.IsNil() {
				meta = p.GetMeta()
			}
		}
		if tp, ok := meta["traceparent"].(string); ok {
			t.note(tp)
		}
		return next(ctx, method, req)
	}
}

// note files a traceparent (version-traceid-spanid-flags).
func (t *traceIDs) note(tp string) {
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || len(parts[1]) != 32 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids == nil {
		t.ids = map[string]int{}
	}
	if _, ok := t.ids[parts[1]]; ok || len(t.ids) < maxTraceIDs {
		t.ids[parts[1]]++
	}
}

// TraceIDs are the trace ids the server received in params._meta, with
// the number of requests that carried each.
func (s *Server) TraceIDs() map[string]int {
	s.traces.mu.Lock()
	defer s.traces.mu.Unlock()
	out := make(map[string]int, len(s.traces.ids))
	for k, v := range s.traces.ids {
		out[k] = v
	}
	return out
}
