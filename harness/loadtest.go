package harness

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
)

// What a load test asks of the client beyond MCP, made from the Setup:
// the sessions it abandons and the requests it traces (mcp.Hooks). The
// client carries them out; the choosing and the exemplars are here.

// keepExemplars is how many of the slowest traced requests of each
// operation a report keeps.
const keepExemplars = 5

// hooks are the client's hooks for s, with the exemplars they keep (nil
// without tracing).
func (s *Setup) hooks() (mcp.Hooks, *exemplars) {
	h := mcp.Hooks{Abandon: bench.NewShare(s.AbandonSessions).Picker()}
	if s.Trace == nil || s.Trace.Fraction <= 0 {
		return h, nil
	}
	ex := &exemplars{slow: map[[2]string][]mcp.Span{}}
	onSpan := s.Trace.OnSpan
	h.Trace = &mcp.Trace{Fraction: s.Trace.Fraction, OnSpan: func(sp mcp.Span) {
		ex.keep(sp)
		if onSpan != nil {
			onSpan(sp)
		}
	}}
	return h, ex
}

// exemplars are the slowest traced requests of each operation.
type exemplars struct {
	mu   sync.Mutex
	slow map[[2]string][]mcp.Span // by method and tool, slowest first
}

// keep files sp among the slowest of its operation.
func (e *exemplars) keep(sp mcp.Span) {
	key := [2]string{sp.Method, sp.Tool}
	d := sp.End.Sub(sp.Start)
	e.mu.Lock()
	defer e.mu.Unlock()
	list := e.slow[key]
	if len(list) == keepExemplars && d <= list[len(list)-1].End.Sub(list[len(list)-1].Start) {
		return
	}
	i, _ := slices.BinarySearchFunc(list, d, func(s mcp.Span, d time.Duration) int {
		if s.End.Sub(s.Start) > d {
			return -1
		}
		return 1
	})
	list = slices.Insert(list, i, sp)
	if len(list) > keepExemplars {
		list = list[:keepExemplars]
	}
	e.slow[key] = list
}

// list is the slowest traced requests of each operation, by method and
// tool, slowest first within one; nil without tracing.
func (e *exemplars) list() []mcp.Span {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []mcp.Span
	keys := make([][2]string, 0, len(e.slow))
	for k := range e.slow {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		out = append(out, e.slow[k]...)
	}
	return out
}

// reset forgets the requests traced so far (those of a warm-up).
func (e *exemplars) reset() {
	if e != nil {
		e.mu.Lock()
		clear(e.slow)
		e.mu.Unlock()
	}
}
