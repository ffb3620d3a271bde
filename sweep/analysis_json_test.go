package sweep

import (
	"encoding/json"
	"strings"
	"testing"
)

// Analysis carries the sweep report's JSON names (results.SweepReport
// embeds it): an empty one still has every section.
func TestAnalyzeEmptyJSON(t *testing.T) {
	b, err := json.Marshal(Analyze(nil, SLO{P95MS: 400, P99MS: 800}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"slo":{"p95_ms":400,"p99_ms":800,"max_error_rate":0}`,
		`"points":[]`,
		`"summary":{"point_count":0,"error_total":0,"peak_rps":0,"peak_concurrency":0}`,
		`"knee":null`, `"usl":null`,
		`"recommendation":{"recommended_concurrency":null`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s\nmissing %s", b, want)
		}
	}
}
