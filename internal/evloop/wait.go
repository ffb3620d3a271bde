//go:build linux

package evloop

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// sysEpollPwait2 is epoll_pwait2(2), the same number on every Linux
// architecture (since 5.11): epoll_wait with a time-out in nanoseconds,
// so an open loop's sleepers wake on time rather than to the next
// millisecond.
const sysEpollPwait2 = 441

// The waits without a nanosecond time-out use epoll_pwait with no signal
// mask, which is epoll_wait: arm64 has only the former.

// wait waits up to d for events into l.events and returns how many came.
// It blocks without telling the scheduler (a raw system call), as wrk's
// threads do: told, the scheduler would hand the loop's core to another
// thread whenever a wait outlasts a tick of its monitor, and take it back
// when the wait ends, a futex wake-up and a sleep of the monitor each
// time, which against a server of a few thousand answers a second cost
// more CPU than the requests. The other goroutines (progress, series,
// time-outs, a server in the same process) run on the Ps lent while the
// loops run (procs.go).
func (l *Loop) wait(d time.Duration) int {
	evs := unsafe.Pointer(&l.events[0])
	for {
		var n uintptr
		var errno syscall.Errno
		switch {
		case d <= 0:
			n, _, errno = syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(evs), uintptr(len(l.events)), 0, 0, 0)
		case l.pwait2:
			ts := syscall.NsecToTimespec(int64(d))
			n, _, errno = syscall.RawSyscall6(sysEpollPwait2, uintptr(l.epfd), uintptr(evs), uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
			if errno == syscall.ENOSYS {
				l.pwait2 = false
				continue
			}
		default:
			ms := int((d + time.Millisecond - 1) / time.Millisecond)
			n, _, errno = syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(evs), uintptr(len(l.events)), uintptr(ms), 0, 0)
		}
		if errno == syscall.EINTR {
			// Most often the runtime's preemption signal: a garbage
			// collection waits for this goroutine to stop. Retrying at
			// once would never reach a point where it can (the signal
			// lands inside the system call), and the whole process would
			// stall; yielding lets it stop, and the caller polls again.
			runtime.Gosched()
			return 0
		}
		if errno != 0 {
			return 0 // the instance was closed under us: nothing to report
		}
		return int(n)
	}
}
