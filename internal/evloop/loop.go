//go:build linux

// Package evloop runs many small tasks on a few event loops, one per core,
// the way wrk does: each loop owns an epoll instance and the non-blocking
// sockets its tasks dial, and a task that would block on one of them
// hands the loop back (a coroutine switch on the same thread, no
// scheduler, no wake-up of another thread) until epoll says the socket is
// ready. Per request that is one write, one read that finds data, and a
// share of one epoll_wait: no read that finds nothing, no netpoller
// hand-off between cores, no futex.
//
// A task is ordinary Go code. It may block on anything else (a channel, a
// net.Conn of Go's own); it then holds its loop until it is done, which is
// correct but slow, so callers put only work whose waiting goes through
// this package's Conn and Sleep on a loop.
package evloop

import (
	"context"
	"iter"
	"syscall"
	"time"
)

// Available says whether event loops run on this system.
const Available = true

// Group is a set of loops that run tasks until all are done.
type Group struct {
	loops []*Loop
	done  <-chan struct{}
}

// NewGroup makes n loops. Sleeping tasks wake early when done closes.
func NewGroup(n int, done <-chan struct{}) (*Group, error) {
	g := &Group{done: done}
	for range max(n, 1) {
		fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			g.Close()
			return nil, err
		}
		l := &Loop{epfd: fd, done: done, pwait2: true, due: noneDue}
		g.loops = append(g.loops, l)
		if err := l.wake.open(fd); err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// Size is the number of loops.
func (g *Group) Size() int { return len(g.loops) }

// Loop is loop i (modulo the number of loops): the one Go(ctx, i, fn)
// runs fn on, for code below the task to dial and sleep on.
func (g *Group) Loop(i int) *Loop { return g.loops[i%len(g.loops)] }

// Go adds a task to loop i (modulo the number of loops); it starts at the
// next Run. The loop reaches the task's code explicitly (Loop), not
// through ctx.
func (g *Group) Go(ctx context.Context, i int, fn func(ctx context.Context)) {
	g.Loop(i).spawn(func() { fn(ctx) })
}

// Go starts fn as another task of l, to run from l's next round. It must
// be called from a task of l (or before the loop runs).
func (l *Loop) Go(fn func()) { l.spawn(fn) }

func (l *Loop) spawn(fn func()) *task {
	t := &task{}
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		t.yield = yield
		fn()
	})
	l.runq = append(l.runq, t)
	l.alive++
	return t
}

// Run runs every loop, each on a goroutine of its own, until every task
// added so far has returned.
func (g *Group) Run() {
	defer lendProcs(len(g.loops))()
	defer g.kickOnDone()()
	finished := make(chan struct{}, len(g.loops))
	for _, l := range g.loops {
		go func() {
			l.run()
			finished <- struct{}{}
		}()
	}
	for range g.loops {
		<-finished
	}
}

// kickOnDone wakes every loop when done closes (their sleepers then
// wake), until the returned func is called.
func (g *Group) kickOnDone() (stop func()) {
	if g.done == nil {
		return func() {}
	}
	stopped := make(chan struct{})
	go func() {
		select {
		case <-g.done:
			for _, l := range g.loops {
				l.wake.kick()
			}
		case <-stopped:
		}
	}()
	return func() { close(stopped) }
}

// Close closes the loops' Conns and their epoll instances. It must not be
// called while they run.
func (g *Group) Close() {
	for _, l := range g.loops {
		for _, c := range l.conns {
			if c != nil {
				c.Close()
			}
		}
		l.wake.close()
		syscall.Close(l.epfd)
	}
}

// task is a coroutine of a loop.
type task struct {
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
}

// Loop is one event loop: its epoll instance, the Conns registered with
// it, its tasks ready to run and those asleep.
type Loop struct {
	epfd    int
	done    <-chan struct{}
	current *task // the task running now
	runq    []*task
	spare   []*task
	alive   int
	helpers []*helper // idle helpers of deep calls (spare.go)
	conns   []*Conn   // by id; nil where free
	free    []int32
	sleep   sleepHeap
	events  [256]syscall.EpollEvent
	dialing int
	pwait2  bool // epoll_pwait2 (nanosecond time-outs) is there to use
	wake    waker
	// nextScan is when the Conns are next swept (wake.go).
	nextScan time.Time
	// due is the earliest deadline (Unix ns) of a task that began to
	// wait since the last scan, noneDue for none. That task may have
	// woken since: the scan then finds nothing and sets due anew.
	due int64
	// rescan asks for a scan after this poll: the loop was kicked.
	rescan bool
	// polled is the time read after the last poll: a clock for checks
	// that may be a little late, as the loop's wait ends at the deadline.
	polled int64
	polls  int // how many, for tests
}

