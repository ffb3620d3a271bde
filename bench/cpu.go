package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// runQueueWait is the time this process's threads have spent ready to run
// but waiting for a CPU (Linux schedstat); 0 where that is not available.
func runQueueWait() time.Duration {
	tasks, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil {
		return 0
	}
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
			total += ns
		}
	}
	return time.Duration(total)
}
