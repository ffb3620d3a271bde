package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Slow-body pacing: the answer is cut into slowBodyChunks pieces with a pause
// between them, so it takes about (chunks-1) * pause whatever its size.
const (
	slowBodyChunks = 16
	slowBodyPause  = 25 * time.Millisecond
	maxPeekBytes   = 4 << 20 // as the SDK's default request body limit
)

// httpFaults damages the HTTP exchange of POSTs that carry a tools/list or
// tools/call request, and passes everything else (initialize, notifications,
// discover, GET, DELETE) to next untouched so that clients can still connect.
func (s *Server) httpFaults(next http.Handler) http.Handler {
	if !httpLevelFault(s.cfg.Fault) || s.cfg.FaultRate <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
		r.Body.Close()
		if err != nil {
			http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 || (msg.Method != methodList && msg.Method != methodCall) {
			next.ServeHTTP(w, r)
			return
		}
		// Without a session there is no session to expire.
		if s.cfg.Fault == FaultSessionExpired && r.Header.Get("Mcp-Session-Id") == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !s.roll() {
			next.ServeHTTP(w, r)
			return
		}
		s.injectHTTP(w, r, next, msg.ID, msg.Method)
	})
}

func (s *Server) injectHTTP(w http.ResponseWriter, r *http.Request, next http.Handler, id json.RawMessage, method string) {
	switch s.cfg.Fault {
	case FaultHTTP500:
		http.Error(w, "injected fault: internal server error", http.StatusInternalServerError)
	case FaultSessionExpired:
		http.Error(w, "session not found", http.StatusNotFound)
	case FaultReset:
		resetConn(w)
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.quit:
			http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		}
	case FaultMalformedJSON:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"tool_000",,"inputSchema":{"type":`, id)
	case FaultTruncatedSSE:
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"con", id)
		http.NewResponseController(w).Flush()
		// Abort: net/http drops the connection without ending the chunked body.
		panic(http.ErrAbortHandler)
	case FaultOversized:
		writeOversized(w, id, method, s.cfg.OversizedBytes)
	case FaultSlowBody:
		rec := &recorder{header: make(http.Header), status: http.StatusOK}
		next.ServeHTTP(rec, r)
		trickle(w, r, rec)
	}
}

// resetConn closes the connection with SO_LINGER 0, so the client sees a
// TCP reset rather than an orderly close.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// writeOversized streams a valid JSON-RPC answer of about size bytes without
// holding it in memory.
func writeOversized(w http.ResponseWriter, id json.RawMessage, method string, size int) {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
	tail := `"}]}}`
	if method == methodList {
		head = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"_meta":{"padding":"`, id)
		tail = `"}}}`
	}
	pad := size - len(head) - len(tail)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(head)+max(pad, 0)+len(tail)))
	io.WriteString(w, head)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for pad > 0 {
		n := min(pad, len(chunk))
		if _, err := w.Write(chunk[:n]); err != nil {
			return // the client gave up
		}
		pad -= n
	}
	io.WriteString(w, tail)
}

// recorder captures the SDK's whole answer so that it can be trickled out.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) Flush()                      {}

func trickle(w http.ResponseWriter, r *http.Request, rec *recorder) {
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.status)
	body := rec.body.Bytes()
	step := max(1, (len(body)+slowBodyChunks-1)/slowBodyChunks)
	rc := http.NewResponseController(w)
	for len(body) > 0 {
		n := min(step, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		rc.Flush()
		body = body[n:]
		if len(body) > 0 {
			t := time.NewTimer(slowBodyPause)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
	}
}
