package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/logscan"
)

// TestLogHeadUncoveredIsSaid: a run whose log had no stats line before
// the load says in its summary, Markdown and HTML that the window's head
// is not counted, and for how long; the JSON alone is not enough.
func TestLogHeadUncoveredIsSaid(t *testing.T) {
	r := fixtureRun(t, 1, 2)
	r.LogScan = &logscan.WindowScan{Path: "/var/log/mcp.log", StatsLines: 6, Baseline: logscan.BaselineFirstInWindow,
		Delta:    logscan.Delta{Requests: 816},
		Coverage: &logscan.Coverage{MeasuredS: 2.1, CoveredS: 1.8, TailSeen: true, BaselineWaitS: 1, HeadUncoveredS: 0.3}}
	const want = "first 0.30 s are not counted"
	for name, write := range map[string]func(*bytes.Buffer) error{
		"summary":  func(b *bytes.Buffer) error { return WriteRunSummary(b, r) },
		"markdown": func(b *bytes.Buffer) error { return WriteRunMarkdown(b, r) },
		"html":     func(b *bytes.Buffer) error { return WriteRunHTML(b, r) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "waited 1.0 s for one before the load") {
			t.Errorf("%s does not say the log window's head is uncovered (%q)", name, want)
		}
	}
	var b bytes.Buffer
	if err := WriteRunSummary(&b, r); err != nil || !strings.Contains(b.String(), "WARNING   log window partial") {
		t.Errorf("summary has no warning line:\n%s", b.String())
	}
}
