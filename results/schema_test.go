package results

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/sweep"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite testdata/schema.golden.json")

// fullMeasurement sets every field a measurement has, so the report built
// from it shows every JSON name the schema can write.
func fullMeasurement() bench.Point {
	rate := 50.0
	times := bench.SessionTimes{MeanMS: 1, P50MS: 2, P90MS: 3, P95MS: 4, P99MS: 5, MaxMS: 6, Histogram: "st"}
	figs := bench.SessionFigures{Completed: 7, Failed: 1, PerSecond: 3.5, Steps: 21, ThinkS: 0.5, MeanSteps: 3, MeanThinkMS: 71, Duration: times, Active: times}
	lat := bench.Latency{Requests: 10, OK: 9, Errors: 1, ErrorRate: 0.1, ErrorsByKind: map[string]int64{"timeout": 1},
		MinMS: 0.1, MeanMS: 1.1, P50MS: 1, P90MS: 2, P95MS: 3, P99MS: 4, P999MS: 5, MaxMS: 6}
	return bench.Point{
		Concurrency: 3, Rate: &rate, Total: 10, Latency: lat, ElapsedS: 2, RPS: 5, OfferedRPS: 50, Unsent: 2,
		BytesSent: 100, BytesReceived: 200, Histogram: "h",
		Uncorrected:   &bench.Uncorrected{P50MS: 1, P95MS: 2, P99MS: 3, MaxMS: 4, Histogram: "u"},
		ScheduleLagMS: &bench.ScheduleLag{P99: 1, Max: 2, Histogram: "l"},
		Client: bench.ClientStats{PoolMaxConns: 4, PoolWaits: 1, Dials: 5, CPUS: 0.25, Saturated: true, SaturationReason: "cpu",
			Engine: "direct", Driver: "loops", Loops: 2},
		Interrupted:   true,
		ErrorExamples: map[string]string{"timeout": "deadline"},
		ByOperation: []bench.OperationStats{{Operation: bench.Operation{Method: "tools/call", Tool: "echo", Scenario: "s", Step: "a"},
			Latency: lat, RPS: 4, Histogram: "o"}},
		FirstEvent:  &bench.Stage{Count: 3, P50MS: 1, P90MS: 2, P99MS: 3, MaxMS: 4, Histogram: "f"},
		TaskCreated: &bench.Stage{Count: 2, P50MS: 1, P90MS: 2, P99MS: 3, MaxMS: 4},
		Counters:    map[string]int64{"tool_error": 2},
		Sessions: &bench.SessionStats{Started: 8, SessionFigures: figs,
			Uncorrected: &bench.Uncorrected{P50MS: 1}, StartLagMS: &bench.ScheduleLag{P99: 1}, Unstarted: 1, Abandoned: 1,
			ByScenario: []bench.ScenarioStats{{Scenario: "s", SessionFigures: figs}}},
		Series: &bench.Series{StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), IntervalS: 1, LastS: 0.5,
			Sent: []int64{6, 4}, OK: []int64{5, 4}, Errors: map[string][]int64{"timeout": {1, 0}}, RPS: []float64{6, 8},
			P50MS: []float64{1, 1}, P95MS: []float64{2, 2}, P99MS: []float64{3, 3}, MaxMS: []float64{4, 4},
			InFlight: []int64{0, 0}, CPUS: []float64{0.1, 0.2}, Histograms: []string{"a", "b"},
			Server: []bench.ServerSeries{{Name: "rss_bytes", Unit: "bytes", Kind: bench.GaugeLevel, Source: "pid 1",
				Values: []float64{1, math.NaN()}}}},
	}
}

// TestReportSchemaIsStable writes a run, a sweep and a probe report of a
// measurement that sets every field, and compares the JSON byte for byte
// with the file recorded before the report's types moved out of bench:
// the same names, in the same order, with the same values.
func TestReportSchemaIsStable(t *testing.T) {
	h := Header{Schema: SchemaRun, MCPBenchVersion: "v", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := fullMeasurement()
	run := &RunReport{Header: h, Point: PointOf(p)}
	sw := NewSweepReport(h, PointsOf([]bench.Point{p}), sweep.SLO{P95MS: 10})
	pr := &ProbeReport{Header: h, ProbeFindings: ProbeFindingsOf(probe.Report{Benchmarks: probe.Benchmarks{Small: &p}})}
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

// TestMirrorRefusesAnotherShape: a field on one side only, fields in
// another order, or a number of another kind is a mistake in the schema's
// types, never something to copy around.
func TestMirrorRefusesAnotherShape(t *testing.T) {
	type ab struct{ A, B int }
	type abc struct{ A, B, C int }
	type ba struct{ B, A int }
	type aFloat struct {
		A float64
		B int
	}
	for name, dst := range map[string]any{"extra field": &abc{}, "order": &ba{}, "kind": &aFloat{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: mirror copied %T into %T", name, ab{}, dst)
				}
			}()
			mirror(reflect.ValueOf(dst).Elem(), reflect.ValueOf(ab{1, 2}))
		}()
	}
	var same struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mirror(reflect.ValueOf(&same).Elem(), reflect.ValueOf(ab{1, 2}))
	if same.A != 1 || same.B != 2 {
		t.Errorf("tags aside, the same shape copies: got %+v", same)
	}
}
