package logscan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// requestsLine is a stats line whose requests counter is n.
func requestsLine(n int64) string { return statsLine(counters(n, 0, 0, 0, 0)) }

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

// TestWatchWaitsForTheTailLine: the load ends between two stats lines; with
// a wait the scan sees the line after the end, so the delta counts every
// request, and without one it says the window is partial.
func TestWatchWaitsForTheTailLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait time.Duration
	}{{"with the wait", 3 * time.Second}, {"without", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.log")
			appendLine(t, path, requestsLine(100)) // the baseline, before the window
			mark, err := Mark(path)
			if err != nil {
				t.Fatal(err)
			}
			w := StartWatch(path, mark, 10*time.Millisecond)
			appendLine(t, path, "unrelated line\n")
			time.Sleep(150 * time.Millisecond)
			appendLine(t, path, requestsLine(150)) // inside the window
			time.Sleep(150 * time.Millisecond)
			end := time.Now() // the load ends; 60 more requests were served
			go func() {
				time.Sleep(400 * time.Millisecond)
				appendLine(t, path, requestsLine(210))
			}()
			cov := w.Settle(context.Background(), end, tc.wait)
			if tc.wait == 0 {
				time.Sleep(600 * time.Millisecond) // the line comes, but too late
			}
			scan, err := Scan(path, mark)
			if err != nil {
				t.Fatal(err)
			}
			cov.Finish(scan)
			if tc.wait > 0 {
				if !cov.TailSeen || !cov.Complete || cov.CoveredS != cov.MeasuredS {
					t.Fatalf("coverage %+v: want the tail seen and the window complete", cov)
				}
				if scan.Delta.Requests != 110 {
					t.Fatalf("delta %d, want 110", scan.Delta.Requests)
				}
				if cov.SettledS < 0.3 || cov.SettledS > 2.5 {
					t.Fatalf("settled %.2fs: want about the 0.4 s until the line", cov.SettledS)
				}
				return
			}
			if cov.TailSeen || cov.Complete {
				t.Fatalf("coverage %+v: the tail line came after the scan's wait", cov)
			}
			if cov.CoveredS >= cov.MeasuredS || cov.CoveredS <= 0 {
				t.Fatalf("coverage %+v: want part of the window covered", cov)
			}
		})
	}
}

func TestWatchIntervalAndRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendLine(t, path, "start\n")
	mark, err := Mark(path)
	if err != nil {
		t.Fatal(err)
	}
	w := StartWatch(path, mark, 5*time.Millisecond)
	defer w.Stop()
	for i := 1; i <= 4; i++ {
		time.Sleep(100 * time.Millisecond)
		appendLine(t, path, requestsLine(int64(i)))
	}
	// Rotation: the file is moved away and a new one begun.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	appendLine(t, path, requestsLine(5))
	time.Sleep(100 * time.Millisecond)
	w.halt()
	w.poll()
	if w.lines != 5 {
		t.Fatalf("saw %d stats lines, want 5 (rotation followed)", w.lines)
	}
	if iv := w.Interval(); iv < 60*time.Millisecond || iv > 400*time.Millisecond {
		t.Fatalf("interval %v, want about 100ms", iv)
	}
}

func TestWatchSkipsOverlongLines(t *testing.T) {
	w := &Watch{}
	now := time.Now()
	big := make([]byte, MaxLineBytes+10)
	for i := range big {
		big[i] = 'x'
	}
	w.feed(big, 0, now)
	w.feed([]byte(requestsLine(1)), 0, now) // the end of the long line, not a line of its own
	w.feed([]byte(requestsLine(2)), 0, now)
	if w.lines != 1 || len(w.line) != 0 {
		t.Fatalf("lines %d, held %d bytes: want the long line skipped whole and one stats line", w.lines, len(w.line))
	}
}

func TestAutoSettle(t *testing.T) {
	if got := AutoSettle(2*time.Second, time.Minute); got != 3*time.Second+2*WatchPoll {
		t.Fatalf("AutoSettle(2s) = %v", got)
	}
	if got := AutoSettle(time.Hour, time.Minute); got != time.Minute {
		t.Fatalf("AutoSettle is capped: got %v", got)
	}
	if got := AutoSettle(0, time.Minute); got != 4*WatchPoll {
		t.Fatalf("AutoSettle with no interval = %v", got)
	}
}

// FuzzWatchFeed checks that a Watch finds the same stats lines however the
// bytes are cut into reads, as a whole-file split finds them.
func FuzzWatchFeed(f *testing.F) {
	f.Add([]byte(requestsLine(1)+"x\n"+requestsLine(2)), uint8(7))
	f.Add([]byte("no newline at all"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		want := 0
		lines := bytes.Split(data, []byte("\n"))
		for _, l := range lines[:len(lines)-1] { // the last piece is unterminated
			if _, ok := ParseStatsLine(bytes.TrimSuffix(l, []byte("\r"))); ok && len(l) <= MaxLineBytes {
				want++
			}
		}
		w := &Watch{}
		step := int(cut%64) + 1
		for i := 0; i < len(data); i += step {
			w.feed(data[i:min(i+step, len(data))], int64(i), time.Time{})
		}
		if w.lines != want {
			t.Fatalf("fed in steps of %d: %d stats lines, a whole split finds %d", step, w.lines, want)
		}
	})
}
