package logscan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds the memory one line may take. Longer lines are skipped
// and counted in WindowScan.SkippedLongLines.
const MaxLineBytes = 1 << 20

// readBufBytes is the bufio buffer; lines longer than this are assembled in a
// separate slice, up to MaxLineBytes.
const readBufBytes = 64 << 10

// Baseline sources, in WindowScan.Baseline.
const (
	BaselineBeforeWindow  = "before_window"   // the last stats line written before the window
	BaselineFirstInWindow = "first_in_window" // nothing before: the first interval is not counted
	BaselineNone          = "none"            // no stats line at all
)

// Window says which bytes were read.
type Window struct {
	StartOffset int64 `json:"start_offset"`
	// EndOffset is the size of the (current) file when the scan began; bytes
	// written after that belong to the next window.
	EndOffset int64 `json:"end_offset"`
	// Bytes counts what was read, including a rotated file's tail.
	Bytes int64 `json:"bytes"`
	// Rotated is true when the file was replaced or truncated after the
	// window began; the current file was then read from its start.
	Rotated bool `json:"rotated"`
	// RotatedFrom names the rotated-away file whose tail was read too, when
	// one with the original identity was found.
	RotatedFrom string `json:"rotated_from,omitempty"`
	// PartialLastLine is true when the file did not end with a newline: that
	// last line may still be being written and was not read.
	PartialLastLine bool `json:"partial_last_line"`
}

// Delta is how much each cumulative counter grew over the window.
type Delta struct {
	Requests      int64 `json:"requests"`
	CacheHits     int64 `json:"cache_hits"`
	CacheMisses   int64 `json:"cache_misses"`
	BuildCount    int64 `json:"build_count"`
	BuildFailures int64 `json:"build_failures"`
}

