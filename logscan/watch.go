package logscan

import (
	"bytes"
	"context"
	"os"
	"sort"
	"sync"
	"time"
)

// A server writes its stats line every interval, so the line that counts the
// last requests of a run is written up to one interval after the run ends.
// Watch follows the log during the run and notes when each stats line
// appears, so that the window can wait for that line and say how much of the
// measured time its lines cover.

// WatchPoll is how often a Watch looks for new bytes. Arrival times are
// known to within one poll.
const WatchPoll = 50 * time.Millisecond

// maxArrivals bounds what a Watch remembers of a long run: the first
// arrivals and the last ones are enough for the interval and the span.
const maxArrivals = 256

// Watch follows a log file from an Offset. It is safe for one goroutine to
// call Settle while the watch's own goroutine polls.
type Watch struct {
	path    string
	from    Offset
	started time.Time

	mu       sync.Mutex
	pos      int64       // the next byte to read
	f        *os.File    // the file being followed, kept open across a rotation
	info     os.FileInfo // its identity
	line     []byte      // an unterminated line so far, at most MaxLineBytes
	skipping bool        // the current line outgrew MaxLineBytes
	first    time.Time   // arrival of the first stats line
	recent   []time.Time // arrivals of the last stats lines, oldest first
	lines    int         // stats lines seen
	// cut is the file offset the watch had read to when the load ended:
	// a stats line ending past it was written after the load. Poll times
	// are too coarse for that: a line written just before the end may be
	// read just after it. -1: not cut yet.
	cut  int64
	tail bool // a stats line was written after the cut

	stop chan struct{}
	done chan struct{}
}

// StartWatch begins following path from the Offset, polling every poll (a
// zero poll means WatchPoll). Stop it with Settle or Stop.
func StartWatch(path string, from Offset, poll time.Duration) *Watch {
	if poll <= 0 {
		poll = WatchPoll
	}
	w := &Watch{path: path, from: from, started: time.Now(), cut: -1, pos: from.Pos, info: from.info,
		stop: make(chan struct{}), done: make(chan struct{})}
	// A window that begins inside a line starts reading at the next one.
	w.skipping = from.marked && from.lineStart != from.Pos
	if !from.baselineAt.IsZero() {
		w.recent = []time.Time{from.baselineAt} // an arrival, for the interval only
	}
	go w.loop(poll)
	return w
}

func (w *Watch) loop(poll time.Duration) {
	defer close(w.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		w.poll()
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

// poll reads what the file gained since the last poll. It keeps the file
// open, so that when the log is rotated (renamed away, a new one begun) the
// old file's last lines are still read before the new file is followed.
func (w *Watch) poll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if w.f == nil {
		f, fi, err := openLog(w.path)
		if err != nil {
			return // not there for now (being rotated); try again next poll
		}
		if w.info != nil && !os.SameFile(w.info, fi) {
			w.restart() // the file was replaced before it was first opened
		}
		w.f, w.info = f, fi
	}
	w.readToEnd(now)
	fi, err := os.Stat(w.path)
	switch {
	case err != nil:
		// Renamed away and not yet begun again: keep the old one.
	case !os.SameFile(w.info, fi):
		w.f.Close()
		w.f = nil
		w.restart()
		w.pollReplacement(now)
	case fi.Size() < w.pos: // truncated in place
		w.restart()
		w.readToEnd(now)
	}
}

// pollReplacement opens the file that replaced the followed one and reads it.
func (w *Watch) pollReplacement(now time.Time) {
	f, fi, err := openLog(w.path)
	if err != nil {
		return
	}
	w.f, w.info = f, fi
	w.readToEnd(now)
}

// restart follows a new file from its first byte.
func (w *Watch) restart() {
	w.pos, w.line, w.skipping = 0, w.line[:0], false
	if w.cut >= 0 {
		w.cut = 0 // a file begun after the load: all of it is later
	}
}

// readToEnd reads the open file from pos to its end.
func (w *Watch) readToEnd(now time.Time) {
	var buf [32 << 10]byte
	for {
		n, err := w.f.ReadAt(buf[:], w.pos)
		w.pos += int64(n)
		w.feed(buf[:n], w.pos-int64(n), now)
		if err != nil || n == 0 {
			return
		}
	}
}

// feed splits b, which begins at file offset at, into lines, noting a
// stats line's arrival at now.
func (w *Watch) feed(b []byte, at int64, now time.Time) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if !w.skipping {
			if len(w.line)+len(part) > MaxLineBytes {
				w.skipping, w.line = true, w.line[:0]
			} else {
				w.line = append(w.line, part...)
			}
		}
		if i < 0 {
			return
		}
		if !w.skipping {
			if _, ok := ParseStatsLine(bytes.TrimSuffix(w.line, []byte("\r"))); ok { // CRLF logs too
				w.arrived(now, at+int64(i))
			}
		}
		w.line, w.skipping = w.line[:0], false
		b, at = b[i+1:], at+int64(i)+1
	}
}

func (w *Watch) arrived(t time.Time, end int64) {
	if w.cut >= 0 && end >= w.cut {
		w.tail = true
	}
	if w.lines == 0 {
		w.first = t
	}
	w.lines++
	if len(w.recent) == maxArrivals {
		w.recent = append(w.recent[:0], w.recent[1:]...)
	}
	w.recent = append(w.recent, t)
}

