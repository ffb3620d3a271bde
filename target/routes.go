package target

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routes wires the HTTP handlers: the SDK's two transports behind the
// stall gate, fault injection and the session leak (behind the bearer
// check with --oauth), then /health, /metrics and the OAuth endpoints.
func (s *Server) routes() http.Handler {
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: s.cfg.Stateless, JSONResponse: s.cfg.JSONResponse})
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	mux := http.NewServeMux()
	if s.cfg.OAuth {
		s.oauth = newOAuthServer(s.cfg)
		s.oauth.routes(mux)
	}
	mux.Handle("/mcp", s.protect(s.gated(s.serverInfo(s.httpFaults(s.keepSessions(s.countStreams(streamable)))))))
	mux.Handle("/sse", s.protect(s.gated(sse)))
	mux.HandleFunc("/health", s.serveHealth)
	mux.Handle("/metrics", s.metricsHandler())
	return mux
}

// gated holds requests while the server is stalled.
func (s *Server) gated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.stall.wait(r.Context(), s.quit); err != nil {
			return // the client is gone
		}
		next.ServeHTTP(w, r)
	})
}

// serverInfo answers a plain GET of /mcp (no session, no SSE wanted) with the
// server's identity, as the seed servers do; everything else goes to the SDK.
func (s *Server) serverInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Mcp-Session-Id") != "" ||
			strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"name":            s.cfg.Name,
			"version":         s.cfg.Version,
			"protocolVersion": mcp.SupportedProtocolVersions()[0],
			"message":         "MCP endpoint: POST JSON-RPC here (Streamable HTTP); legacy SSE at /sse",
		})
	})
}

// countStreams counts the standing GET streams being served (a session's
// GET for events), for /health's streams_open: a client that holds one
// per session can be checked to hold all of them.
func (s *Server) countStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Mcp-Session-Id") == "" {
			next.ServeHTTP(w, r)
			return
		}
		s.streamsOpen.Add(1)
		defer s.streamsOpen.Add(-1)
		next.ServeHTTP(w, r)
	})
}
