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
	mu    sync.Mutex
	make  func() (*http.Transport, error)
	tr    *http.Transport
	tuned func(*http.Transport) // settings of the side client, if it is one
}

func (l *lazyTransport) get() (*http.Transport, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tr == nil {
		tr, err := l.make()
		if err != nil {
			return nil, err
		}
		if l.tuned != nil {
			l.tuned(tr)
		}
		l.tr = tr
	}
	return l.tr, nil
}

func (l *lazyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tr, err := l.get()
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return tr.RoundTrip(r)
}

// CloseIdleConnections closes the transport's idle connections, if it
// was ever made (and does not make it).
func (l *lazyTransport) CloseIdleConnections() {
	l.mu.Lock()
	tr := l.tr
	l.mu.Unlock()
	if tr != nil {
		tr.CloseIdleConnections()
	}
}

// lazyHTTPClients are o's pooled client and its side client, each made
// on first use.
func lazyHTTPClients(o Options) (hc, side *http.Client) {
	build := func() (*http.Transport, error) {
		hc, _, err := NewHTTPClient(o)
		if err != nil {
			return nil, err
		}
		return hc.Transport.(*http.Transport), nil
	}
	redirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hc = &http.Client{Transport: &lazyTransport{make: build}, CheckRedirect: redirect}
	side = &http.Client{Transport: &lazyTransport{make: build, tuned: sideSettings}, CheckRedirect: redirect}
	return hc, side
}
