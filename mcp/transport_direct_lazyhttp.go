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
// first request, from the options its pair shares.
type lazyTransport struct {
	mu   sync.Mutex
	pair *lazyPair
	side bool // the side client's transport
	rt   http.RoundTripper
}

// lazyPair is what a detached client's two lazy transports hold, in one
// allocation: an idle session keeps it (the options and two closures
// each cost it some 450 bytes).
type lazyPair struct {
	h          httpSetup
	hcT, sideT lazyTransport
	hc, sideC  http.Client
}

func (l *lazyTransport) get() (http.RoundTripper, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rt == nil {
		c, err := l.pair.h.client()
		if err != nil {
			return nil, err
		}
		if l.side {
			c = sideClient(c)
		}
		l.rt = c.Transport
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

// lazyHTTPClients are h's pooled client and its side client, each made
// on first use as h.client and sideClient make them.
func lazyHTTPClients(h httpSetup) (hc, side *http.Client) {
	p := &lazyPair{h: h}
	p.hcT.pair, p.sideT.pair, p.sideT.side = p, p, true
	p.hc = http.Client{Transport: &p.hcT, CheckRedirect: noRedirect}
	p.sideC = http.Client{Transport: &p.sideT, CheckRedirect: noRedirect}
	return &p.hc, &p.sideC
}

// noRedirect hands a redirect back as the answer.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
