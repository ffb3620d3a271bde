package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// shutdownGrace bounds how long Shutdown waits for requests in progress.
const shutdownGrace = 2 * time.Second

// Running is a server listening on a TCP address.
type Running struct {
	*Server
	URL string // base URL, e.g. http://127.0.0.1:41234; MCP is at URL+"/mcp"

	http     *http.Server
	fast     *fasthttp.Server // the fixed-response mode's server
	served   chan error
	connMu   sync.Mutex
	fresh    map[net.Conn]bool // accepted connections that have not sent a request yet
	stopOnce sync.Once
	stopErr  error
}

// Start listens on 127.0.0.1 with a free port and serves cfg. The server stops
// when ctx is cancelled or Shutdown is called.
func Start(ctx context.Context, cfg Config) (*Running, error) {
	return Listen(ctx, "127.0.0.1:0", cfg)
}

// Listen is Start on a given address.
func Listen(ctx context.Context, addr string, cfg Config) (*Running, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	r := &Running{
		Server: s,
		URL:    "http://" + ln.Addr().String(),
		http:   &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second},
		served: make(chan error, 1),
	}
	if cfg.FixedResponse && s.cfg.FixedEngine == FixedNetHTTP {
		r.http.Handler = newFixedMCP(s)
	}
	if cfg.FixedResponse && s.cfg.FixedEngine == FixedFastHTTP {
		fixed := newFixedMCP(s)
		r.fast = &fasthttp.Server{Handler: fixed.serve, Name: DefaultName, NoDefaultDate: true, NoDefaultContentType: true}
		go func() { r.served <- r.fast.Serve(ln) }()
	} else {
		r.fresh = make(map[net.Conn]bool)
		r.http.ConnState = r.trackFresh
		go func() { r.served <- r.http.Serve(ln) }()
	}
	go func() {
		select {
		case <-ctx.Done():
			r.Shutdown(context.Background())
		case <-s.quit:
		}
	}()
	return r, nil
}

// MCPURL is the Streamable HTTP endpoint.
func (r *Running) MCPURL() string { return r.URL + "/mcp" }

// SSEURL is the legacy HTTP+SSE endpoint.
func (r *Running) SSEURL() string { return r.URL + "/sse" }

// HealthURL is the /health endpoint.
func (r *Running) HealthURL() string { return r.URL + "/health" }

// Done is closed once Shutdown has begun.
func (r *Running) Done() <-chan struct{} { return r.quit }

// Shutdown stops accepting connections, releases stalled and hanging
// requests, closes every session, waits up to ctx (and at most
// shutdownGrace) for requests in progress, and writes the last stats line.
func (r *Running) Shutdown(ctx context.Context) error {
	r.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, shutdownGrace)
		defer cancel()
		// Release first: it ends the sessions' hanging streams, which would
		// otherwise keep Shutdown waiting for the whole grace period.
		r.Server.release()
		if r.fast != nil {
			err := r.fast.ShutdownWithContext(ctx)
			<-r.served
			r.Server.Close()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				r.stopErr = fmt.Errorf("shutdown: %w", err)
			}
			return
		}
		go r.closeFresh()
		err := r.http.Shutdown(ctx)
		if err != nil {
			r.http.Close()
		}
		if serr := <-r.served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		r.Server.Close() // after the last request: the final stats line counts it
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			r.stopErr = fmt.Errorf("shutdown: %w", err)
		}
	})
	return r.stopErr
}

// trackFresh remembers connections that are open but have sent nothing:
// http.Server.Shutdown waits up to 5s for those (a client's pre-dialled
// spare, say), so Shutdown closes them itself.
func (r *Running) trackFresh(c net.Conn, st http.ConnState) {
	r.connMu.Lock()
	defer r.connMu.Unlock()
	if st == http.StateNew {
		r.fresh[c] = true
	} else {
		delete(r.fresh, c)
	}
}

func (r *Running) closeFresh() {
	// Shutdown must have closed the listener first, or new ones could come.
	time.Sleep(10 * time.Millisecond)
	r.connMu.Lock()
	defer r.connMu.Unlock()
	for c := range r.fresh {
		c.Close()
		delete(r.fresh, c)
	}
}

// Close is Shutdown without a caller's deadline.
func (r *Running) Close() error { return r.Shutdown(context.Background()) }
