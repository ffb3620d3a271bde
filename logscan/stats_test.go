package logscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

const fullLine = "[MCP] tools/list stats requests=120 hit_rate=95.5% cache_hits=110 cache_misses=10 build_count=3 build_failures=1 build_avg_ms=12.25 build_max_ms=40 in_flight=2 peak_in_flight=17 max_in_flight=90"

func fullStats() Stats {
	return Stats{
		Requests: 120, CacheHits: 110, CacheMisses: 10, BuildCount: 3, BuildFailures: 1,
		HitRatePct: f64(95.5), BuildAvgMs: f64(12.25), BuildMaxMs: f64(40),
		InFlight: i64(2), PeakInFlight: i64(17), MaxInFlight: i64(90),
	}
}

func counters(req, hits, misses, builds, fails int64) Stats {
	return Stats{Requests: req, CacheHits: hits, CacheMisses: misses, BuildCount: builds, BuildFailures: fails}
}

func TestParseStatsLine(t *testing.T) {
	const base = "[MCP] tools/list stats requests=5 cache_hits=4 cache_misses=1 build_count=1 build_failures=0"
	withOpt := func(s Stats, set func(*Stats)) Stats { set(&s); return s }
	tests := []struct {
		name string
		line string
		want Stats
		ok   bool
	}{
		{"full", fullLine, fullStats(), true},
		{"timestamp and level prefix", "2026-11-22T01:39:23.123Z INFO omni.mcp: " + fullLine, fullStats(), true},
		{"trailing newline", fullLine + "\n", fullStats(), true},
		{"CRLF", fullLine + "\r\n", fullStats(), true},
		{"only counters", base, counters(5, 4, 1, 1, 0), true},
		{"hit_rate without percent", base + " hit_rate=80", withOpt(counters(5, 4, 1, 1, 0), func(s *Stats) { s.HitRatePct = f64(80) }), true},
		{"unknown keys and bare words", base + " cache_refreshes=7 shard=a extra", counters(5, 4, 1, 1, 0), true},
		{"tab after marker", strings.Replace(base, "stats ", "stats\t", 1), counters(5, 4, 1, 1, 0), true},
		{"garbage optional values", base + " hit_rate=lots% build_avg_ms=NaN build_max_ms=-3 in_flight=x peak_in_flight=1.5 max_in_flight=", counters(5, 4, 1, 1, 0), true},
		{"hit rate above 100", base + " hit_rate=150%", counters(5, 4, 1, 1, 0), true},
		{"infinite ms", base + " build_max_ms=+Inf", counters(5, 4, 1, 1, 0), true},
		{"quoted counter", strings.Replace(base, "requests=5", `requests="5"`, 1), counters(5, 4, 1, 1, 0), true},
		{"duplicate key: last wins", base + " requests=9", counters(9, 4, 1, 1, 0), true},
		{"quoted inside a structured message", `time=2026-11-22 level=info msg="` + base + ` build_max_ms=9"`, counters(5, 4, 1, 1, 0), true},
		{"no marker", "requests=5 cache_hits=4 cache_misses=1 build_count=1 build_failures=0", Stats{}, false},
		{"marker glued to text", strings.Replace(base, "stats ", "statsX ", 1), Stats{}, false},
		{"marker alone", Marker, Stats{}, false},
		{"missing counter", strings.Replace(base, " build_failures=0", "", 1), Stats{}, false},
		{"garbage counter", strings.Replace(base, "requests=5", "requests=five", 1), Stats{}, false},
		{"negative counter", strings.Replace(base, "requests=5", "requests=-5", 1), Stats{}, false},
		{"overflowing counter", strings.Replace(base, "requests=5", "requests=99999999999999999999", 1), Stats{}, false},
		{"bare counter key", strings.Replace(base, "requests=5", "requests", 1), Stats{}, false},
		{"valid then invalid duplicate", base + " requests=oops", Stats{}, false},
		{"syntax error before a counter", "[MCP] tools/list stats requests=5 a=b=c cache_hits=4 cache_misses=1 build_count=1 build_failures=0", Stats{}, false},
		{"marker on a second line only", "hello\n" + base, Stats{}, false},
		{"empty", "", Stats{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseStatsLine([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestStatsStringRoundTrip(t *testing.T) {
	for _, s := range []Stats{fullStats(), counters(0, 0, 0, 0, 0), counters(1<<62, 3, 2, 1, 0)} {
		line := s.String()
		got, ok := ParseStatsLine([]byte(line))
		if !ok || !reflect.DeepEqual(got, s) {
			t.Errorf("%q parsed to %s, %v", line, got, ok)
		}
	}
	if got := fullStats().String(); got != fullLine {
		t.Errorf("String() = %q\nwant       %q", got, fullLine)
	}
}

func TestStatsJSONNamesAndNulls(t *testing.T) {
	b, err := json.Marshal(counters(1, 2, 3, 4, 5))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"requests":1,"cache_hits":2,"cache_misses":3,"build_count":4,"build_failures":5,"hit_rate_pct":null,"build_avg_ms":null,"build_max_ms":null,"in_flight":null,"peak_in_flight":null,"max_in_flight":null}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// FuzzParseStatsLine checks that no input panics, that whatever parses can be
// put in a JSON report, and that a parsed line printed and parsed again keeps
// its values.
func FuzzParseStatsLine(f *testing.F) {
	f.Add([]byte(fullLine))
	f.Add([]byte("2026-11-22 INFO " + fullLine + "\r\n"))
	f.Add([]byte(`msg="[MCP] tools/list stats requests=1 cache_hits=1 cache_misses=0 build_count=0 build_failures=0 hit_rate=1e2%"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s, ok := ParseStatsLine(line)
		if !ok {
			if !reflect.DeepEqual(s, Stats{}) {
				t.Fatalf("not ok but values %s", s)
			}
			return
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("parsed values do not marshal: %v", err)
		}
		again, ok := ParseStatsLine([]byte(s.String()))
		if !ok {
			t.Fatalf("re-formatted line %q does not parse", s.String())
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip changed values:\n%s\n%s", s, again)
		}
	})
}
