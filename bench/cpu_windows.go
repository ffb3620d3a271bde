//go:build windows

package bench

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the process's user+system CPU time so far, from
// GetProcessTimes (Windows has no getrusage); 0 when it fails, as on Unix.
func cpuTime() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	// A Filetime counts 100 ns ticks; Nanoseconds would read it as a date.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
