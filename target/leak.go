package target

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leaks are the faults a soak test is for, on purpose: memory kept for
// every request (Config.LeakPerRequest) and sessions never released
// (Config.LeakSessions), so a user can see what a leak looks like in
// mcpbench's series before pointing it at their own server.
//
// The kept bytes live outside the Go heap, in anonymous mappings written
// through page by page, so the resident memory grows by exactly the leak.
// Kept on the heap, they would also raise the collector's target (with
// GOGC=100, up to twice the live heap): RSS would grow by up to twice the
// leak, and a rehearsal whose figure the user cannot check teaches little.
type leaks struct {
	perRequest int
	mu         sync.Mutex
	arenas     [][]byte // mappings in use; the last one is being filled
	used       int      // bytes used of the last arena
	bytes      atomic.Int64
	// keptSessions counts DELETEs ignored: sessions the client ended that
	// the server keeps.
	keptSessions atomic.Int64
}

// leakArena is the size of each mapping the leak fills.
const leakArena = 64 << 20

// middleware keeps perRequest bytes for every request the server answers
// (notifications are not requests).
func (l *leaks) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !strings.HasPrefix(method, "notifications/") {
			l.keep()
		}
		return next(ctx, method, req)
	}
}

// keep writes one request's worth into the arenas, mapping a new one when
// the last is full. A mapping that fails leaks nothing (the server goes
// on; the metric says what was kept).
func (l *leaks) keep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for left := l.perRequest; left > 0; {
		if len(l.arenas) == 0 || l.used == leakArena {
			a, err := mapArena(leakArena)
			if err != nil {
				return
			}
			l.arenas, l.used = append(l.arenas, a), 0
		}
		a := l.arenas[len(l.arenas)-1]
		n := min(left, leakArena-l.used)
		for i := l.used; i < l.used+n; i++ {
			a[i] = byte(i) | 1 // not zero: every page written for real
		}
		l.used += n
		left -= n
		l.bytes.Add(int64(n))
	}
}

// free unmaps the arenas, when the server closes.
func (l *leaks) free() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.arenas {
		unmapArena(a)
	}
	l.arenas, l.used = nil, 0
}

// keepSessions answers a session's DELETE as if it had ended it, and
// keeps the session: its state and goroutines stay for the life of the
// process, as with a server that forgets to release them.
func (s *Server) keepSessions(next http.Handler) http.Handler {
	if !s.cfg.LeakSessions {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") != "" {
			s.leaks.keptSessions.Add(1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// openSessions counts the MCP sessions the server holds.
func (s *Server) openSessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}
