package mcp

import (
	"net/http"
	"sync"
)

// A detached client on the direct engine (a session on connections of its
// own) sends its POSTs on the engine's connections, and on an event loop
// everything else too: net/http is used only off the loops, for
// notifications, answers, resumed streams, a DELETE or the GET stream.
// Its two transports (a few KB each, with their HTTP/2 set-up) are made
// on first use, so that ten thousand idle sessions on the loops hold
// none.

// lazyTransport is an http.RoundTripper that makes its transport on the
// first request.
type lazyTransport struct {
	mu   sync.Mutex
	make func() (http.RoundTripper, error)
	rt   http.RoundTripper
}

func (l *lazyTransport) get() (http.RoundTripper, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rt == nil {
		rt, err := l.make()
		if err != nil {
			return nil, err
		}
		l.rt = rt
	}
	return l.rt, nil
}

func (l *lazyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt, err := l.get()
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return rt.RoundTrip(r)
}

// CloseIdleConnections closes the transport's idle connections, if it
// was ever made (and does not make it).
func (l *lazyTransport) CloseIdleConnections() {
	l.mu.Lock()
	rt := l.rt
	l.mu.Unlock()
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// lazyHTTPClients are o's pooled client and its side client, each made
// on first use as NewHTTPClient and sideClient make them.
func lazyHTTPClients(o Options) (hc, side *http.Client) {
	made := func(side bool) func() (http.RoundTripper, error) {
		return func() (http.RoundTripper, error) {
			c, _, err := NewHTTPClient(o)
			if err != nil {
				return nil, err
			}
			if side {
				c = sideClient(c)
			}
			return c.Transport, nil
		}
	}
	redirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hc = &http.Client{Transport: &lazyTransport{make: made(false)}, CheckRedirect: redirect}
	side = &http.Client{Transport: &lazyTransport{make: made(true)}, CheckRedirect: redirect}
	return hc, side
}
