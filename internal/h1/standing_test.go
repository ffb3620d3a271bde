//go:build linux

package h1

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// TestStandingIdleHoldsNoBuffer: a standing stream on an event loop reads
// its head and then holds its read buffer only while something is left
// to read: with the event that came with the head unread it keeps it,
// once the event is read it gives it back. An answer that is no stream
// is read whole and leaves no stream to read.
func TestStandingIdleHoldsNoBuffer(t *testing.T) {
	addr := sseServer(t, -1)
	json := fixedServer(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	g.Go(context.Background(), 0, func(context.Context) {
		stand := func(addr string) *Standing {
			nc, err := l.Dial(addr, time.Time{})
			if err != nil {
				t.Error(err)
				return nil
			}
			req := Request{Head: []byte("GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nContent-Length: "), Deadline: time.Now().Add(5 * time.Second)}
			st, err := Stand(nc, &req, 1<<20)
			if err != nil {
				t.Error(err)
			}
			return st
		}
		st := stand(addr)
		if st == nil {
			return
		}
		defer st.Stop()
		if st.Body() == nil || st.Status != 200 || st.Idle() || st.c.br == nil {
			t.Errorf("with its event unread: body %v, status %d, idle %v, buffer %v", st.Body() != nil, st.Status, st.Idle(), st.c.br != nil)
			return
		}
		event := make([]byte, len("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"))
		if _, err := io.ReadFull(st.Body(), event); err != nil {
			t.Error(err)
			return
		}
		if !st.Idle() || st.c.br != nil {
			t.Errorf("with its event read: idle %v, buffer %v", st.Idle(), st.c.br != nil)
		}
		if !st.OnReadable(func() {}) {
			t.Error("a loop's connection takes no OnReadable")
		}
		if other := stand(json); other == nil || other.Body() != nil || other.Status != 200 {
			t.Errorf("a JSON answer: body %v, status %d", other.Body() != nil, other.Status)
		}
	})
	g.Run()
}

// TestDropKeepsTheReadBufferFromOthers: Stop gives a standing stream's
// read buffer back to be lent again; Drop, for a stream a suspended task
// may still be reading, does not, so no other connection gets a buffer
// that reader fills and consumes when it wakes (engine random test, seed
// 2 on the loops: a session's DELETE answer lost its first bytes to the
// GET stream's reader, or bufio panicked).
func TestDropKeepsTheReadBufferFromOthers(t *testing.T) {
	for _, drop := range []bool{false, true} {
		a, b := net.Pipe()
		defer b.Close()
		st := &Standing{c: NewConn(a)}
		held := st.c.reader() // what a suspended read would hold
		if drop {
			st.Drop()
		} else {
			st.Stop()
		}
		next := lendReader()
		if lentAgain := next == held; lentAgain == drop {
			t.Errorf("drop %v: the stream's read buffer lent again: %v", drop, lentAgain)
		}
		giveBack(next)
	}
}