func (l *Loop) run() {
	defer l.endHelpers()
	for l.busy() {
		// Tasks only run here; what readies one (poll, scan, the
		// sleepers) runs between these rounds.
		l.runReady()
		if !l.busy() {
			break
		}
		now := time.Now()
		l.poll(l.timeout(now))
		now = time.Now()
		l.polled = now.UnixNano()
		l.wakeSleepers(now)
		if l.rescan || l.polled >= l.due || !now.Before(l.nextScan) {
			l.scan(now)
		}
	}
}

// maxPasses bounds the passes of one round over the tasks that the
// round's own tasks readied, so the loop still polls between rounds.
const maxPasses = 4

// runReady runs the ready tasks, and then those they readied, up to
// maxPasses passes: a deep call's helper, the caller it hands back to, a
// parallel block's tasks. Left to the next round, each hand-off cost a
// poll that found nothing: a scenario session's requests took 1.57 polls
// each, a plain run's 0.98 (strace); now 1.00.
func (l *Loop) runReady() {
	for pass := 0; pass < maxPasses && len(l.runq) > 0; pass++ {
		ready := l.runq
		l.runq = l.spare[:0]
		for _, t := range ready {
			l.current = t
			if _, more := t.next(); !more {
				l.alive--
			}
		}
		l.current = nil
		l.spare = ready[:0]
	}
}

// timeout is how long the next poll may wait: not at all with tasks
// ready, else until the next sleeper wakes, a waiting task's deadline
// passes or the next sweep.
func (l *Loop) timeout(now time.Time) time.Duration {
	if len(l.runq) > 0 {
		return 0
	}
	d := l.nextScan.Sub(now)
	if l.due != noneDue {
		d = min(d, time.Duration(l.due-now.UnixNano()))
	}
	if len(l.sleep) > 0 {
		d = min(d, l.sleep[0].at.Sub(now))
	}
	return max(d, 0)
}

// poll waits up to d for events and readies the tasks waiting on them.
func (l *Loop) poll(d time.Duration) {
	l.polls++
	n := l.wait(d)
	for i := range n {
		ev := &l.events[i]
		if ev.Fd == wakeID {
			l.wake.drain()
			l.rescan = true
			continue
		}
		c := l.conns[ev.Fd]
		if c == nil {
			continue
		}
		if ev.Events&(syscall.EPOLLERR|syscall.EPOLLHUP|syscall.EPOLLRDHUP) != 0 {
			c.ended = true
		}
		if ev.Events&syscall.EPOLLIN != 0 || c.ended {
			c.readable = true
		}
		if ev.Events&(syscall.EPOLLOUT|syscall.EPOLLERR|syscall.EPOLLHUP) != 0 {
			c.writable = true
		}
		if t := c.waiter; t != nil && (c.waitWrite && c.writable || !c.waitWrite && c.readable) {
			c.waiter = nil
			l.runq = append(l.runq, t)
		} else if t == nil && c.readable && c.onReadable != nil {
			l.notify(c)
		}
	}
}

// scan readies the tasks whose Conn's deadline has passed or whose Conn
// was closed (their Read or Write then says so), frees the ids of closed
// Conns, and finds the earliest deadline of the tasks still waiting.
func (l *Loop) scan(now time.Time) {
	ns := now.UnixNano()
	l.rescan, l.due, l.nextScan = false, noneDue, now.Add(sweepEvery)
	for id, c := range l.conns {
		if c == nil {
			continue
		}
		if c.closed.Load() && c.waiter == nil {
			l.conns[id] = nil
			l.free = append(l.free, int32(id))
			continue
		}
		t := c.waiter
		if t == nil {
			continue
		}
		if c.closed.Load() || c.passed(c.waitWrite, ns) {
			c.waiter = nil
			l.runq = append(l.runq, t)
		} else if dl := c.deadline(c.waitWrite); dl != 0 {
			l.due = min(l.due, dl)
		}
	}
}

// suspend hands the loop back until the running task is readied again.
// It reports false when the loop is being torn down.
func (l *Loop) suspend() bool {
	t := l.current
	if t == nil || t.yield == nil {
		return false
	}
	return t.yield(struct{}{})
}
