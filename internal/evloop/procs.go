//go:build linux

package evloop

import (
	"runtime"
	"sync"
)

// A loop holds its P (the scheduler's right to run Go code) while it
// waits in epoll_wait (wait.go), so the rest of the process, a server in
// the same process included, would get no turn but by preemption every
// 10 ms. While loops run, GOMAXPROCS is raised by their number: the loops
// take theirs, the rest keep as many as they had. The cores are the
// kernel's to share; a waiting loop uses none.
var procs struct {
	sync.Mutex
	base, lent int
}

// lendProcs raises GOMAXPROCS by n until the returned func is called.
func lendProcs(n int) (restore func()) {
	procs.Lock()
	if procs.lent == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.lent += n
	runtime.GOMAXPROCS(procs.base + procs.lent)
	procs.Unlock()
	return func() {
		procs.Lock()
		procs.lent -= n
		runtime.GOMAXPROCS(procs.base + procs.lent)
		procs.Unlock()
	}
}