// WindowScan is what a scan of one window of the log found. Run, sweep and
// probe reports embed it as log_scan.
type WindowScan struct {
	Path   string `json:"path"`
	Window Window `json:"window"`

	Lines               int `json:"lines"`                 // complete lines read in the window
	StatsLines          int `json:"stats_lines"`           // of which stats lines
	MalformedStatsLines int `json:"malformed_stats_lines"` // lines with the Marker that did not parse

	Baseline      string `json:"baseline"` // one of the Baseline* constants
	BaselineStats *Stats `json:"baseline_stats"`
	First         *Stats `json:"first"`
	Last          *Stats `json:"last"`

	Delta Delta `json:"delta"`
	// CounterReset is true when a counter went down (the server restarted);
	// Delta then sums the growth of each run of the server.
	CounterReset bool `json:"counter_reset"`

	WindowHitRatePct *float64 `json:"window_hit_rate_pct"` // from Delta; null without cache lookups
	MaxBuildMaxMs    *float64 `json:"max_build_max_ms"`
	MaxPeakInFlight  *int64   `json:"max_peak_in_flight"`

	DynamicLoaderLines   int `json:"dynamic_loader_lines"`
	ToolsListServedLines int `json:"tools_list_served_lines"`
	SkippedLongLines     int `json:"skipped_long_lines"`

	// Coverage is filled in when the log was watched during the load.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// ScanBytes scans data as a whole window. baseline, when not nil, is the
// last stats line written before data.
func ScanBytes(data []byte, baseline *Stats) WindowScan {
	r, _ := ScanReader(bytes.NewReader(data), baseline) // a bytes.Reader cannot fail
	return r
}

// ScanReader scans everything r yields as one window, holding at most
// MaxLineBytes of it at a time. The error is r's, wrapped; the WindowScan then
// covers what was read before it.
func ScanReader(r io.Reader, baseline *Stats) (WindowScan, error) {
	a := newAccumulator(baseline)
	n, partial, err := a.read(r, headInWindow)
	a.res.Window.EndOffset = n
	a.res.Window.Bytes = n
	a.res.Window.PartialLastLine = partial
	return a.finish(), err
}

// accumulator folds lines into a WindowScan. prev is the last stats line seen,
// the baseline included, against which the next one is measured.
type accumulator struct {
	res  WindowScan
	prev *Stats
}

func newAccumulator(baseline *Stats) *accumulator {
	a := &accumulator{}
	a.setBaseline(baseline)
	return a
}

func (a *accumulator) setBaseline(s *Stats) {
	if s == nil {
		return
	}
	c := *s
	a.res.BaselineStats = &c
	a.prev = &c
}

// line takes one complete line, without its newline.
func (a *accumulator) line(b []byte) {
	b = bytes.TrimSuffix(b, []byte("\r"))
	a.res.Lines++
	if bytes.Contains(b, []byte("Dynamic Loader")) {
		a.res.DynamicLoaderLines++
	}
	if bytes.Contains(b, []byte("tools/list served")) {
		a.res.ToolsListServedLines++
	}
	if !bytes.Contains(b, []byte(Marker)) {
		return
	}
	s, ok := ParseStatsLine(b)
	if !ok {
		a.res.MalformedStatsLines++
		return
	}
	a.res.StatsLines++
	if a.res.First == nil {
		c := s
		a.res.First = &c
	}
	a.res.Last = &s
	if s.BuildMaxMs != nil && (a.res.MaxBuildMaxMs == nil || *s.BuildMaxMs > *a.res.MaxBuildMaxMs) {
		v := *s.BuildMaxMs
		a.res.MaxBuildMaxMs = &v
	}
	if s.PeakInFlight != nil && (a.res.MaxPeakInFlight == nil || *s.PeakInFlight > *a.res.MaxPeakInFlight) {
		v := *s.PeakInFlight
		a.res.MaxPeakInFlight = &v
	}
	if a.prev != nil {
		a.add(*a.prev, s)
	}
	a.prev = &s
}

// add counts the growth from prev to cur. When any counter went down the
// server restarted between the two lines and its counters began again at
// zero, so everything in cur is new.
func (a *accumulator) add(prev, cur Stats) {
	reset := cur.Requests < prev.Requests || cur.CacheHits < prev.CacheHits ||
		cur.CacheMisses < prev.CacheMisses || cur.BuildCount < prev.BuildCount ||
		cur.BuildFailures < prev.BuildFailures
	if reset {
		a.res.CounterReset = true
		prev = Stats{}
	}
	d := &a.res.Delta
	d.Requests += cur.Requests - prev.Requests
	d.CacheHits += cur.CacheHits - prev.CacheHits
	d.CacheMisses += cur.CacheMisses - prev.CacheMisses
	d.BuildCount += cur.BuildCount - prev.BuildCount
	d.BuildFailures += cur.BuildFailures - prev.BuildFailures
}

// How read treats the first line of its input.
const (
	headInWindow = iota // an ordinary line of the window
	headFragment        // the tail of a line that began before the window: dropped
	headBefore          // a whole line that began before the window: a baseline candidate
)

// read feeds r's complete lines to line, the first one as head says. It
// returns the bytes read and whether they ended in an unterminated line,
// which is not parsed.
func (a *accumulator) read(r io.Reader, head int) (n int64, partial bool, err error) {
	br := bufio.NewReaderSize(r, readBufBytes)
	var long []byte  // a line longer than the bufio buffer, being assembled
	tooLong := false // the current line passed MaxLineBytes and is being skipped
	for {
		chunk, rerr := br.ReadSlice('\n')
		n += int64(len(chunk))
		switch {
		case rerr == nil: // a whole line ends in chunk
			switch {
			case head == headFragment:
			case head == headBefore:
				// Only a short line qualifies; a long one is dropped with the fragments.
				if long == nil && !tooLong {
					if s, ok := ParseStatsLine(chunk); ok {
						a.setBaseline(&s)
					}
				}
			case tooLong:
				a.res.SkippedLongLines++
			case long != nil:
				long = append(long, chunk[:len(chunk)-1]...)
				if len(long) > MaxLineBytes {
					a.res.SkippedLongLines++
				} else {
					a.line(long)
				}
			default:
				a.line(chunk[:len(chunk)-1])
			}
			head = headInWindow
			long, tooLong = nil, false
		case errors.Is(rerr, bufio.ErrBufferFull):
			if tooLong {
				continue
			}
			long = append(long, chunk...)
			if len(long) > MaxLineBytes {
				long, tooLong = nil, true
			}
		case errors.Is(rerr, io.EOF):
			partial = len(chunk) > 0 || long != nil || tooLong
			return n, partial, nil
		default:
			return n, false, fmt.Errorf("reading log: %w", rerr)
		}
	}
}

// finish fills in what is computed from the whole window.
func (a *accumulator) finish() WindowScan {
	r := a.res
	switch {
	case r.BaselineStats != nil:
		r.Baseline = BaselineBeforeWindow
	case r.First != nil:
		r.Baseline = BaselineFirstInWindow
	default:
		r.Baseline = BaselineNone
	}
	if looks := r.Delta.CacheHits + r.Delta.CacheMisses; looks > 0 {
		pct := 100 * float64(r.Delta.CacheHits) / float64(looks)
		r.WindowHitRatePct = &pct
	}
	return r
}