// Stop ends the watch and closes the file. It is safe to call more than once.
func (w *Watch) Stop() {
	w.halt()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// halt stops the polling goroutine and leaves the file open.
func (w *Watch) halt() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// Interval is the median time between the stats lines seen, or 0 when fewer
// than two were seen.
func (w *Watch) Interval() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.interval()
}

func (w *Watch) interval() time.Duration {
	if len(w.recent) < 2 {
		return 0
	}
	gaps := make([]time.Duration, 0, len(w.recent)-1)
	for i := 1; i < len(w.recent); i++ {
		gaps = append(gaps, w.recent[i].Sub(w.recent[i-1]))
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return gaps[len(gaps)/2]
}

// AutoSettleCap bounds the automatic wait for the tail line; a server
// whose interval is longer needs an explicit wait.
const AutoSettleCap = 15 * time.Second

// Close ends a watch when the load has ended (at end): it waits for the
// stats line that covers the end (wait < 0: AutoSettle of the interval
// seen, at most AutoSettleCap), scans the window from the watch's Offset,
// and attaches the coverage to the scan. An interrupted ctx cuts the wait
// short; the scan is still made.
func (w *Watch) Close(ctx context.Context, end time.Time, wait time.Duration) (WindowScan, error) {
	if wait < 0 {
		wait = AutoSettle(w.Interval(), AutoSettleCap)
	}
	cov := w.Settle(ctx, end, wait)
	scan, err := Scan(w.path, w.from)
	if err != nil {
		return scan, err
	}
	cov.Finish(scan)
	scan.Coverage = &cov
	return scan, nil
}

// AutoSettle is the default wait for the tail line: the observed interval
// plus half of it and two polls, at most limit. With no interval observed,
// a short grace: a line may be on its way.
func AutoSettle(interval, limit time.Duration) time.Duration {
	if interval <= 0 {
		return min(4*WatchPoll, limit)
	}
	return min(interval+interval/2+2*WatchPoll, limit)
}

// Settle waits until a stats line appears after end, or until wait has
// passed, or ctx is done; then it stops the watch and says what it saw.
func (w *Watch) Settle(ctx context.Context, end time.Time, wait time.Duration) Coverage {
	deadline := time.Now().Add(wait)
	w.poll()
	w.mu.Lock()
	w.cut = w.pos
	w.mu.Unlock()
	for !w.tailSeen() && time.Now().Before(deadline) {
		t := time.NewTimer(min(WatchPoll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			deadline = time.Now()
		case <-t.C:
		}
	}
	w.halt()
	w.poll() // what arrived since the last poll
	defer w.Stop()
	return w.coverage(end, time.Since(end))
}

func (w *Watch) tailSeen() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tail
}

// Coverage says how much of a measured window the stats lines cover.
type Coverage struct {
	// MeasuredS is the window the load ran in, from the watch's start to
	// the end of the load.
	MeasuredS float64 `json:"measured_s"`
	// CoveredS is the part of it the stats lines account for: from the
	// window's start when a baseline was written before it (else from the
	// first line) to the last line seen.
	CoveredS float64 `json:"covered_s"`
	// IntervalS is the median time between stats lines seen (0: fewer than two).
	IntervalS float64 `json:"interval_s"`
	// TailSeen is true when a stats line written after the load ended was
	// read: the delta then counts every request of the window.
	TailSeen bool `json:"tail_seen"`
	// SettledS is how long the scan waited after the load for that line.
	SettledS float64 `json:"settled_s"`
	// Complete is true when the lines bracket the window: a baseline from
	// before it and a line after it. Otherwise the delta is partial.
	Complete bool `json:"complete"`
	// BaselineWaitS is how long the window's start waited for the server's
	// first stats line, when none had been written yet.
	BaselineWaitS float64 `json:"baseline_wait_s,omitempty"`
	// HeadUncoveredS is the start of the window no baseline covers: up to
	// the first stats line in it (the whole window when none came). Its
	// requests are missing from the delta.
	HeadUncoveredS float64 `json:"head_uncovered_s,omitempty"`

	started, end, first, last time.Time // zero first: no line seen
}

func (w *Watch) coverage(end time.Time, settled time.Duration) Coverage {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := Coverage{MeasuredS: end.Sub(w.started).Seconds(), IntervalS: w.interval().Seconds(),
		SettledS: settled.Seconds(), BaselineWaitS: w.from.waited.Seconds(), started: w.started, end: end}
	if w.lines > 0 {
		c.first, c.last = w.first, w.recent[len(w.recent)-1]
		c.TailSeen = w.tail
	}
	return c
}

// Finish completes the coverage with what the scan of the window found:
// whether a baseline from before the window bracketed its start.
func (c *Coverage) Finish(scan WindowScan) {
	if scan.Baseline != BaselineBeforeWindow {
		c.HeadUncoveredS = c.MeasuredS
		if !c.first.IsZero() {
			c.HeadUncoveredS = max(0, min(c.MeasuredS, c.first.Sub(c.started).Seconds()))
		}
	}
	if c.last.IsZero() && scan.Baseline != BaselineBeforeWindow {
		return
	}
	from := c.started
	if scan.Baseline != BaselineBeforeWindow && c.first.After(from) {
		from = c.first
	}
	to := c.end
	if !c.TailSeen && c.last.Before(c.end) {
		to = c.last // zero when no line came: nothing covered after the baseline
	}
	if to.After(from) {
		c.CoveredS = to.Sub(from).Seconds()
	}
	c.Complete = c.TailSeen && scan.Baseline == BaselineBeforeWindow
}
