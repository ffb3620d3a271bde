package mcp

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// shutConn is a connection that only notes being closed.
type shutConn struct {
	net.Conn
	shut bool
}

func (c *shutConn) Close() error { c.shut = true; return nil }

// TestConnBookDrops: a drop closes a connection no request holds and that
// has carried one; with every such connection held it is owed, and paid
// by the next one given back; a connection handed out after its drop is
// closed before anything is written on it.
func TestConnBookDrops(t *testing.T) {
	book := newConnBook()
	pipe := func() *bookedConn { return book.add(&shutConn{}).(*bookedConn) }
	closed := func(c *bookedConn) bool { return c.Conn.(*shutConn).shut }
	spare := pipe()
	kept := pipe()
	kept.take()
	book.drop() // the spare never carried a request; kept is held
	if book.owed.Load() != 1 || closed(spare) {
		t.Fatalf("owed %d, spare closed %v: want the drop owed and the spare left open", book.owed.Load(), closed(spare))
	}
	kept.give()
	if !closed(kept) || book.owed.Load() != 0 || len(book.conns) != 1 {
		t.Fatalf("given back: closed %v, owed %d, %d booked: want it closed, nothing owed, the spare left", closed(kept), book.owed.Load(), len(book.conns))
	}
	idle := pipe()
	idle.take()
	idle.give()
	book.drop()
	if !closed(idle) || book.owed.Load() != 0 {
		t.Fatalf("idle: closed %v, owed %d: want it dropped at once", closed(idle), book.owed.Load())
	}
	idle.take() // net/http handed it out as it was dropped
	if !closed(idle) || idle.held.Load() > 0 {
		t.Fatal("a dropped connection handed out must stay closed")
	}
}

// TestBookedClientClosesIdle: a client whose connections are booked still
// closes its idle ones when asked (at the end of a run, of a detached
// session), as net/http's own transport does: the server sees its
// connection closed.
func TestBookedClientClosesIdle(t *testing.T) {
	closed := make(chan struct{}, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	ts.Start()
	defer ts.Close()
	hc, err := httpSetup{dials: new(atomic.Int64), book: true}.client()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hc.Transport.(*bookedTransport); !ok {
		t.Fatalf("transport %T, want its connections booked when sessions are abandoned", hc.Transport)
	}
	resp, err := hc.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	hc.CloseIdleConnections()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("the client's idle connection was left open after CloseIdleConnections")
	}
}
