package logscan

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// statsLine prints a stats line with a log prefix, as a server would.
func statsLine(s Stats) string { return "2026-11-22T01:00:00Z INFO " + s.String() + "\n" }

func TestScanBytesDeltas(t *testing.T) {
	a := counters(100, 80, 20, 2, 0)
	b := counters(150, 125, 25, 3, 0)
	b.BuildMaxMs, b.PeakInFlight = f64(30), i64(12)
	c := counters(300, 270, 30, 5, 1)
	c.BuildMaxMs, c.PeakInFlight = f64(20), i64(40)
	log := "starting\n" + statsLine(a) + "Dynamic Loader: loaded 12 tools\n" + statsLine(b) +
		"tools/list served 40 tools\ntools/list served 40 tools\n" + statsLine(c)

	t.Run("no baseline", func(t *testing.T) {
		r := ScanBytes([]byte(log), nil)
		if r.Baseline != BaselineFirstInWindow || r.BaselineStats != nil {
			t.Errorf("baseline = %q %v", r.Baseline, r.BaselineStats)
		}
		want := Delta{Requests: 200, CacheHits: 190, CacheMisses: 10, BuildCount: 3, BuildFailures: 1}
		if r.Delta != want {
			t.Errorf("delta = %+v, want %+v", r.Delta, want)
		}
		if r.Lines != 7 || r.StatsLines != 3 || r.DynamicLoaderLines != 1 || r.ToolsListServedLines != 2 {
			t.Errorf("counts: lines %d stats %d loader %d served %d", r.Lines, r.StatsLines, r.DynamicLoaderLines, r.ToolsListServedLines)
		}
		if !reflect.DeepEqual(r.First, &a) || !reflect.DeepEqual(r.Last, &c) {
			t.Errorf("first %v last %v", r.First, r.Last)
		}
		if r.WindowHitRatePct == nil || *r.WindowHitRatePct != 95 {
			t.Errorf("window hit rate = %v, want 95", r.WindowHitRatePct)
		}
		if r.MaxBuildMaxMs == nil || *r.MaxBuildMaxMs != 30 || r.MaxPeakInFlight == nil || *r.MaxPeakInFlight != 40 {
			t.Errorf("max build %v, max peak %v", r.MaxBuildMaxMs, r.MaxPeakInFlight)
		}
		if r.CounterReset || r.Window.PartialLastLine || r.Window.Bytes != int64(len(log)) || r.Window.EndOffset != int64(len(log)) {
			t.Errorf("window %+v reset %v", r.Window, r.CounterReset)
		}
	})

	t.Run("baseline before window", func(t *testing.T) {
		before := counters(90, 70, 20, 2, 0)
		r := ScanBytes([]byte(log), &before)
		if r.Baseline != BaselineBeforeWindow || !reflect.DeepEqual(r.BaselineStats, &before) {
			t.Errorf("baseline = %q %v", r.Baseline, r.BaselineStats)
		}
		want := Delta{Requests: 210, CacheHits: 200, CacheMisses: 10, BuildCount: 3, BuildFailures: 1}
		if r.Delta != want {
			t.Errorf("delta = %+v, want %+v", r.Delta, want)
		}
	})
}

func TestScanBytesCounterReset(t *testing.T) {
	before := counters(90, 80, 10, 1, 0)
	log := statsLine(counters(150, 130, 20, 2, 0)) +
		"server restarted\n" +
		statsLine(counters(10, 5, 5, 1, 1)) + // a new process: everything here is new
		statsLine(counters(30, 20, 10, 2, 1))
	r := ScanBytes([]byte(log), &before)
	want := Delta{Requests: 60 + 10 + 20, CacheHits: 50 + 5 + 15, CacheMisses: 10 + 5 + 5, BuildCount: 1 + 1 + 1, BuildFailures: 0 + 1 + 0}
	if r.Delta != want || !r.CounterReset {
		t.Errorf("delta = %+v reset %v, want %+v and a reset", r.Delta, r.CounterReset, want)
	}
}

func TestScanBytesNoStats(t *testing.T) {
	for name, log := range map[string]string{
		"empty":     "",
		"unrelated": "hello\nworld\n",
		"junk":      "\x00\x01\xff\xfe\n\n\r\n=\"==\n",
	} {
		t.Run(name, func(t *testing.T) {
			r := ScanBytes([]byte(log), nil)
			if r.Baseline != BaselineNone || r.Delta != (Delta{}) || r.First != nil || r.Last != nil ||
				r.WindowHitRatePct != nil || r.MaxBuildMaxMs != nil || r.MaxPeakInFlight != nil || r.StatsLines != 0 {
				t.Errorf("got %+v", r)
			}
		})
	}
}

func TestScanBytesBaselineOnly(t *testing.T) {
	before := counters(5, 4, 1, 1, 0)
	r := ScanBytes([]byte("nothing new\n"), &before)
	if r.Baseline != BaselineBeforeWindow || r.Delta != (Delta{}) || r.Last != nil {
		t.Errorf("got %+v", r)
	}
}

