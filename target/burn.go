package target

import (
	"runtime"
	"time"
)

// burnSink keeps the busy loop's arithmetic from being optimized away.
var burnSink uint64

// burnCPU spins until the calling thread has spent d of CPU time, for
// Config.Burn: a known CPU cost per call, not a wait, so that a change in
// the server's CPU per request can be made on purpose and measured. The
// goroutine is locked to its thread while it burns, so the thread's clock
// is the goroutine's. Where the thread's CPU clock cannot be read (see
// threadCPU), wall time stands in for it.
func burnCPU(d time.Duration) {
	if d <= 0 {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := threadCPU
	if _, ok := clock(); !ok {
		wallStart := time.Now()
		clock = func() (time.Duration, bool) { return time.Since(wallStart), true }
	}
	start, _ := clock()
	x := burnSink | 1
	for {
		// About a microsecond of work between reads of the clock, which
		// is a system call.
		for range 512 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		if now, _ := clock(); now-start >= d {
			break
		}
	}
	burnSink = x
}
