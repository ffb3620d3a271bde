package results

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/sweep"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite testdata/schema.golden.json")

// fullMeasurement sets every field a measurement has, so the report built
// from it shows every JSON name the schema can write.
func fullMeasurement() measure.Point {
	rate := 50.0
	times := measure.SessionTimes{MeanMS: 1, P50MS: 2, P90MS: 3, P95MS: 4, P99MS: 5, MaxMS: 6, Histogram: "st"}
	figs := measure.SessionFigures{Completed: 7, Failed: 1, PerSecond: 3.5, Steps: 21, ThinkS: 0.5, MeanSteps: 3, MeanThinkMS: 71, Duration: times, Active: times}
	lat := measure.Latency{Requests: 10, OK: 9, Errors: 1, ErrorRate: 0.1, ErrorsByKind: map[string]int64{"timeout": 1},
		MinMS: 0.1, MeanMS: 1.1, P50MS: 1, P90MS: 2, P95MS: 3, P99MS: 4, P999MS: 5, MaxMS: 6}
	return measure.Point{
		Concurrency: 3, Rate: &rate, Total: 10, Latency: lat, ElapsedS: 2, RPS: 5, OfferedRPS: 50, Unsent: 2,
		BytesSent: 100, BytesReceived: 200, Histogram: "h",
		Uncorrected:   &measure.Uncorrected{P50MS: 1, P95MS: 2, P99MS: 3, MaxMS: 4, Histogram: "u"},
		ScheduleLagMS: &measure.ScheduleLag{P99: 1, Max: 2, Histogram: "l"},
		Client: measure.ClientStats{PoolMaxConns: 4, PoolWaits: 1, Dials: 5, CPUS: 0.25, Saturated: true, SaturationReason: "cpu",
			Engine: "direct", Driver: "loops", Loops: 2, LatencyClock: bench.ClockKernel,
			NoticeDelay: &measure.Timing{Count: 9, P50MS: 0.01, P90MS: 0.02, P99MS: 0.05, MaxMS: 0.2, Histogram: "n"}},
		Interrupted:   true,
		ErrorExamples: map[string]string{"timeout": "deadline"},
		ByOperation: []measure.OperationStats{{Operation: measure.Operation{Method: "tools/call", Tool: "echo", Scenario: "s", Step: "a"},
			Latency: lat, RPS: 4, Histogram: "o"}},
		FirstEvent:  &measure.Timing{Count: 3, P50MS: 1, P90MS: 2, P99MS: 3, MaxMS: 4, Histogram: "f"},
		TaskCreated: &measure.Timing{Count: 2, P50MS: 1, P90MS: 2, P99MS: 3, MaxMS: 4},
		Counters:    map[string]int64{"tool_error": 2},
		Sessions: &measure.SessionStats{Started: 8, SessionFigures: figs,
			Uncorrected: &measure.Uncorrected{P50MS: 1}, StartLagMS: &measure.ScheduleLag{P99: 1}, Unstarted: 1, Abandoned: 1, PeakOpen: 1, MemoryPerSession: 1,
			ByScenario: []measure.ScenarioStats{{Scenario: "s", SessionFigures: figs}}},
		Series: &measure.Series{StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), IntervalS: 1, LastS: 0.5,
			Sent: []int64{6, 4}, OK: []int64{5, 4}, Errors: map[string][]int64{"timeout": {1, 0}}, RPS: []float64{6, 8},
			P50MS: []float64{1, 1}, P95MS: []float64{2, 2}, P99MS: []float64{3, 3}, MaxMS: []float64{4, 4},
			InFlight: []int64{0, 0}, CPUS: []float64{0.1, 0.2}, Histograms: []string{"a", "b"},
			Server: []measure.ServerSeries{{Name: "rss_bytes", Unit: "bytes", Kind: measure.GaugeLevel, Source: "pid 1",
				Values: []float64{1, math.NaN()}}}},
	}
}

// TestReportSchemaIsStable writes a run, a sweep and a probe report of a
// measurement that sets every field, and compares the JSON byte for byte
// with the file recorded when bench and results each had their own copy
// of the types: the same names, in the same order, with the same values.
func TestReportSchemaIsStable(t *testing.T) {
	h := Header{Schema: SchemaRun, MCPBenchVersion: "v", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := fullMeasurement()
	run := &RunReport{Header: h, Point: p}
	sw := NewSweepReport(h, []measure.Point{p}, sweep.SLO{P95MS: 10})
	pr := &ProbeReport{Header: h, Report: probe.Report{Benchmarks: probe.Benchmarks{Small: &p}}}
	var got bytes.Buffer
	for _, v := range []any{run, sw, pr} {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		got.Write(b)
		got.WriteByte('\n')
	}
	const golden = "testdata/schema.golden.json"
	if *updateSchema {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("report JSON differs from %s:\n%s", golden, got.String())
	}
}
