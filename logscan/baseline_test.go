package logscan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMarkBaselineWaitsForTheFirstLine: a server started just before the
// load has written no stats line; the mark waits for its first one, so the
// window's requests are all counted (delta 50, not the 20 after the first
// line) and the coverage is complete.
func TestMarkBaselineWaitsForTheFirstLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendLine(t, path, "server starting\n")
	go func() {
		time.Sleep(150 * time.Millisecond)
		appendLine(t, path, requestsLine(30)) // the first line: requests before the load
	}()
	mark, err := MarkBaseline(context.Background(), path, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if mark.Baseline == nil || mark.Baseline.Requests != 30 || mark.waited < 100*time.Millisecond || mark.waited > time.Second {
		t.Fatalf("mark %+v after %v: want the first line (requests 30) as the baseline, about 0.15 s later", mark.Baseline, mark.waited)
	}
	w := StartWatch(path, mark, 10*time.Millisecond)
	appendLine(t, path, requestsLine(60))
	time.Sleep(50 * time.Millisecond)
	end := time.Now()
	go func() {
		time.Sleep(100 * time.Millisecond)
		appendLine(t, path, requestsLine(80)) // the line after the load
	}()
	scan, err := w.Close(context.Background(), end, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := scan.Coverage
	if scan.Baseline != BaselineBeforeWindow || scan.Delta.Requests != 50 || !c.Complete || c.HeadUncoveredS != 0 || c.BaselineWaitS < 0.1 {
		t.Fatalf("scan baseline %s delta %d coverage %+v: want the whole window counted (50) and the wait reported",
			scan.Baseline, scan.Delta.Requests, *c)
	}
}

// TestMarkBaselineGivesUp: no stats line comes within the wait; the mark
// is the plain end of the file, and the coverage says how much of the
// window's head no baseline covers.
func TestMarkBaselineGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendLine(t, path, strings.Repeat("noise\n", 3))
	start := time.Now()
	mark, err := MarkBaseline(context.Background(), path, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); mark.Baseline != nil || took < 200*time.Millisecond || took > 2*time.Second {
		t.Fatalf("baseline %+v after %v: want none after the 0.2 s wait", mark.Baseline, took)
	}
	w := StartWatch(path, mark, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // the load's head, no line written
	appendLine(t, path, requestsLine(40))
	time.Sleep(50 * time.Millisecond)
	end := time.Now()
	go func() {
		time.Sleep(100 * time.Millisecond)
		appendLine(t, path, requestsLine(70))
	}()
	scan, err := w.Close(context.Background(), end, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := scan.Coverage
	if scan.Baseline != BaselineFirstInWindow || c.Complete || c.HeadUncoveredS < 0.25 || c.HeadUncoveredS > c.MeasuredS || c.BaselineWaitS < 0.2 {
		t.Fatalf("baseline %s coverage %+v: want a partial window whose first ~0.3 s are uncovered, the 0.2 s wait reported", scan.Baseline, *c)
	}
	// No wait asked for: the mark is at once.
	start = time.Now()
	if m, err := MarkBaseline(context.Background(), path, 0); err != nil || m.waited != 0 || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("wait 0: %v after %v", err, time.Since(start))
	}
}
