package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server logs as users meet them (--log-file, logscan): one of 200 MB
// without a newline, and logs truncated or rotated while a run reads them.

// logResult is one log case, for the doc.
type logResult struct {
	name, does string
	o          outcome
	scan       logScan
}

var logRows []logResult

// logScan is what the suite reads of a log scan.
type logScan struct {
	Window struct {
		Rotated bool  `json:"rotated"`
		Bytes   int64 `json:"bytes"`
	} `json:"window"`
	StatsLines       int              `json:"stats_lines"`
	SkippedLongLines int              `json:"skipped_long_lines"`
	Delta            map[string]int64 `json:"delta"`
}

func statsLine(n int64) string {
	return fmt.Sprintf("[MCP] tools/list stats requests=%d hit_rate=50.0%% cache_hits=%d cache_misses=%d build_count=%d build_failures=0 build_avg_ms=1.0 build_max_ms=2.0\n", n, n/2, n-n/2, n/10)
}

func TestLogWithoutNewlines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB file")
	}
	path := filepath.Join(t.TempDir(), "server.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, statsLine(100))
	block := bytes.Repeat([]byte("x"), 1<<20)
	for range hugeBytes >> 20 {
		if _, err := f.Write(block); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	out := filepath.Join(t.TempDir(), "scan.json")
	o := runChild(fileLimit, nil, "logscan", "-q", "--json-out", out, path)
	os.Remove(path)
	checkProcess(t, "logscan", o, fileLimit)
	var scan logScan
	b, _ := os.ReadFile(out)
	if o.code != 0 || json.Unmarshal(b, &scan) != nil {
		t.Fatalf("logscan: exit %d, report %s, stderr %s", o.code, clip(b), clip(o.stderr))
	}
	if scan.StatsLines != 1 {
		t.Errorf("%d stats lines, want the 1 before the endless line", scan.StatsLines)
	}
	logRows = append(logRows, logResult{name: "200 MB without a newline", does: "one stats line, then 200 MB with no newline (logscan)", o: o, scan: scan})
}

func TestLogRotatedDuringRun(t *testing.T) {
	for _, how := range []string{"truncated", "rotated"} {
		t.Run(how, func(t *testing.T) {
			srv, err := Start("baseline")
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "server.log")
			stop := writeLog(t, path, how)
			out := filepath.Join(dir, "run.json")
			o := runChild(30*time.Second, nil, "run", "--url", srv.URL(), "-c", "2", "-d", "2s", "--log-file", path, "--json-out", out, "-q", "--no-progress")
			stop()
			checkProcess(t, "run", o, 2*time.Second+margin)
			var rep struct {
				LogScan *logScan `json:"log_scan"`
			}
			b, _ := os.ReadFile(out)
			if o.code != 0 || json.Unmarshal(b, &rep) != nil || rep.LogScan == nil {
				t.Fatalf("run: exit %d, stderr %s, log_scan %v", o.code, clip(o.stderr), rep.LogScan)
			}
			s := rep.LogScan
			if !s.Window.Rotated || s.Delta["requests"] <= 0 {
				t.Errorf("the scan did not follow the %s log: rotated %v, delta %v", how, s.Window.Rotated, s.Delta)
			}
			for k, v := range s.Delta {
				if v < 0 {
					t.Errorf("delta %s is %d", k, v)
				}
			}
			logRows = append(logRows, logResult{name: "log " + how + " during a run", does: logDoes[how], o: o, scan: *s})
		})
	}
}

var logDoes = map[string]string{
	"truncated": "a stats line every 20 ms; 0.8 s into the run the file is truncated (copytruncate) and written on",
	"rotated":   "a stats line every 20 ms; 0.8 s into the run the file is renamed to .1 and a new one started",
}

// writeLog writes stats lines to path every 20 ms, the counters growing,
// and 0.8 s in truncates or rotates it. The returned function stops it.
func writeLog(t *testing.T, path, how string) func() {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(statsLine(0))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start, n, turned := time.Now(), int64(0), false
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				f.Close()
				return
			case <-tick.C:
			}
			if !turned && time.Since(start) > 800*time.Millisecond {
				turned = true
				if how == "truncated" {
					_ = f.Truncate(0)
				} else {
					f.Close()
					_ = os.Rename(path, path+".1")
					f, _ = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				}
			}
			n += 10
			f.WriteString(statsLine(n))
		}
	}()
	return func() { close(done); wg.Wait() }
}

// logSection is the doc's part on server logs.
func logSection() string {
	if len(logRows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `
## Server logs

The 200 MB log stands for the 1 GB one users meet: twice the memory ceiling, it proves the bound as
well, and spares the disk. The rotated logs are read by `+"`run -c 2 -d 2s --log-file`"+` against the baseline server.

| log | what it holds | exit | time | peak RSS | stats lines | rotated | delta requests |
| --- | --- | --- | --- | --- | --- | --- | --- |
`)
	for _, r := range logRows {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %v | %d |\n", r.name, cell(r.does), r.o.code, secs(r.o.elapsed),
			mib(r.o.peakRSS), r.scan.StatsLines, r.scan.Window.Rotated, r.scan.Delta["requests"])
	}
	return b.String()
}
