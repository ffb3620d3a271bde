package telemetry

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/measure"
)

// An interval without answers in a mix (a starved machine's) adds no
// duration series: there is no latency to file, least of all under "all".
func TestEmptyIntervalOpensNoDurationSeries(t *testing.T) {
	tot := newTotals(nil)
	iv := harness.PointInterval{Interval: harness.Interval{Start: time.Now(), Length: time.Second,
		Operations: []measure.Operation{{Method: "tools/call", Tool: "echo"}, {Method: "tools/list"}}}}
	if _, _, ok := tot.add(iv); !ok {
		t.Fatal("the empty interval was refused")
	}
	for k := range tot.hists {
		if strings.Contains(k, "all") {
			t.Errorf("a duration series for an interval with no answers: %s", k)
		}
	}
}
