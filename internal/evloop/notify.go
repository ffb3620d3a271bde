//go:build linux

package evloop

// A connection that is mostly idle and read only now and then (a standing
// stream of events) need not keep a task, and the stack it would hold,
// waiting on it: OnReadable has the loop call a function when data comes,
// on a helper task lent for the call (spare.go), as Deep lends one to a
// deep call. Between calls the connection costs its registration alone.

// OnReadable has fn called on a helper task of c's loop whenever c turns
// readable while no task waits on it, and again after each call for as
// long as c stays readable and open. fn reads what has come; it must read
// until the socket is drained (a short read), or close c, or call
// OnReadable(nil), since epoll reports only what comes anew. It must be
// called from a task of c's loop (or before the loop runs).
func (c *Conn) OnReadable(fn func()) {
	c.onReadable = fn
	if fn != nil && c.readable && c.waiter == nil {
		c.l.notify(c)
	}
}

// Readable says whether a read of c may find data without waiting: epoll
// reported data, or the peer's end, that no read has yet found gone. (A
// read that filled its buffer leaves it set though nothing may be left.)
func (c *Conn) Readable() bool { return c.readable }

// notify calls c's OnReadable function on a helper task, unless one runs.
func (l *Loop) notify(c *Conn) {
	if c.onReadable == nil || c.calling || c.closed.Load() {
		return
	}
	c.calling = true
	l.helper(func() { l.callReadable(c) }, nil)
}

// callReadable calls c's function while c is readable, letting the
// loop's other tasks run between calls.
func (l *Loop) callReadable(c *Conn) {
	for {
		if fn := c.onReadable; fn != nil && !c.closed.Load() {
			fn()
		}
		if c.onReadable == nil || !c.readable || c.closed.Load() || c.waiter != nil {
			break
		}
		l.runq = append(l.runq, l.current)
		if !l.suspend() {
			break
		}
	}
	c.calling = false
}
