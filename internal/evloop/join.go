//go:build linux

package evloop

// All runs each of fns as a task of l and suspends the running task until
// every one has returned: the parallel steps of a session, each waiting on
// its own request, without a goroutine of their own. Called off a task
// (or while the loop is being torn down) it runs them one after another,
// which is correct if slower. It must be called from a task of l.
func (l *Loop) All(fns ...func()) {
	parent := l.current
	if parent == nil || parent.yield == nil {
		for _, fn := range fns {
			fn()
		}
		return
	}
	left := len(fns)
	for _, fn := range fns {
		l.spawn(func() {
			fn()
			// The last one to finish readies the parent.
			if left--; left == 0 {
				l.runq = append(l.runq, parent)
			}
		})
	}
	for left > 0 {
		if !l.suspend() {
			return
		}
	}
}
