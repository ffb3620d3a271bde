package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/toolschema"
)

func sampleProbe() *results.ProbeReport {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	before := probe.HealthSnapshot{URL: "http://127.0.0.1:3002/health", OK: true, StatusCode: 200, LatencyMS: 0.8,
		Body: json.RawMessage(`{"cache_hits":10,"cache_misses":2}`), Cache: &probe.HealthCache{Hits: i(10), Misses: i(2), HitRatePct: f(83.3)}}
	after := before
	after.Body = json.RawMessage(`{"cache_hits":110,"cache_misses":3}`)
	after.Cache = &probe.HealthCache{Hits: i(110), Misses: i(3), HitRatePct: f(97.3)}
	small := measure.Point{Concurrency: 4, Total: 100, Latency: measure.Latency{Requests: 100, OK: 100, P50MS: 1.2, P95MS: 2.5, P99MS: 3.1, MaxMS: 4}, RPS: 800}
	large := measure.Point{Concurrency: 32, Total: 1000, Latency: measure.Latency{Requests: 1000, OK: 990, Errors: 10, ErrorRate: 0.01, ErrorsByKind: map[string]int64{"timeout": 10}}, RPS: 2000}
	r := &results.ProbeReport{
		Header:   results.Header{Schema: results.SchemaProbe, MCPBenchVersion: "test", StartedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Target: results.Target{URL: "http://127.0.0.1:3002/mcp", Transport: "http", ProtocolVersion: "2025-11-25", ServerName: "srv", ServerVersion: "1"}},
		Settings: results.ProbeSettings{SequentialSamples: 3, SequentialSleepMS: 50, Small: probe.BenchSpec{Concurrency: 4, Total: 100}, Large: probe.BenchSpec{Concurrency: 32, Total: 1000}},
		Report: probe.Report{
			Health: probe.Health{HealthSnapshot: before, After: &after, Delta: &probe.HealthDelta{CacheHits: i(100), CacheMisses: i(1), WindowHitRatePct: f(99), Fields: map[string]float64{"cache_hits": 100}}},
			ToolsList: probe.ToolsList{ToolCount: 2, Pages: 1, PayloadBytes: 2048, FirstCallMS: 151.5,
				LargestTools: []probe.ToolSize{{Name: "big", Bytes: 1500}, {Name: "small", Bytes: 500}},
				Lint:         []probe.Finding{{Finding: toolschema.Finding{Tool: "big", Rule: "description_length", Message: "description is 150 characters | long"}, Severity: "warning"}}},
			SequentialProfile: probe.Profile([]*float64{f(151.5), f(1.1), f(0.9)}),
			Benchmarks:        probe.Benchmarks{Small: &small, Large: &large},
		},
	}
	return r
}

func TestProbeJSONHasContractFields(t *testing.T) {
	r := sampleProbe()
	if failed := (results.Gates{}).Probe(r); !failed || len(r.Gates) != 3 || r.Gates[2].Passed || !r.Gates[1].Passed {
		t.Fatalf("gates %+v", r.Gates)
	}
	var buf bytes.Buffer
	if err := WriteProbeJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "mcpbench_version", "started_at", "target", "settings", "health", "server_info", "tools_list", "sequential_profile", "benchmarks", "log_scan", "gates"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q at the top level", k)
		}
	}
	if string(m["log_scan"]) != "null" {
		t.Errorf("log_scan %s, want null without --log-file", m["log_scan"])
	}
	sub := func(key string, want ...string) {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(m[key], &o); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for _, k := range want {
			if _, ok := o[k]; !ok {
				t.Errorf("%s has no %q", key, k)
			}
		}
	}
	sub("health", "ok", "status_code", "body", "cache", "observability", "after", "delta")
	sub("tools_list", "tool_count", "pages", "payload_bytes", "first_call_ms", "lint", "largest_tools", "descriptions", "compaction_savings_bytes")
	sub("sequential_profile", "count", "first_ms", "second_ms", "min_ms", "median_ms", "max_ms")
	sub("benchmarks", "small", "large")
	sub("target", "url", "transport", "protocol_version", "server_name", "server_version")

	back, err := results.ReadProbeReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if sp := back.SequentialProfile; *sp.FirstMS != 151.5 || *sp.SecondMS != 1.1 || sp.MinMS != 0.9 {
		t.Errorf("sequential order lost in the round trip: %+v", sp)
	}
	if _, err := results.ReadProbeReport(strings.NewReader(`{"schema":"mcpbench.run/v1"}`)); err == nil {
		t.Error("a run report was read as a probe")
	}
}

func TestProbeMarkdownAndSummary(t *testing.T) {
	r := sampleProbe()
	results.Gates{}.Probe(r)
	var md bytes.Buffer
	if err := WriteProbeMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# mcpbench probe", "## Health", "| before", "| change", "+100", "## Server info", "## tools/list payload",
		"`big`", "description is 150 characters \\| long", "## Sequential profile", "151.5", "## Benchmarks", "| large", "## Server log",
		"Not scanned (no --log-file).", "## Gates", "**FAIL**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var sum bytes.Buffer
	if err := WriteProbeSummary(&sum, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"health      ok, HTTP 200", "100 cache hits, 1 misses", "2 tools, 1 page(s), 2.0 KiB, first call 151.5 ms", "first 151.5, second 1.10", "bench large c=32", "gate        bench_large.error_rate: FAILED"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if lines := strings.Count(sum.String(), "\n"); lines > 10 {
		t.Errorf("summary is %d lines, want it short", lines)
	}
}
