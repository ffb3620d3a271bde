//go:build unix

package harness

import "syscall"

// fileLimit is the open-file limit in force: Go raises the soft limit to
// the hard one as the process starts, so this is `ulimit -Hn`.
func fileLimit() uint64 {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	return rl.Cur
}
