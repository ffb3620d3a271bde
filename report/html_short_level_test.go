package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

// shortLevel is the demo's short level: 400 requests at ~395 rps, one
// whole 1 s interval and a last one cut to 13 ms holding the stragglers.
func shortLevel() *measure.Series {
	s := fixtureSeries(3, 2, 1, 395, 2, false)
	s.LastS = 0.013
	s.OK[1], s.Sent[1], s.Errors["timeout"][1] = 16, 0, 0
	s.RPS[1] = measure.BucketRate(16, 1, 2, s.IntervalS, s.LastS)
	return s
}

// TestPartialBucketHasNoRate: the last bucket, 13 ms long, keeps its
// count and length but reports no rate (16 answers over 13 ms read as
// 1,231 rps, three times the real rate); the rate of a whole one stands.
func TestPartialBucketHasNoRate(t *testing.T) {
	s := shortLevel()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		RPS   []*float64 `json:"rps"`
		OK    []int64    `json:"ok"`
		LastS float64    `json:"last_s"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.RPS[0] == nil || *back.RPS[0] < 300 || back.RPS[1] != nil || back.OK[1] != 16 || back.LastS != 0.013 {
		t.Fatalf("series %s: want a rate for the whole bucket, null for the 13 ms one, its count and length kept", b)
	}
	if r := measure.BucketRate(400, 1, 2, 1, 0.6); r < 666 || r > 667 {
		t.Fatalf("a last bucket of 0.6 s: rate %v, want 400/0.6 over its own length", r)
	}
}

// TestShortLevelSaysSo: a level with one interval to draw gets a note in
// the sweep's picker and in a run's page, not empty axes.
func TestShortLevelSaysSo(t *testing.T) {
	r := fixtureHistSweep()
	for i := range r.Points {
		r.Points[i].Series = fixtureSeries(uint64(i), 6, 1, 300, 2, false)
	}
	r.Points[1].Series = shortLevel()
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	const open = `<script id="mcpbench-data" type="application/json">`
	raw := page[strings.Index(page, open)+len(open):]
	raw = raw[:strings.Index(raw, "</script>")]
	var specs []struct {
		ID      string
		Choices []struct{ Label, Note string }
	}
	if err := json.Unmarshal([]byte(raw), &specs); err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, s := range specs {
		if s.ID != "over-time-levels" {
			continue
		}
		for i, c := range s.Choices {
			if (c.Note != "") != (i == 1) {
				t.Errorf("choice %d (%s): note %q; want one for the short level only", i, c.Label, c.Note)
			}
			if c.Note != "" && strings.Contains(c.Note, "Too short to draw over time") && strings.Contains(c.Note, "0.013 s (16 answers, no rate)") {
				notes++
			}
		}
	}
	if notes != 1 {
		t.Fatalf("the short level's choice does not say why it draws no line (%d notes)", notes)
	}

	run := fixtureRun(t, 1, 2)
	run.Point.Series = shortLevel()
	run.Soak = nil
	b.Reset()
	if err := WriteRunHTML(&b, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Too short to draw over time") || strings.Contains(b.String(), `"over-time-throughput"`) {
		t.Fatal("a run with one interval to draw draws empty charts instead of saying why")
	}
}
