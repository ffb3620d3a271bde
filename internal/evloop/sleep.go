//go:build linux

package evloop

import (
	"context"
	"time"
)

// sleeper is a task asleep until at, or a call due then (After): a
// task started at at.
type sleeper struct {
	at   time.Time
	t    *task
	then func(ok bool)
	ctx  context.Context // then's
}

// sleepHeap is a binary min-heap of sleepers by wake time. By hand
// rather than container/heap, whose interface would box every push.
type sleepHeap []sleeper

func (h *sleepHeap) push(s sleeper) {
	*h = append(*h, s)
	q := *h
	for i := len(q) - 1; i > 0; {
		up := (i - 1) / 2
		if !q[i].at.Before(q[up].at) {
			break
		}
		q[i], q[up] = q[up], q[i]
		i = up
	}
}

func (h *sleepHeap) pop() sleeper {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = sleeper{}
	q = q[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(q) && q[l].at.Before(q[least].at) {
			least = l
		}
		if r < len(q) && q[r].at.Before(q[least].at) {
			least = r
		}
		if least == i {
			break
		}
		q[i], q[least] = q[least], q[i]
		i = least
	}
	*h = q
	return top
}

// SleepUntil suspends the running task until at, or until the group's
// done channel closes (ctx is looked at before and after). It reports
// whether it slept the whole time; a time already past reports whether
// ctx is still live. It must be called from a task of l.
func (l *Loop) SleepUntil(ctx context.Context, at time.Time) bool {
	for {
		if ctx.Err() != nil || l.isDone() {
			return false
		}
		if !time.Now().Before(at) {
			return true
		}
		t := l.current
		if t == nil {
			return false
		}
		l.sleep.push(sleeper{at: at, t: t})
		if !l.suspend() {
			return false
		}
	}
}

func (l *Loop) isDone() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// After calls then(ok) on a new task of l at at, or sooner when the
// group's done channel closes; ok says, as SleepUntil does, whether the
// whole wait passed with ctx live. Until then nothing of the caller's is
// held but then: a task that would wait a long time (a session's user
// thinking) can instead end, and its stack with it, and go on in then.
// It must be called from a task of l (or before the loop runs).
func (l *Loop) After(ctx context.Context, at time.Time, then func(ok bool)) {
	l.alive++ // a task to come: the loop runs until it has
	l.sleep.push(sleeper{at: at, then: then, ctx: ctx})
}

// wakeSleepers readies the sleepers whose time has come, or all of them
// once the group is done, and starts the calls due.
func (l *Loop) wakeSleepers(now time.Time) {
	done := len(l.sleep) > 0 && l.isDone()
	for len(l.sleep) > 0 && (done || !l.sleep[0].at.After(now)) {
		s := l.sleep.pop()
		if s.then == nil {
			l.runq = append(l.runq, s.t)
			continue
		}
		l.alive-- // counted since After, and again by spawn
		l.spawn(func() { s.then(s.ctx.Err() == nil && !l.isDone()) })
	}
}
