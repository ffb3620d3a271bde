//go:build linux

package evloop

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// promptly bounds a wake-up that a kick or a tracked deadline makes: far
// above what one takes (well under a millisecond), far below the sweep,
// which is when a loop that missed it would notice.
const promptly = sweepEvery / 4

// A change made from another goroutine to a Conn a task waits on (a
// deadline in the past, as a cancellation sets; a close) wakes the task
// at once, not at the loop's next sweep.
func TestOutsideChangesWakeAWaitingTaskAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(net.Conn)
		want   error
	}{
		{"deadline", func(c net.Conn) { _ = c.SetDeadline(time.Unix(1, 0)) }, os.ErrDeadlineExceeded},
		{"close", func(c net.Conn) { _ = c.Close() }, net.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := listen(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
			g := newGroup(t, 1, nil)
			conns := make(chan net.Conn, 1)
			var err, readErr error
			var woke time.Time
			goDialed(g, addr, &err, func(c net.Conn) error {
				conns <- c
				_, readErr = c.Read(make([]byte, 16))
				woke = time.Now()
				return nil
			})
			changed := make(chan time.Time, 1)
			go func() {
				if c := <-conns; c != nil {
					time.Sleep(30 * time.Millisecond) // the task waits by now
					changed <- time.Now()
					tc.change(c)
				}
			}()
			g.Run()
			close(conns) // a failed dial sent none
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(readErr, tc.want) {
				t.Fatalf("read error %v, want %v", readErr, tc.want)
			}
			if took := woke.Sub(<-changed); took > promptly {
				t.Errorf("the task woke %v after the change, want at once", took)
			}
		})
	}
}

// A task's own read deadline ends the loop's wait when it passes.
func TestReadDeadlineEndsTheWaitOnTime(t *testing.T) {
	addr := listen(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	g := newGroup(t, 1, nil)
	var err error
	var took time.Duration
	goDialed(g, addr, &err, func(c net.Conn) error {
		start := time.Now()
		_ = c.SetReadDeadline(start.Add(50 * time.Millisecond))
		_, err := c.Read(make([]byte, 16))
		took = time.Since(start)
		return err
	})
	g.Run()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error %v, want a time-out", err)
	}
	if took < 50*time.Millisecond || took > 50*time.Millisecond+promptly {
		t.Errorf("the time-out came after %v, want 50ms", took)
	}
}

// Closing the group's done channel kicks every loop, so their sleepers
// wake at once. (In a run the runtime's preemption of a waiting loop,
// every 10 ms, would wake it too: the kick is tested on its own.)
func TestDoneKicksEveryLoop(t *testing.T) {
	done := make(chan struct{})
	g := newGroup(t, 2, done)
	stop := g.kickOnDone()
	defer stop()
	close(done)
	events := make([]syscall.EpollEvent, 4)
	for i, l := range g.loops {
		n, err := syscall.EpollWait(l.epfd, events, int(promptly/time.Millisecond))
		if err != nil || n != 1 || events[0].Fd != wakeID {
			t.Errorf("loop %d: epoll gave %d events (%v), want its eventfd's", i, n, err)
		}
	}
}

// A scan readies the tasks whose deadline passed or whose Conn closed,
// frees closed Conns nobody waits on, and the loop's next wait lasts
// until the earliest deadline of the tasks still waiting.
func TestScanSetsTheWaitToTheEarliestDeadline(t *testing.T) {
	now := time.Now()
	ns := now.UnixNano()
	l := &Loop{due: noneDue}
	conn := func(waiting, write bool, dl time.Duration, closed bool) *task {
		c := &Conn{l: l, id: int32(len(l.conns)), waitWrite: write}
		if dl != 0 {
			c.rdl.Store(ns + int64(dl))
			c.wdl.Store(ns + int64(dl))
		}
		c.closed.Store(closed)
		var t *task
		if waiting {
			t = &task{}
			c.waiter = t
		}
		l.conns = append(l.conns, c)
		return t
	}
	conn(true, false, 40*time.Millisecond, false)
	conn(true, true, 20*time.Millisecond, false)
	conn(false, false, time.Millisecond, false) // nobody waits: no bearing
	late := conn(true, false, -time.Millisecond, false)
	conn(false, false, 0, true) // closed, nobody waits: freed
	shut := conn(true, false, 0, true)
	l.rescan = true
	l.scan(now)
	if len(l.runq) != 2 || l.runq[0] != late || l.runq[1] != shut {
		t.Fatalf("readied %v, want the passed deadline's task and the closed Conn's", l.runq)
	}
	if len(l.free) != 1 || l.free[0] != 4 || l.conns[4] != nil {
		t.Errorf("freed ids %v, want [4]", l.free)
	}
	if l.rescan || l.due != ns+int64(20*time.Millisecond) || !l.nextScan.Equal(now.Add(sweepEvery)) {
		t.Errorf("after the scan: rescan %v, due in %v, next sweep in %v", l.rescan, time.Duration(l.due-ns), l.nextScan.Sub(now))
	}
	if d := l.timeout(now); d != 0 {
		t.Errorf("with tasks ready the wait is %v, want none", d)
	}
	l.runq = nil
	if d := l.timeout(now); d != 20*time.Millisecond {
		t.Errorf("the wait is %v, want the 20ms to the earliest deadline", d)
	}
	l.due = noneDue
	if d := l.timeout(now); d != sweepEvery {
		t.Errorf("with nothing due the wait is %v, want the sweep's %v", d, sweepEvery)
	}
}

// Kicks before a drain make one wake-up; after the drain the next kick
// wakes the loop again.
func TestKicksCoalesceUntilDrained(t *testing.T) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(epfd)
	var w waker
	if err := w.open(epfd); err != nil {
		t.Fatal(err)
	}
	defer w.close()
	events := make([]syscall.EpollEvent, 4)
	for round := range 2 {
		for range 3 {
			w.kick()
		}
		n, err := syscall.EpollWait(epfd, events, 1000)
		if err != nil || n != 1 || events[0].Fd != wakeID {
			t.Fatalf("round %d: epoll gave %d events (%v), want the eventfd's", round, n, err)
		}
		var b [8]byte
		if _, err := syscall.Read(w.fd, b[:]); err != nil || binary.NativeEndian.Uint64(b[:]) != 1 {
			t.Fatalf("round %d: the eventfd held %d (%v), want one write", round, binary.NativeEndian.Uint64(b[:]), err)
		}
		w.kicked.Store(false) // what drain does after its read
	}
	w.close()
	w.kick() // after close: must not write to a reused fd
}
