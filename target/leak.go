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
type leaks struct {
	perRequest int
	mu         sync.Mutex
	kept       [][]byte
	bytes      atomic.Int64
	// keptSessions counts DELETEs ignored: sessions the client ended that
	// the server keeps.
	keptSessions atomic.Int64
}

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

// keep allocates one request's worth and writes to every byte of it: a
// fresh allocation the program never touches may not be resident at all,
// and a leak that does not show in RSS would teach the wrong lesson.
func (l *leaks) keep() {
	b := make([]byte, l.perRequest)
	for i := range b {
		b[i] = byte(i)
	}
	l.mu.Lock()
	l.kept = append(l.kept, b)
	l.mu.Unlock()
	l.bytes.Add(int64(len(b)))
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
