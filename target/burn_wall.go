//go:build !(linux || darwin || freebsd)

package target

import "time"

// threadCPU cannot read a thread's CPU clock here, so burnCPU falls back
// to wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
