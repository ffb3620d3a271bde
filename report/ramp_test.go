package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// TestRampIsNotAStall: a scenario run whose first three seconds answered
// nothing (the sessions begun in the ramp-up are not measured) gets no
// stall verdict and no 0x drift; the page says it was the run's start,
// that the first tenth had too few answers, and speaks of users.
func TestRampIsNotAStall(t *testing.T) {
	r := fixtureRun(t, 1, 2)
	s := fixtureSeries(5, 12, 1, 200, 2, false)
	for i := range 3 {
		s.OK[i], s.Sent[i], s.Errors["timeout"][i], s.RPS[i], s.Histograms[i] = 0, 0, 0, 0, ""
	}
	r.Point.Series = s
	r.Point.Rate = nil
	r.Point.Concurrency = 8
	r.Point.Sessions = &measure.SessionStats{Started: 40}
	r.Soak = results.AnalyzeSoak(s, results.SoakOptions{})
	if d := r.Soak.Drift; d == nil || d.FirstRequests != 0 || d.Enough() {
		t.Fatalf("drift %+v: want a first tenth with no answers", d)
	}
	// Not computed is null in the JSON, never a 0 a script reads as "no drift".
	js, err := json.Marshal(r.Soak.Drift)
	if err != nil || !strings.Contains(string(js), `"first_p99_ms":null`) || !strings.Contains(string(js), `"ratio":null`) {
		t.Errorf("drift in JSON: %s %v", js, err)
	}
	var b bytes.Buffer
	if err := WriteRunHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"stalled", "(0.00×)", "0.00x", "8 workers"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page says %q", bad)
		}
	}
	for _, want := range []string{"Nothing was answered in the first 3 s: the run&#39;s own start", "not enough answers to compare", "8 users"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	// A bucket with no answer after answers came is still a stall.
	s.OK[6], s.Sent[6], s.Errors["timeout"][6] = 0, 0, 0
	if v := strings.Join(runSeriesVerdicts(r), " "); !strings.Contains(v, "No request was answered between 6 and 7 s") {
		t.Errorf("a real stall is not flagged: %q", v)
	}
}
