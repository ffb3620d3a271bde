//go:build linux

package evloop

import (
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A loop's wait in epoll lasts until the first thing it knows to be due:
// the next sleeper, the earliest deadline of a task waiting on a Conn, or
// the next sweep. What another goroutine changes meanwhile (a deadline
// moved up, a Conn closed, the group's done closed) kicks the loop awake
// through an eventfd in its epoll set. The loops used to wake every 5 ms
// to look instead. A time-out that short is a kernel timer armed and
// cancelled at each wait; on the 2-core virtual machine we measure on,
// against the Go SDK's server, it cost the generator 9-17% of its CPU
// per request (six interleaved rounds at 1 core, 8 and 64 connections,
// and at 2 cores).

// sweepEvery is how often a loop looks at all its Conns regardless: to
// free the ids of Conns closed while none of its tasks waited on them,
// and as a backstop for a kick that never came.
const sweepEvery = time.Second

// wakeID is the epoll data of a loop's eventfd; Conn ids are never negative.
const wakeID = -1

// noneDue is Loop.due when no waiting task has a deadline.
const noneDue = math.MaxInt64

// waker is a loop's eventfd. Kicks coalesce: one write wakes the loop
// however many goroutines kick before it drains.
type waker struct {
	mu     sync.Mutex // a kick against a close: never write to a reused fd
	fd     int        // -1 once closed
	kicked atomic.Bool
}

// open makes the eventfd and adds it to the epoll instance epfd.
func (w *waker) open(epfd int) error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		w.fd = -1
		return err
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: wakeID}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		syscall.Close(fd)
		w.fd = -1
		return err
	}
	w.fd = fd
	return nil
}

// kick wakes the loop, from any goroutine.
func (w *waker) kick() {
	if !w.kicked.CompareAndSwap(false, true) {
		return // a kick is on its way and not yet drained
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	w.mu.Lock()
	if w.fd >= 0 {
		_, _ = syscall.Write(w.fd, one[:])
	}
	w.mu.Unlock()
}

// drain takes the kicks, on the loop. What the kickers changed before
// kicking is seen by whatever the loop looks at after drain.
func (w *waker) drain() {
	var b [8]byte
	_, _ = syscall.Read(w.fd, b[:])
	w.kicked.Store(false)
}

func (w *waker) close() {
	w.mu.Lock()
	if w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
	w.mu.Unlock()
}

// nudge kicks c's loop when a task waits on c: what just changed (a
// deadline, a close) may be due before the loop's wait would end. The
// task sets parked before it reads the deadline and the closed flag, and
// the changes are made before nudge reads parked, so one side always
// sees the other.
func (c *Conn) nudge() {
	if c.parked.Load() {
		c.l.wake.kick()
	}
}
