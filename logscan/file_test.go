package logscan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func mustMark(t *testing.T, path string) Offset {
	t.Helper()
	o, err := Mark(path)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func mustScan(t *testing.T, path string, o Offset) WindowScan {
	t.Helper()
	r, err := Scan(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMarkAndScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	before := statsLine(counters(10, 8, 2, 1, 0)) + statsLine(counters(40, 35, 5, 1, 0)) + "idle\n"
	writeFile(t, path, before)
	o := mustMark(t, path)
	if o.Pos != int64(len(before)) || o.Baseline == nil || o.Baseline.Requests != 40 {
		t.Fatalf("mark: pos %d baseline %v", o.Pos, o.Baseline)
	}
	appendFile(t, path, "Dynamic Loader: 3 tools\n"+statsLine(counters(100, 90, 10, 2, 0))+statsLine(counters(160, 148, 12, 2, 0)))

	r := mustScan(t, path, o)
	want := Delta{Requests: 120, CacheHits: 113, CacheMisses: 7, BuildCount: 1}
	if r.Baseline != BaselineBeforeWindow || r.Delta != want || r.StatsLines != 2 || r.DynamicLoaderLines != 1 {
		t.Errorf("baseline %q delta %+v stats %d loader %d", r.Baseline, r.Delta, r.StatsLines, r.DynamicLoaderLines)
	}
	size := fileSize(t, path)
	if r.Path != path || r.Window.StartOffset != o.Pos || r.Window.EndOffset != size || r.Window.Bytes != size-o.Pos || r.Window.Rotated {
		t.Errorf("window %+v, size %d", r.Window, size)
	}

	// A later window starts where this one ended.
	o2 := mustMark(t, path)
	r2 := mustScan(t, path, o2)
	if r2.StatsLines != 0 || r2.Delta != (Delta{}) || r2.Baseline != BaselineBeforeWindow || r2.BaselineStats.Requests != 160 {
		t.Errorf("empty window: %+v", r2)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestScanWholeFileWithZeroOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, statsLine(counters(1, 0, 1, 1, 0))+statsLine(counters(3, 2, 1, 1, 0)))
	r := mustScan(t, path, Offset{})
	if r.Baseline != BaselineFirstInWindow || r.Delta.Requests != 2 || r.Window.StartOffset != 0 {
		t.Errorf("got %+v", r)
	}
}

func TestNoStatsLinesInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, "just\nsome\nlines\n")
	o := mustMark(t, path)
	appendFile(t, path, "more\n")
	r := mustScan(t, path, o)
	if r.Baseline != BaselineNone || r.Delta != (Delta{}) || r.Lines != 1 {
		t.Errorf("got %+v", r)
	}
}

// The server was writing a stats line when the window began: the line holds
// the state from before the window, so it becomes the baseline.
func TestMarkInsideALine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	line := statsLine(counters(50, 45, 5, 1, 0))
	cut := len(line) / 2
	writeFile(t, path, statsLine(counters(20, 15, 5, 1, 0))+line[:cut])
	o := mustMark(t, path)
	appendFile(t, path, line[cut:]+statsLine(counters(80, 75, 5, 1, 0)))

	r := mustScan(t, path, o)
	if r.Baseline != BaselineBeforeWindow || r.BaselineStats.Requests != 50 || r.Delta.Requests != 30 || r.StatsLines != 1 {
		t.Errorf("baseline %v delta %+v stats %d", r.BaselineStats, r.Delta, r.StatsLines)
	}

	// The same offset given by hand (no Mark): the fragment is dropped.
	r = mustScan(t, path, Offset{Pos: o.Pos})
	if r.BaselineStats != nil || r.StatsLines != 1 || r.Lines != 1 || r.Baseline != BaselineFirstInWindow {
		t.Errorf("hand-made offset: %+v", r)
	}
	// MarkAt at the same place finds what Mark found.
	o2, err := MarkAt(path, o.Pos)
	if err != nil {
		t.Fatal(err)
	}
	if r := mustScan(t, path, o2); r.BaselineStats == nil || r.BaselineStats.Requests != 50 {
		t.Errorf("MarkAt: %+v", r)
	}
}

func TestMarkLooksBackOnlyAsFarAsLookback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	filler := strings.Repeat(strings.Repeat("f", 99)+"\n", LookbackBytes/100+10)
	writeFile(t, path, statsLine(counters(1, 1, 0, 1, 0))+filler)
	if o := mustMark(t, path); o.Baseline != nil {
		t.Errorf("baseline found %d bytes back: %v", len(filler), o.Baseline)
	}
	appendFile(t, path, statsLine(counters(2, 2, 0, 1, 0))+filler[:1000])
	if o := mustMark(t, path); o.Baseline == nil || o.Baseline.Requests != 2 {
		t.Errorf("baseline = %v", o.Baseline)
	}
}

func TestMarkAtErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, "abc\n")
	for _, pos := range []int64{-1, 5} {
		if _, err := MarkAt(path, pos); err == nil {
			t.Errorf("MarkAt(%d): no error", pos)
		}
	}
	if o, err := MarkAt(path, 4); err != nil || o.Pos != 4 {
		t.Errorf("MarkAt(4) = %+v, %v", o, err)
	}
}

func TestRotationByRename(t *testing.T) {
	for _, keepOld := range []bool{false, true} {
		t.Run(map[bool]string{false: "old file gone", true: "old file at .1"}[keepOld], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "server.log")
			writeFile(t, path, statsLine(counters(10, 9, 1, 1, 0)))
			o := mustMark(t, path)
			// Written before rotation, inside the window.
			appendFile(t, path, statsLine(counters(20, 18, 2, 1, 0))+"Dynamic Loader x\n")
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			if !keepOld {
				if err := os.Remove(path + ".1"); err != nil {
					t.Fatal(err)
				}
			}
			newLog := "reopened\n" + statsLine(counters(30, 27, 3, 1, 0))
			writeFile(t, path, newLog)

			r := mustScan(t, path, o)
			if !r.Window.Rotated || r.Window.StartOffset != 0 || r.Window.EndOffset != int64(len(newLog)) {
				t.Errorf("window %+v", r.Window)
			}
			// Counters are cumulative, so the delta is right either way.
			if r.Baseline != BaselineBeforeWindow || r.Delta.Requests != 20 || r.CounterReset {
				t.Errorf("baseline %q delta %+v reset %v", r.Baseline, r.Delta, r.CounterReset)
			}
			wantStats, wantLoader, wantFrom := 1, 0, ""
			if keepOld {
				wantStats, wantLoader, wantFrom = 2, 1, path+".1"
			}
			if r.StatsLines != wantStats || r.DynamicLoaderLines != wantLoader || r.Window.RotatedFrom != wantFrom {
				t.Errorf("stats %d loader %d from %q", r.StatsLines, r.DynamicLoaderLines, r.Window.RotatedFrom)
			}
		})
	}
}

func TestRotationByTruncate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, statsLine(counters(10, 9, 1, 1, 0))+strings.Repeat("older\n", 50))
	o := mustMark(t, path)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, statsLine(counters(25, 22, 3, 1, 0)))
	r := mustScan(t, path, o)
	if !r.Window.Rotated || r.Delta.Requests != 15 || r.StatsLines != 1 {
		t.Errorf("shrunk: window %+v delta %+v", r.Window, r.Delta)
	}

	// Truncated and grown past the offset again: the bytes before the offset
	// changed, which gives it away.
	o = mustMark(t, path)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, strings.Repeat("newer\n", 50)+statsLine(counters(40, 36, 4, 1, 0)))
	r = mustScan(t, path, o)
	if !r.Window.Rotated || r.Delta.Requests != 15 || r.Window.StartOffset != 0 {
		t.Errorf("regrown: window %+v delta %+v", r.Window, r.Delta)
	}
}

func TestScanPartialLastLineInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, "")
	o := mustMark(t, path)
	appendFile(t, path, statsLine(counters(5, 4, 1, 1, 0))+"[MCP] tools/list stats requests=9 cache_hi")
	r := mustScan(t, path, o)
	if !r.Window.PartialLastLine || r.StatsLines != 1 || r.MalformedStatsLines != 0 || r.Baseline != BaselineFirstInWindow {
		t.Errorf("got %+v", r)
	}
}

func TestScanCRLFFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, strings.ReplaceAll(statsLine(counters(5, 4, 1, 1, 0)), "\n", "\r\n"))
	o := mustMark(t, path)
	appendFile(t, path, strings.ReplaceAll(statsLine(counters(9, 7, 2, 1, 0))+"tools/list served 3\n", "\n", "\r\n"))
	r := mustScan(t, path, o)
	if r.Delta.Requests != 4 || r.ToolsListServedLines != 1 || r.Window.PartialLastLine || !reflect.DeepEqual(r.Last, ptr(counters(9, 7, 2, 1, 0))) {
		t.Errorf("got %+v", r)
	}
}

func TestScanCounterResetInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, path, statsLine(counters(100, 90, 10, 1, 0)))
	o := mustMark(t, path)
	appendFile(t, path, statsLine(counters(120, 108, 12, 1, 0))+"restart\n"+statsLine(counters(7, 6, 1, 1, 0)))
	r := mustScan(t, path, o)
	if !r.CounterReset || r.Delta.Requests != 27 || r.Delta.BuildCount != 1 {
		t.Errorf("reset %v delta %+v", r.CounterReset, r.Delta)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.log")
	if _, err := Mark(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Mark(missing) = %v", err)
	}
	if _, err := Scan(missing, Offset{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Scan(missing) = %v", err)
	}
	if _, err := Scan(dir, Offset{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Scan(dir) = %v", err)
	}
}
