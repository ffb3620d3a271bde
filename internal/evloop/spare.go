//go:build linux

package evloop

// A task's stack is as deep as the deepest call it made, and a task that
// waits keeps it: a session's user that made a request (the MCP client,
// the engine, the JSON scanner below it) and then thinks for a minute
// held a stack of 8 to 16 KiB through the think, most of an idle
// session's memory. Deep lends such calls a helper task with a stack of
// its own, as the engine lends a read buffer per request: the user's own
// task stays shallow, and the deep stacks are as many as the calls in
// flight. Helpers wait for the next call between calls, up to
// maxSpareHelpers of them a loop; the rest end.

// maxSpareHelpers bounds the idle helpers a loop keeps for its next deep
// calls.
const maxSpareHelpers = 16

// helper is a task that runs deep calls, and a parallel block's branches
// (All), for the loop's other tasks.
type helper struct {
	t      *task
	fn     func()
	parent *task // the task waiting for fn
	// left, for a branch of All, counts the branches still running: the
	// last to end readies the parent.
	left *int
	// ended counts the calls h has finished: a caller waits for it to
	// pass the count its call began at, since h may take the next call
	// before the caller runs again.
	ended uint64
}

// Deep runs fn on a helper task of l and suspends the running task until
// fn has returned. Called off a task of l it runs fn itself.
func (l *Loop) Deep(fn func()) {
	parent := l.current
	if parent == nil || parent.yield == nil {
		fn()
		return
	}
	h := l.helper(fn, parent)
	for began := h.ended; h.ended == began; {
		if !l.suspend() {
			return
		}
	}
}

// helper readies a helper to run fn for parent: a spare one, else a new
// task.
func (l *Loop) helper(fn func(), parent *task) *helper {
	var h *helper
	if n := len(l.helpers); n > 0 {
		h = l.helpers[n-1]
		l.helpers[n-1] = nil
		l.helpers = l.helpers[:n-1]
		l.runq = append(l.runq, h.t)
	} else {
		h = &helper{}
		h.t = l.spawn(func() { l.help(h) })
	}
	h.fn, h.parent = fn, parent
	return h
}

// help runs the calls given to h until the loop has spares enough or
// is torn down.
func (l *Loop) help(h *helper) {
	for {
		fn := h.fn
		h.fn = nil
		fn()
		h.ended++
		switch {
		case h.parent == nil: // a call of notify's: no one waits for it
		case h.left == nil:
			l.runq = append(l.runq, h.parent)
		default:
			if *h.left--; *h.left == 0 {
				l.runq = append(l.runq, h.parent) // the last branch of All
			}
		}
		h.parent, h.left = nil, nil
		if len(l.helpers) >= maxSpareHelpers {
			return
		}
		l.helpers = append(l.helpers, h)
		if !l.suspend() {
			return
		}
	}
}

// busy says the loop has tasks other than idle helpers.
func (l *Loop) busy() bool { return l.alive > len(l.helpers) }

// endHelpers ends the idle helpers once the loop's other tasks are done.
func (l *Loop) endHelpers() {
	for _, h := range l.helpers {
		h.t.stop() // its suspend reports false: it returns
		l.alive--
	}
	l.helpers = nil
}
