//go:build linux

package evloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// listen starts a loopback server that runs serve on each connection
// until the test ends.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

func echo(c net.Conn) { _, _ = io.Copy(c, c) }

// goDialed runs fn as a task of g's first loop on a new connection to
// addr, closed after it; the dial's error, else fn's, lands in *err.
func goDialed(g *Group, addr string, err *error, fn func(c net.Conn) error) {
	g.Go(context.Background(), 0, func(ctx context.Context) {
		c, derr := g.Loop(0).Dial(addr, time.Time{})
		if derr != nil {
			*err = derr
			return
		}
		defer c.Close()
		*err = fn(c)
	})
}

func newGroup(t *testing.T, n int, done <-chan struct{}) *Group {
	t.Helper()
	g, err := NewGroup(n, done)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// Every task's round trips come back whole and in order, over two loops.
func TestTasksExchangeOverLoops(t *testing.T) {
	addr := listen(t, echo)
	g := newGroup(t, 2, nil)
	const tasks, rounds = 40, 200
	var exchanged atomic.Int64
	errs := make(chan error, tasks)
	for i := range tasks {
		g.Go(context.Background(), i, func(ctx context.Context) {
			l := g.Loop(i)
			c, err := l.Dial(addr, time.Now().Add(5*time.Second))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			buf := make([]byte, 64)
			for r := range rounds {
				msg := []byte(fmt.Sprintf("task %d round %d", i, r))
				if _, err := c.Write(msg); err != nil {
					errs <- err
					return
				}
				if _, err := io.ReadFull(c, buf[:len(msg)]); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(buf[:len(msg)], msg) {
					errs <- fmt.Errorf("task %d: sent %q, got %q", i, msg, buf[:len(msg)])
					return
				}
				exchanged.Add(1)
			}
		})
	}
	g.Run()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := exchanged.Load(); got != tasks*rounds {
		t.Errorf("%d round trips, want %d", got, tasks*rounds)
	}
}

// A write larger than the socket buffers waits for room and goes out
// whole: the server counts what it read and says how much.
func TestLargeWriteWaitsForRoom(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	addr := listen(t, func(c net.Conn) {
		n, _ := io.CopyN(io.Discard, c, int64(len(big)))
		fmt.Fprintf(c, "%d", n)
	})
	g := newGroup(t, 1, nil)
	var err error
	var reply []byte
	goDialed(g, addr, &err, func(c net.Conn) error {
		if _, err := c.Write(big); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		var err error
		reply, err = io.ReadAll(c)
		return err
	})
	g.Run()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(len(big)); string(reply) != want {
		t.Fatalf("the server read %s bytes, want %s", reply, want)
	}
}

// The end of the peer's stream reads as io.EOF.
func TestPeerCloseReadsAsEOF(t *testing.T) {
	addr := listen(t, func(c net.Conn) { _, _ = c.Write([]byte("bye")) })
	g := newGroup(t, 1, nil)
	var got []byte
	var err error
	goDialed(g, addr, &err, func(c net.Conn) error {
		var err error
		got, err = io.ReadAll(c)
		return err
	})
	g.Run()
	if err != nil || string(got) != "bye" {
		t.Fatalf("read %q, %v; want \"bye\" then EOF", got, err)
	}
}

// A refused connect is a dial error naming the refusal.
func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g := newGroup(t, 1, nil)
	g.Go(context.Background(), 0, func(ctx context.Context) {
		_, err = g.Loop(0).Dial(addr, time.Now().Add(time.Second))
	})
	g.Run()
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial error %v, want a refused dial", err)
	}
}

// Sleepers wake in the order of their times, each no earlier than asked;
// closing done wakes the rest at once.
func TestSleepersWakeInOrderAndOnDone(t *testing.T) {
	done := make(chan struct{})
	g := newGroup(t, 1, done)
	start := time.Now()
	var mu sync.Mutex
	var order []int
	for i, ms := range []int{30, 10, 20, 5000} {
		g.Go(context.Background(), 0, func(ctx context.Context) {
			at := start.Add(time.Duration(ms) * time.Millisecond)
			slept := g.Loop(0).SleepUntil(ctx, at)
			if slept && time.Now().Before(at) {
				t.Errorf("sleeper %d woke early", i)
			}
			mu.Lock()
			order = append(order, ms)
			mu.Unlock()
			if ms == 30 {
				close(done) // the 5 s sleeper must not hold the run
			}
		})
	}
	g.Run()
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the run took %v: done did not wake the last sleeper", took)
	}
	if fmt.Sprint(order) != "[10 20 30 5000]" {
		t.Errorf("woke in the order %v", order)
	}
}

// A Conn used outside its loop says so rather than blocking.
func TestConnOffLoop(t *testing.T) {
	addr := listen(t, echo)
	g := newGroup(t, 1, nil)
	var c net.Conn
	g.Go(context.Background(), 0, func(ctx context.Context) {
		c, _ = g.Loop(0).Dial(addr, time.Time{})
	})
	g.Run()
	if c == nil {
		t.Fatal("no connection")
	}
	defer c.Close()
	if _, err := c.Read(make([]byte, 4)); !errors.Is(err, ErrOffLoop) {
		t.Fatalf("read off the loop: %v, want ErrOffLoop", err)
	}
}

// A garbage collection (which must stop every goroutine, the loops' too)
// completes while a loop waits on a quiet socket, long before the wait
// ends. A loop that retried its wait at once after the runtime's
// preemption signal interrupted it could never be stopped, and the whole
// process stalled until the loop ran out of work.
func TestCollectionWhileALoopWaits(t *testing.T) {
	addr := listen(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	g := newGroup(t, 1, nil)
	waiting, ended := make(chan net.Conn, 1), make(chan struct{})
	var err error
	goDialed(g, addr, &err, func(c net.Conn) error {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		waiting <- c
		_, _ = c.Read(make([]byte, 16))
		return nil
	})
	go func() { g.Run(); close(ended) }()
	var c net.Conn
	select {
	case c = <-waiting:
	case <-ended:
		t.Fatalf("the dial failed: %v", err)
	}
	collected := make(chan struct{})
	go func() {
		for range 3 {
			runtime.GC()
		}
		close(collected)
	}()
	select {
	case <-collected:
	case <-ended:
		t.Fatal("the collections finished only when the loop had nothing left to wait for")
	}
	_ = c.SetReadDeadline(time.Now()) // end the wait now
	<-ended
}
