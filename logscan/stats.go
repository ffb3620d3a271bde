// Package logscan reads the periodic tools/list stats line that MCP servers
// write to their logs, over a byte window of the log file, and reports what
// the counters did during that window.
//
// The line looks like this, possibly behind a timestamp or level prefix:
//
//	[MCP] tools/list stats requests=<n> hit_rate=<pct>% cache_hits=<n> cache_misses=<n> build_count=<n> build_failures=<n> build_avg_ms=<ms> build_max_ms=<ms> [in_flight=<n> peak_in_flight=<n> max_in_flight=<n>]
//
// Counters are cumulative since the server started, so the change over a
// window is the last value minus the value just before the window began.
package logscan

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/go-logfmt/logfmt"
)

// Marker is the text that makes a line a stats line candidate. It may appear
// anywhere in the line so that timestamp and level prefixes do not matter.
const Marker = "[MCP] tools/list stats"

// Stats holds the values of one stats line.
//
// The five cumulative counters are required: a line without all of them (or
// with a value that is not a non-negative integer) is not a stats line,
// because deltas need every counter from the same moment. The other fields
// are optional and nil when absent or unreadable; a bad value there costs
// only that field, never the line.
type Stats struct {
	Requests      int64 `json:"requests"`
	CacheHits     int64 `json:"cache_hits"`
	CacheMisses   int64 `json:"cache_misses"`
	BuildCount    int64 `json:"build_count"`
	BuildFailures int64 `json:"build_failures"`

	HitRatePct   *float64 `json:"hit_rate_pct"` // hit_rate in the log, without its % sign
	BuildAvgMs   *float64 `json:"build_avg_ms"`
	BuildMaxMs   *float64 `json:"build_max_ms"`
	InFlight     *int64   `json:"in_flight"`
	PeakInFlight *int64   `json:"peak_in_flight"`
	MaxInFlight  *int64   `json:"max_in_flight"`
}

// Bits of the required counters, to know that every one was seen.
const (
	hasRequests = 1 << iota
	hasCacheHits
	hasCacheMisses
	hasBuildCount
	hasBuildFailures

	hasAllCounters = hasRequests | hasCacheHits | hasCacheMisses | hasBuildCount | hasBuildFailures
)

// ParseStatsLine reads one log line. It reports false when the line is not a
// stats line: no Marker, a Marker glued to other text, or a missing or
// unreadable required counter.
//
// Everything after the Marker is read as logfmt. Unknown keys and bare words
// are ignored. When a key repeats, the last occurrence wins (an invalid last
// value clears the field). A logfmt syntax error ends the line: the pairs read
// before it are kept and the rest is ignored, so a stats line quoted inside a
// structured log message still parses up to the closing quote. Only the first
// line of line is looked at; a trailing "\r\n" or "\n" is ignored.
func ParseStatsLine(line []byte) (Stats, bool) {
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	at := bytes.Index(line, []byte(Marker))
	if at < 0 {
		return Stats{}, false
	}
	rest := line[at+len(Marker):]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return Stats{}, false // "[MCP] tools/list statsXYZ" is another message
	}

	// The decoder splits its input with a bufio.Scanner; give it room for the
	// whole line so long lines are not refused.
	dec := logfmt.NewDecoderSize(bytes.NewReader(rest), len(rest)+64)
	if !dec.ScanRecord() {
		return Stats{}, false
	}
	var s Stats
	seen := 0
	for dec.ScanKeyval() {
		seen = s.set(string(dec.Key()), dec.Value(), seen)
	}
	if seen != hasAllCounters {
		return Stats{}, false
	}
	return s, true
}

// set stores one key/value pair and returns the updated set of counters seen.
func (s *Stats) set(key string, val []byte, seen int) int {
	counter := func(dst *int64, bit int) int {
		n, ok := parseCount(val)
		if !ok {
			return seen &^ bit
		}
		*dst = n
		return seen | bit
	}
	switch key {
	case "requests":
		return counter(&s.Requests, hasRequests)
	case "cache_hits":
		return counter(&s.CacheHits, hasCacheHits)
	case "cache_misses":
		return counter(&s.CacheMisses, hasCacheMisses)
	case "build_count":
		return counter(&s.BuildCount, hasBuildCount)
	case "build_failures":
		return counter(&s.BuildFailures, hasBuildFailures)
	case "hit_rate":
		s.HitRatePct = optFloat(bytes.TrimSuffix(val, []byte("%")), 100)
	case "build_avg_ms":
		s.BuildAvgMs = optFloat(val, math.MaxFloat64)
	case "build_max_ms":
		s.BuildMaxMs = optFloat(val, math.MaxFloat64)
	case "in_flight":
		s.InFlight = optCount(val)
	case "peak_in_flight":
		s.PeakInFlight = optCount(val)
	case "max_in_flight":
		s.MaxInFlight = optCount(val)
	}
	return seen
}

// parseCount accepts a non-negative base-10 integer that fits in int64.
func parseCount(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

func optCount(b []byte) *int64 {
	n, ok := parseCount(b)
	if !ok {
		return nil
	}
	return &n
}

// optFloat accepts a finite number in [0, limit]. NaN and infinities are
// refused because they cannot go into a JSON report.
func optFloat(b []byte, limit float64) *float64 {
	if len(b) == 0 {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > limit {
		return nil
	}
	if f == 0 {
		f = 0 // no "-0" in reports
	}
	return &f
}

// String renders s as a canonical stats line (without a newline), in the
// order servers print it; absent optional fields are left out. ParseStatsLine
// reads it back to the same values.
func (s Stats) String() string {
	var b strings.Builder
	b.WriteString(Marker + " ")
	enc := logfmt.NewEncoder(&b) // it puts the spaces between pairs
	kv := func(k, v string) {
		// Keys and values here are plain ASCII numbers; the encoder cannot fail
		// on them, and a strings.Builder never returns a write error.
		_ = enc.EncodeKeyval(k, v)
	}
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	float := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

	kv("requests", count(s.Requests))
	if s.HitRatePct != nil {
		kv("hit_rate", float(*s.HitRatePct)+"%")
	}
	kv("cache_hits", count(s.CacheHits))
	kv("cache_misses", count(s.CacheMisses))
	kv("build_count", count(s.BuildCount))
	kv("build_failures", count(s.BuildFailures))
	if s.BuildAvgMs != nil {
		kv("build_avg_ms", float(*s.BuildAvgMs))
	}
	if s.BuildMaxMs != nil {
		kv("build_max_ms", float(*s.BuildMaxMs))
	}
	if s.InFlight != nil {
		kv("in_flight", count(*s.InFlight))
	}
	if s.PeakInFlight != nil {
		kv("peak_in_flight", count(*s.PeakInFlight))
	}
	if s.MaxInFlight != nil {
		kv("max_in_flight", count(*s.MaxInFlight))
	}
	return b.String()
}
