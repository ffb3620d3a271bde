package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// runAt is a run report whose p95 is p95MS, everything else fixed.
func runAt(p95MS float64) *results.RunReport {
	return &results.RunReport{
		Header:   results.Header{Schema: results.SchemaRun, Target: results.Target{URL: "http://127.0.0.1:3002/mcp"}},
		Workload: results.Workload{Mode: "closed", Operations: []measure.Operation{{Method: "tools/list"}}},
		Point:    measure.Point{Concurrency: 8, RPS: 400, Latency: measure.Latency{P50MS: p95MS / 2, P95MS: p95MS, P99MS: 20, MaxMS: 40}},
	}
}

func TestCompareOutputs(t *testing.T) {
	c := results.CompareRuns(runAt(10), runAt(12), results.DefaultLimits())
	c.Base.Path, c.New.Path = "base.json", "new.json"
	var md bytes.Buffer
	if err := WriteCompareMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"❌ 1 regression", "| run", "p95_ms", "10.0 ms", "12.0 ms", "+2.00 ms (+20.0%)", "+10%", "**regression**", "`base.json`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var x bytes.Buffer
	if err := WriteCompareJUnit(&x, c); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(x.Bytes(), &doc); err != nil {
		t.Fatalf("junit does not parse: %v\n%s", err, x.String())
	}
	// Gates: p95, p99, rps, error rate.
	if doc.Tests != 4 || doc.Failures != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 {
		t.Fatalf("junit %+v", doc)
	}
	for _, tc := range doc.Suites[0].Cases {
		if (tc.Failure != nil) != (tc.Name == "run: p95_ms") {
			t.Errorf("case %q failure %+v", tc.Name, tc.Failure)
		}
	}
}
