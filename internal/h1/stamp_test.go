//go:build linux

package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// TestStampedReadOfGosConn: a connection of Go's own is read with
// recvmsg and its stamp, and still behaves as net.Conn's Read: the
// deadline is a time-out, the peer's close an EOF.
func TestStampedReadOfGosConn(t *testing.T) {
	dial := stampedDialer(t)
	nc, peer := dial()
	c := NewConn(nc)
	if c.sr == nil {
		t.Fatal("no stamped reader on a TCP connection")
	}
	buf := make([]byte, 16)
	before := time.Now().UnixNano()
	_, _ = peer.Write([]byte("answer"))
	n, err := c.Read(buf)
	after := time.Now().UnixNano()
	if n != 6 || err != nil || string(buf[:n]) != "answer" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if st := c.Stamp(); st < before || st > after {
		t.Errorf("stamp %d ns after the send, read %d ns after it", st-before, after-before)
	}
	if c.Stamp() != 0 {
		t.Error("a stamp taken twice")
	}
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
	var ne net.Error
	if _, err := c.Read(buf); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("past the deadline: %v, want a time-out", err)
	}
	_ = nc.SetReadDeadline(time.Time{})
	peer.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Errorf("after the peer's close: %v, want EOF", err)
	}
}

// TestRewiredConnReadsItsNewSocket: a connection an event loop adopts
// reads from the adopted socket and its stamps, not through the stamped
// reader of the socket it left (closed by then).
func TestRewiredConnReadsItsNewSocket(t *testing.T) {
	dial := stampedDialer(t)
	first, _ := dial()
	second, peer := dial()
	c := NewConn(first)
	first.Close()
	c.rewire(second)
	_, _ = peer.Write([]byte("moved"))
	buf := make([]byte, 16)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "moved" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if c.Stamp() == 0 {
		t.Error("no stamp from the new socket")
	}
}

// stampedDialer holds the kernel's stamping on for the test and returns
// a dialler of loopback TCP pairs (the client's side, the server's),
// closed when the test ends.
func stampedDialer(t *testing.T) func() (net.Conn, net.Conn) {
	t.Helper()
	release, ok := evloop.HoldStamps(5 * time.Second)
	t.Cleanup(release)
	if !ok {
		t.Fatal("the kernel gave no receive stamp within 5 s")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return func() (net.Conn, net.Conn) {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		peer, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close(); peer.Close() })
		return nc, peer
	}
}

// The pools share one hold on the kernel's stamping: a second pool makes
// none of its own, and the hold ends with the last pool.
func TestPoolsShareOneStampHold(t *testing.T) {
	held := func() (int, func()) {
		stampHold.mu.Lock()
		defer stampHold.mu.Unlock()
		return stampHold.pools, stampHold.release
	}
	n0, _ := held() // pools other tests left open
	a := NewPool(Config{Addr: "127.0.0.1:1", Size: 1, Dials: new(atomic.Int64)})
	n1, hold := held()
	b := NewPool(Config{Addr: "127.0.0.1:1", Size: 1, Dials: new(atomic.Int64)})
	if n, again := held(); n != n0+2 || hold == nil || reflect.ValueOf(again).Pointer() != reflect.ValueOf(hold).Pointer() || n1 != n0+1 {
		t.Fatalf("two pools over %d: %d then %d shares, held %v", n0, n1, n, hold != nil)
	}
	a.Close()
	a.Close() // a second close gives nothing back twice
	if n, r := held(); n != n0+1 || r == nil {
		t.Fatalf("one pool closed: %d shares over %d, held %v", n, n0, r != nil)
	}
	b.Close()
	if n, r := held(); n != n0 || (n0 == 0) != (r == nil) {
		t.Fatalf("both closed: %d shares over %d, held %v", n, n0, r != nil)
	}
}

// The rest of a stream, read on a loop by the next request to take its
// connection, is read without the kernel's stamp (it ends no latency),
// and that request's own answer still has its stamp.
func TestStreamRestTakesNoStamp(t *testing.T) {
	_ = stampedDialer(t) // holds the kernel's stamping on
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	pools := NewLoopPools(poolFor(sseServer(t, 5*time.Millisecond), 1))
	defer pools.Close()
	p := pools.For(g.Loop(0))
	g.Go(context.Background(), 0, func(context.Context) {
		var cl Caller
		for i := range 2 {
			now := time.Now()
			req := Request{Head: postHead, Body: []byte(`{}`), Deadline: now.Add(5 * time.Second)}
			c, _, err := p.Get(now, req.Deadline)
			if err != nil {
				t.Error(err)
				return
			}
			if st := c.Stamp(); i > 0 && st != 0 {
				t.Error("the rest of the last stream was read with a stamp")
			}
			var a Answer
			if err := cl.Do(p, c, &req, &a); err != nil || a.Stream == nil {
				t.Errorf("request %d: %v, stream %v", i, err, a.Stream != nil)
				return
			}
			if _, err := bufio.NewReader(a.Stream).ReadString('\n'); err != nil {
				t.Error(err)
				return
			}
			if c.Stamp() == 0 {
				t.Errorf("request %d: its answer has no stamp", i)
			}
			Finish(p, c, &a, StreamLeftOpen, false, now)
		}
	})
	g.Run()
	if d := pools.base.cfg.Dials.Load(); d != 1 {
		t.Errorf("%d dials for two streams on one connection", d)
	}
}
