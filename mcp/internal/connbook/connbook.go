// Package connbook books the connections a net/http transport dials, so
// that one no request holds can be dropped: net/http's pool shows none.
// mcp drops one for each session abandoned on purpose, as a client that
// goes away does.
package connbook

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// The connections are booked as they are dialled, and every request marks
// the one it holds. A connection no request holds is idle and may be
// closed; when none is, the next one given back is.

// connBook is every live connection a net/http client dialled.
type connBook struct {
	mu    sync.Mutex
	conns map[*bookedConn]struct{}
	owed  atomic.Int64 // drops asked for while every connection was held
}

func newConnBook() *connBook { return &connBook{conns: map[*bookedConn]struct{}{}} }

// bookedConn is a dialled connection and how many requests hold it (more
// than one on HTTP/2); dropped ones leave the book. One no request has
// held yet may still be in its TLS handshake, or a spare: it is not the
// kept-alive connection of any session, and is not dropped.
type bookedConn struct {
	net.Conn
	book *connBook
	held atomic.Int32 // -1 once dropped
	used atomic.Bool
}

func (b *connBook) add(c net.Conn) net.Conn {
	bc := &bookedConn{Conn: c, book: b}
	b.mu.Lock()
	b.conns[bc] = struct{}{}
	b.mu.Unlock()
	return bc
}

func (c *bookedConn) Close() error {
	c.book.mu.Lock()
	delete(c.book.conns, c)
	c.book.mu.Unlock()
	return c.Conn.Close()
}

// drop closes one idle connection, or owes the next one given back.
func (b *connBook) drop() {
	b.mu.Lock()
	for c := range b.conns {
		if c.used.Load() && c.held.CompareAndSwap(0, -1) {
			b.mu.Unlock()
			c.Close()
			return
		}
	}
	b.mu.Unlock()
	b.owed.Add(1)
}

// take marks c held by a request. net/http may hand out a connection
// just dropped: closing it here, before the request is written, makes
// net/http send the request again on another (nothing was written).
func (c *bookedConn) take() {
	c.used.Store(true)
	if c.held.Add(1) <= 0 {
		c.Close()
	}
}

// give marks c no longer held by a request, and drops it if a drop is
// owed and nothing else holds it.
func (c *bookedConn) give() {
	if c.held.Add(-1) != 0 || c.book.owed.Load() <= 0 {
		return
	}
	if c.book.owed.Add(-1) < 0 {
		c.book.owed.Add(1) // another paid it first
		return
	}
	if !c.held.CompareAndSwap(0, -1) {
		c.book.owed.Add(1) // taken again meanwhile: the next one pays
		return
	}
	c.Close()
}

// booked finds the connection a request got: the dialled one itself, or
// under the TLS that net/http put over it.
func (b *connBook) booked(c net.Conn) *bookedConn {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	bc, _ := c.(*bookedConn)
	return bc
}

// Transport marks, around each request, the connection it holds: from
// net/http's handing it over until its answer's body is read to the end
// or closed (or the request fails).
type Transport struct {
	base *http.Transport
	book *connBook
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	h := &holding{}
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		h.let() // a retry on another connection lets the first go
		if c := t.book.booked(i.Conn); c != nil {
			c.take()
			h.c.Store(c)
		}
	}}
	resp, err := t.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil || resp.Body == nil {
		h.let()
		return resp, err
	}
	resp.Body = &bookedBody{ReadCloser: resp.Body, h: h}
	return resp, nil
}

// CloseIdleConnections is net/http's: http.Client.CloseIdleConnections
// reaches the transport only through it.
func (t *Transport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// holding is the connection one request holds, let go once.
type holding struct{ c atomic.Pointer[bookedConn] }

func (h *holding) let() {
	if c := h.c.Swap(nil); c != nil {
		c.give()
	}
}

// bookedBody lets its request's connection go at the end of the body or
// when it is closed, whichever comes first.
type bookedBody struct {
	io.ReadCloser
	h *holding
}

func (b *bookedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.h.let()
	}
	return n, err
}

func (b *bookedBody) Close() error {
	err := b.ReadCloser.Close()
	b.h.let()
	return err
}

// New makes tr book its connections, returning the transport to use.
func New(tr *http.Transport) *Transport {
	book := newConnBook()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return book.add(c), nil
	}
	return &Transport{base: tr, book: book}
}

// Drop closes one connection no request holds, or the next one given back
// when every one is held.
func (t *Transport) Drop() { t.book.drop() }

// Over is a transport that books base's connections in t's book; base
// dials through t's (a clone of t's transport).
func (t *Transport) Over(base *http.Transport) *Transport {
	return &Transport{base: base, book: t.book}
}

// Base is the net/http transport t books the connections of.
func (t *Transport) Base() *http.Transport { return t.base }
