package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

func TestStagedRunIsRenderedStageByStage(t *testing.T) {
	r := fixtureRun(t, 1, 20)
	r.Stages = []measure.StageSummary{
		{FromS: 0, ToS: 5, Target: 4, Requests: 500, RPS: 100, P50MS: 5, P95MS: 8, P99MS: 9},
		{FromS: 5, ToS: 10, Target: 16, Requests: 1500, RPS: 300, P50MS: 6, P95MS: 30, P99MS: 41.5, Errors: 3, ErrorRate: 0.002},
		{FromS: 10, ToS: 20, Target: 4, Requests: 1000, RPS: 100, P50MS: 5, P95MS: 8, P99MS: 9},
	}
	r.Spikes = []measure.Spike{{Stage: 2, Back: 3, EndS: 10, BaselineP99MS: 9, RecoveryS: 2, Recovered: true}}
	r.Aborted = &results.Aborted{Reason: "p99>40ms for 2s: p99 was 41.5 ms", AtS: 12}
	var md, sum, page bytes.Buffer
	if err := WriteRunMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunSummary(&sum, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"markdown": {md.String(), []string{"Aborted at 12.0 s: p99>40ms for 2s", "## Load stages", "|     2 |      5 |   10 |     16 |     1500 | 300.0 |", "## Spikes and recovery"}},
		"summary":  {sum.String(), []string{"aborted   at 12.0 s: p99>40ms for 2s", "stage 2   5-10 s, target 16: 1500 requests, 300.0 rps, p99 41.5 ms, 3 errors", "spike     after stage 2, back at stage 3: recovery 2 s"}},
		"html":     {page.String(), []string{`id="stages"`, "Load stages", `"label":"stage 2","color":"#888"`, `"at":10,"label":"stage 3"`, "Aborted at 12.0 s"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
	if n := len(chartData(t, page.String())); n == 0 {
		t.Error("no charts")
	}
}
