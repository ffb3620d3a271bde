//go:build linux

package evloop

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestOnReadable: a connection read only when data comes is read on a
// helper task lent for each arrival, keeps no task waiting in between
// (the loop's only task is the one sleeping), gets every message, and
// is called no more once closed.
func TestOnReadable(t *testing.T) {
	sent, stop := make(chan string, 3), make(chan struct{})
	defer close(stop)
	addr := listen(t, func(c net.Conn) {
		for {
			select {
			case m := <-sent:
				if _, err := c.Write([]byte(m)); err != nil {
					return
				}
			case <-stop:
				return
			}
		}
	})
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Loop(0)
	var got strings.Builder
	calls, waiting := 0, 0
	g.Go(context.Background(), 0, func(ctx context.Context) {
		nc, err := l.Dial(addr, time.Time{})
		if err != nil {
			t.Error(err)
			return
		}
		c := nc.(*Conn)
		buf := make([]byte, 64)
		c.OnReadable(func() {
			calls++
			for c.Readable() {
				n, err := c.Read(buf)
				if err != nil {
					c.Close()
					return
				}
				got.Write(buf[:n])
			}
		})
		deadline := time.Now().Add(5 * time.Second)
		for _, m := range []string{"one.", "two.", "three."} {
			sent <- m // the next only once this one is read: a call each
			for !strings.HasSuffix(got.String(), m) && time.Now().Before(deadline) {
				l.SleepUntil(ctx, time.Now().Add(2*time.Millisecond))
			}
			// The sleeping task is the loop's only one: no task waits
			// on the connection between arrivals.
			waiting = max(waiting, l.alive-len(l.helpers))
		}
		c.Close()
		l.SleepUntil(ctx, time.Now().Add(10*time.Millisecond))
	})
	g.Run()
	if got.String() != "one.two.three." || calls != 3 || waiting != 1 {
		t.Fatalf("read %q in %d calls, %d tasks alive between them; want every message, one call each, 1 task", got.String(), calls, waiting)
	}
}
