package connbook

import (
	"net"
	"testing"
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