func TestScanBytesPartialLastLine(t *testing.T) {
	log := statsLine(counters(1, 1, 0, 1, 0)) + statsLine(counters(5, 4, 1, 1, 0))
	log += strings.TrimSuffix(statsLine(counters(9, 8, 1, 1, 0)), "\n")
	r := ScanBytes([]byte(log), nil)
	if !r.Window.PartialLastLine || r.StatsLines != 2 || r.Last.Requests != 5 || r.Delta.Requests != 4 {
		t.Errorf("partial %v, stats %d, last %v, delta %+v", r.Window.PartialLastLine, r.StatsLines, r.Last, r.Delta)
	}
}

func TestScanBytesCRLF(t *testing.T) {
	log := strings.ReplaceAll(statsLine(counters(1, 1, 0, 1, 0))+"Dynamic Loader ok\n"+statsLine(fullStats()), "\n", "\r\n")
	r := ScanBytes([]byte(log), nil)
	if r.StatsLines != 2 || r.DynamicLoaderLines != 1 || !reflect.DeepEqual(r.Last, ptr(fullStats())) || r.Window.PartialLastLine {
		t.Errorf("got %+v", r)
	}
}

func ptr(s Stats) *Stats { return &s }

func TestScanBytesGarbageAndBinary(t *testing.T) {
	log := "\x00\x00\xff binary \x1b[31m junk\n" +
		statsLine(counters(10, 9, 1, 1, 0)) +
		"[MCP] tools/list stats requests=lots cache_hits=1\n" + // marker, but no counters
		"[MCP] tools/list stats\n" +
		strings.Repeat("\xfe", 300) + "\n" +
		statsLine(counters(20, 18, 2, 1, 0))
	r := ScanBytes([]byte(log), nil)
	if r.StatsLines != 2 || r.MalformedStatsLines != 2 || r.Delta.Requests != 10 || r.Lines != 6 {
		t.Errorf("stats %d malformed %d lines %d delta %+v", r.StatsLines, r.MalformedStatsLines, r.Lines, r.Delta)
	}
}

func TestScanBytesLongLines(t *testing.T) {
	// Longer than the bufio buffer but within MaxLineBytes: still a line.
	medium := strings.Repeat("x", 3*readBufBytes) + " " + statsLine(counters(7, 6, 1, 1, 0))
	// Longer than MaxLineBytes: skipped, and the line after it still read.
	huge := Marker + " " + strings.Repeat("y", MaxLineBytes+10) + "\n"
	log := statsLine(counters(1, 0, 1, 1, 0)) + medium + huge + statsLine(counters(9, 8, 1, 1, 0))
	r := ScanBytes([]byte(log), nil)
	if r.SkippedLongLines != 1 || r.StatsLines != 3 || r.Delta.Requests != 8 || r.MalformedStatsLines != 0 {
		t.Errorf("skipped %d stats %d malformed %d delta %+v", r.SkippedLongLines, r.StatsLines, r.MalformedStatsLines, r.Delta)
	}
	// An over-long unterminated tail is partial, not skipped.
	r = ScanBytes([]byte(strings.Repeat("z", MaxLineBytes+1)), nil)
	if !r.Window.PartialLastLine || r.SkippedLongLines != 0 {
		t.Errorf("tail: %+v", r.Window)
	}
}

type failingReader struct{ n int }

var errDisk = errors.New("disk on fire")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		f.n--
		return copy(p, statsLine(counters(1, 1, 0, 0, 0))), nil
	}
	return 0, errDisk
}

func TestScanReaderError(t *testing.T) {
	r, err := ScanReader(&failingReader{n: 2}, nil)
	if !errors.Is(err, errDisk) {
		t.Fatalf("err = %v", err)
	}
	if r.StatsLines != 2 {
		t.Errorf("lines before the error: %d", r.StatsLines)
	}
	if _, err := ScanReader(io.MultiReader(), nil); err != nil {
		t.Errorf("empty reader: %v", err)
	}
}

func TestResultJSONShape(t *testing.T) {
	b, err := json.Marshal(ScanBytes([]byte(statsLine(fullStats())), nil))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"baseline", "baseline_stats", "counter_reset", "delta", "dynamic_loader_lines", "first", "last",
		"lines", "malformed_stats_lines", "max_build_max_ms", "max_peak_in_flight", "path", "skipped_long_lines",
		"stats_lines", "tools_list_served_lines", "window", "window_hit_rate_pct"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v\nwant %v", keys, want)
	}
	var w map[string]any
	if err := json.Unmarshal(m["window"], &w); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"start_offset", "end_offset", "bytes", "rotated", "partial_last_line"} {
		if _, ok := w[k]; !ok {
			t.Errorf("window lacks %q: %s", k, m["window"])
		}
	}
}
