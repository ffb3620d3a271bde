//go:build linux

package ab

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain turns this test binary into a tiny HTTP server when
// AB_TEST_SERVER_PORT is set, so that the tests can start a real process
// the way a user's --a-cmd would: it answers /mcp after spending
// AB_TEST_BURN_US microseconds of CPU time, and /health.
func TestMain(m *testing.M) {
	if port := os.Getenv("AB_TEST_SERVER_PORT"); port != "" {
		os.Exit(testServer(port))
	}
	os.Exit(m.Run())
}

func testServer(port string) int {
	us, _ := strconv.Atoi(os.Getenv("AB_TEST_BURN_US"))
	burn := time.Duration(us) * time.Microsecond
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
		spin(burn)
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	fmt.Println("test server on port", port)
	if err := http.ListenAndServe("127.0.0.1:"+port, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// spin busies its thread until it has spent d of CPU time.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	start := ts.Nano()
	for ts.Nano()-start < d.Nanoseconds() {
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	}
}
