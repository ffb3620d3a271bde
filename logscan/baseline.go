package logscan

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"
)

// A server started just before the load has written no stats line yet:
// a window marked then has no baseline, so the requests before its first
// line are not counted. MarkBaseline waits a little for that line, and
// the coverage says how long it waited and how much of the head the
// lines still leave out.

// AutoBaselineWait is how long MarkBaseline waits when told "auto": long
// enough for a server that writes a line every second or faster, short
// enough not to hold up a run against a log that has none.
const AutoBaselineWait = time.Second

// MarkBaseline is Mark, except that when no stats line precedes the end
// of the file it waits up to wait (wait < 0: AutoBaselineWait) for one,
// and marks the end of the file after it, so that the line is the
// window's baseline. An interrupted ctx ends the wait; the Offset then
// has no baseline and the scan's coverage says so.
func MarkBaseline(ctx context.Context, path string, wait time.Duration) (Offset, error) {
	o, err := Mark(path)
	if err != nil || o.Baseline != nil || wait == 0 {
		return o, err
	}
	if wait < 0 {
		wait = AutoBaselineWait
	}
	start := time.Now()
	deadline := start.Add(wait)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		t := time.NewTimer(min(WatchPoll, time.Until(deadline)))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		if end, ok := statsLineAfter(path, o.Pos); ok {
			n, err := MarkAt(path, end)
			n.waited, n.baselineAt = time.Since(start), time.Now()
			return n, err
		}
	}
	o.waited = time.Since(start)
	return o, nil
}

// statsLineAfter reports the end of the last complete stats line written
// after pos, if there is one.
func statsLineAfter(path string, pos int64) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= pos {
		return 0, false
	}
	b := make([]byte, min(fi.Size()-pos, LookbackBytes))
	n, err := f.ReadAt(b, fi.Size()-int64(len(b)))
	if err != nil && err != io.EOF {
		return 0, false
	}
	b = b[:n]
	last := bytes.LastIndexByte(b, '\n')
	if last < 0 || lastStats(b[:last+1]) == nil {
		return 0, false
	}
	return fi.Size() - int64(len(b)) + int64(last) + 1, true
}
