package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/results"
)

var htmlDir = flag.String("html-dir", "", "also write the HTML fixtures into this directory, to look at")

// htmlCase is one page the tests render.
type htmlCase struct {
	name  string
	write func(*bytes.Buffer) error
	// charts are the ids of the charts the page must draw.
	charts []string
	// texts must appear in the page.
	texts []string
}

func htmlCases(t *testing.T) []htmlCase {
	run, open, merged := fixtureRun(t, 1, 20), fixtureOpenRun(t), fixtureMergedRun(t)
	sw, rate := fixtureHistSweep(), fixtureHistRateSweep()
	runCmp, sweepCmp := fixtureRunComparison(t), fixtureSweepComparison()
	return []htmlCase{
		{"run", func(b *bytes.Buffer) error { return WriteRunHTML(b, run) }, []string{"spectrum", "over-time-throughput", "over-time-latency", "over-time-load", "server-0", "server-1"},
			[]string{"mcpbench run", "Passed every gate, with warnings", "rss_bytes (pid 4242)", "Server over time", "Trends and leaks", "Server rss_bytes grew", "likely leak", "trend (finding)", "tools/call search", "timeout", "no answer within 5s", "mcpbench-target 0.1.0", "2025-06-18", "v0.1.0-test", "fasthttp"}},
		{"run_open", func(b *bytes.Buffer) error { return WriteRunHTML(b, open) }, []string{"spectrum", "over-time-throughput"},
			[]string{"from intended send", "from actual send", "Open loop: 500 rps offered", "schedule lag p99", "No request was answered between 40 and 41 s",
				"Health endpoint http://127.0.0.1:3002/health", "connection refused", "Stats log over the measured window", "/var/log/mcp.log", "requests=30000"}},
		{"merge", func(b *bytes.Buffer) error { return WriteRunHTML(b, merged) }, []string{"spectrum"},
			[]string{"merged from 2 reports", "Shards 3 are missing", "1/3, 2/3"}},
		{"sweep", func(b *bytes.Buffer) error { return WriteSweepHTML(b, sw) }, []string{"throughput", "latency", "spectrum", "over-time-levels"},
			[]string{"Recommended concurrency: 8 (the SLO held up to 12)", "concurrency 8 (recommended)", "knee", "p95 ≤ 50 ms"}},
		{"sweep_rate", func(b *bytes.Buffer) error { return WriteSweepHTML(b, rate) }, []string{"throughput", "latency", "spectrum"},
			[]string{"Highest sustainable rate: 298.9 rps", "offered rate (rps)"}},
		{"compare", func(b *bytes.Buffer) error { return WriteCompareHTML(b, runCmp) }, []string{"spectrum", "over-time-throughput", "over-time-latency"},
			[]string{"mcpbench compare (run)", "regression", "base.json", "new.json", "p95_ms"}},
		{"compare_sweep", func(b *bytes.Buffer) error { return WriteCompareHTML(b, sweepCmp) }, []string{"throughput", "latency", "spectrum"},
			[]string{"mcpbench compare (sweep)", "base-sweep.json", "recommended_concurrency"}},
		{"ab", func(b *bytes.Buffer) error { return WriteABHTML(b, abReport()) }, []string{"ab-rps", "ab-p50", "ab-cpu", "ab-ratio"},
			[]string{"mcpbench ab", "Rounds in run order", "alpha 0.01 for the gate"}},
	}
}

// recordedCases are pages of reports mcpbench wrote against its reference
// server (testdata/recorded: a closed run of `serve --leak-per-request
// 20000` sampled with --server-pid and --server-metrics, an open run, a mix
// whose error gate failed, two merged shards, a concurrency and a rate
// sweep), so the pages are tried on real reports, not only on fixtures.
func recordedCases(t *testing.T) []htmlCase {
	read := func(name string) results.Report {
		f, err := os.Open(filepath.Join("testdata", "recorded", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := results.ReadReport(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	var out []htmlCase
	for _, name := range []string{"run", "run_open", "run_mix", "merged"} {
		r := read(name).Run
		out = append(out, htmlCase{"recorded_" + name, func(b *bytes.Buffer) error { return WriteRunHTML(b, r) }, []string{"spectrum", "over-time-throughput"}, []string{"mcpbench run"}})
	}
	out[0].charts = append(out[0].charts, "server-0", "server-6")
	out[0].texts = append(out[0].texts, "likely leak", "The last interval, cut to 0.035 s")
	for _, name := range []string{"sweep", "sweep_rate"} {
		r := read(name).Sweep
		out = append(out, htmlCase{"recorded_" + name, func(b *bytes.Buffer) error { return WriteSweepHTML(b, r) }, []string{"throughput", "latency", "spectrum", "over-time-levels"}, []string{"mcpbench sweep"}})
	}
	base, cur := read("run"), read("run_mix")
	c := results.CompareRuns(base.Run, cur.Run, results.DefaultLimits())
	out = append(out, htmlCase{"recorded_compare", func(b *bytes.Buffer) error { return WriteCompareHTML(b, c) }, []string{"spectrum", "over-time-throughput"}, []string{"REGRESSION", "the workloads differ"}})
	return out
}

// renderCase renders a case, writes it to -html-dir when asked, and
// returns the page.
func renderCase(t *testing.T, c htmlCase) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.write(&b); err != nil {
		t.Fatal(err)
	}
	if *htmlDir != "" {
		if err := os.WriteFile(filepath.Join(*htmlDir, c.name+".html"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestHTMLPages(t *testing.T) {
	for _, c := range append(htmlCases(t), recordedCases(t)...) {
		t.Run(c.name, func(t *testing.T) {
			page := renderCase(t, c)
			text := html.UnescapeString(page)
			for _, want := range c.texts {
				if !strings.Contains(text, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			checkSelfContained(t, page)
			charts := chartData(t, page)
			for _, id := range c.charts {
				if _, ok := charts[id]; !ok {
					t.Errorf("no chart %q in the page's data (have %v)", id, sortedKeys(charts))
				}
				if !strings.Contains(page, `data-chart="`+id+`"`) {
					t.Errorf("no container for chart %q", id)
				}
			}
		})
	}
}

// externalRef finds what would make a browser fetch something: a src or
// href with a scheme or a network path, CSS url() or @import, a <link>.
var externalRef = regexp.MustCompile(`(?i)(\b(src|href|action|poster|srcset|data|formaction)\s*=\s*["']?\s*([a-z][a-z0-9+.-]*:|//))|url\(|@import|<link\b|<img\b|<iframe\b|<object\b|<embed\b`)

// uplotBanner is the one web address inside the embedded library: its
// home page, in a comment.
const uplotBanner = "/*! https://github.com/leeoniya/uPlot (v1.6.32) */"

// targetURL is the address of the reference server the fixtures and the
// recorded reports measured, and of its metrics: text the page shows, not
// a resource.
var targetURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/(mcp|metrics|health)`)

// checkSelfContained fails when the page refers to anything outside
// itself: no element or style loads from anywhere, and every http:// or
// https:// in the file is text the report shows (the target's URL) or the
// library's banner comment.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("the page refers to an outside resource: %q", m)
	}
	rest := strings.Replace(page, uplotBanner, "", 1)
	rest = targetURL.ReplaceAllString(rest, "")
	for _, scheme := range []string{"http://", "https://"} {
		if i := strings.Index(rest, scheme); i >= 0 {
			t.Errorf("the page names %s outside the report's text: …%s…", scheme, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
}

// chartData parses the page's chart descriptions, checks each series has
// one value per x, and returns each chart's number of x values by id.
func chartData(t *testing.T, page string) map[string]int {
	t.Helper()
	const open = `<script id="mcpbench-data" type="application/json">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no chart data in the page")
	}
	rest := page[i+len(open):]
	raw := rest[:strings.Index(rest, "</script>")]
	var specs []struct {
		ID      string `json:"id"`
		X       []*float64
		Series  []struct{ Y []*float64 }
		Choices []struct{ Y [][]*float64 }
	}
	if err := json.Unmarshal([]byte(raw), &specs); err != nil {
		t.Fatalf("chart data is not JSON: %v", err)
	}
	out := map[string]int{}
	for _, s := range specs {
		if len(s.X) == 0 {
			t.Errorf("chart %s has no x values", s.ID)
		}
		for j, se := range s.Series {
			if len(s.Choices) == 0 && len(se.Y) != len(s.X) {
				t.Errorf("chart %s series %d has %d values for %d x", s.ID, j, len(se.Y), len(s.X))
			}
		}
		for _, c := range s.Choices {
			for _, y := range c.Y {
				if len(y) != len(s.X) {
					t.Errorf("chart %s choice has %d values for %d x", s.ID, len(y), len(s.X))
				}
			}
		}
		out[s.ID] = len(s.X)
	}
	return out
}

// The page's spectrum is the histogram's own percentiles: p50, p90, p99
// and the maximum read off the chart data equal the report's figures.
func TestHTMLSpectrumMatchesHistogram(t *testing.T) {
	r := fixtureRun(t, 1, 20)
	c := pointSpectrum("s", "s", &r.Point)
	at := func(pct float64) float64 {
		for i, x := range c.X {
			if p := 100 * (1 - 1/float64(x)); p >= pct-1e-9 {
				return float64(c.Series[0].Y[i])
			}
		}
		t.Fatalf("grid has no %v%%", pct)
		return 0
	}
	for _, f := range []struct {
		pct  float64
		want float64
	}{{50, r.P50MS}, {90, r.P90MS}, {99, r.P99MS}, {99.9, r.P999MS}} {
		if got := at(f.pct); got != f.want {
			t.Errorf("p%v on the chart %v ms, report %v ms", f.pct, got, f.want)
		}
	}
	last := c.Series[0].Y[len(c.Series[0].Y)-1]
	if float64(last) != r.MaxMS {
		t.Errorf("chart ends at %v ms, max is %v ms", last, r.MaxMS)
	}
	if got, want := float64(c.X[len(c.X)-1]), float64(r.Requests); got != want {
		t.Errorf("grid ends at %v, want the sample size %v", got, want)
	}
}

func TestSpectrumGrid(t *testing.T) {
	xs := spectrumGrid(1000)
	// Five steps per halving: 0, 10, 20, 30, 40, 50, 55 … percent.
	want := []float64{1, 1 / 0.9, 1 / 0.8, 1 / 0.7, 1 / 0.6, 2, 1 / 0.45}
	for _, p := range []float64{0.99, 0.999} {
		if !slices.Contains(xs, 1/(1-p)) {
			t.Errorf("grid lacks p%v", 100*p)
		}
	}
	for i, w := range want {
		if d := float64(xs[i]) - w; d > 1e-9 || d < -1e-9 {
			t.Fatalf("grid[%d] = %v, want %v (grid %v)", i, xs[i], w, xs[:8])
		}
	}
	if xs[len(xs)-1] != 1000 {
		t.Errorf("grid ends at %v, want 1000", xs[len(xs)-1])
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			t.Fatalf("grid not increasing at %d: %v", i, xs[i-1:i+1])
		}
	}
}

func TestLoadAxis(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{1, 2, 4, 8, 16, 32}, axisLog},
		{[]float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, axisLinear},
		{[]float64{1, 2, 4}, axisLinear}, // too narrow a range to need a log axis
		{[]float64{4, 8, 12, 16, 20, 24, 28, 32}, axisLinear},
		{[]float64{1, 2, 4, 6, 8, 10, 12, 16, 24, 32}, axisLog},
	} {
		if got := loadAxis(c.xs); got != c.want {
			t.Errorf("loadAxis(%v) = %s, want %s", c.xs, got, c.want)
		}
	}
}

func TestHTMLEscapesReportText(t *testing.T) {
	r := fixtureRun(t, 1, 20)
	r.Target.ServerName = `<script>alert("x")</script>`
	r.Point.ErrorExamples["timeout"] = `</script><b>bold</b>`
	var b bytes.Buffer
	if err := WriteRunHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `<script>alert`) || strings.Contains(b.String(), `<b>bold</b>`) {
		t.Error("text from the report reached the page as markup")
	}
}

// A ten-minute run at one-second intervals, with the server sampled, is
// a page well under 1 MB: the page carries the chart values, not the
// report's histograms.
func TestHTMLTenMinuteRunSize(t *testing.T) {
	r := fixtureRun(t, 1, 20)
	r.Point.ElapsedS = 600
	r.Point.Series = fixtureSeries(1, 600, 1, r.Point.RPS, 20, true)
	fds := r.Point.Series.Server[1]
	fds.Name = "go_goroutines"
	r.Point.Series.Server = append(r.Point.Series.Server, fds)
	var b bytes.Buffer
	if err := WriteRunHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	charts := chartData(t, b.String())
	if len(charts) != 7 {
		t.Errorf("%d charts, want 7 (3 over time, 3 server, spectrum)", len(charts))
	}
	for _, id := range []string{"over-time-throughput", "over-time-latency", "server-2"} {
		if charts[id] != 600 {
			t.Errorf("chart %s has %d points, want 600", id, charts[id])
		}
	}
	t.Logf("10-minute run: %d bytes of HTML", b.Len())
	if b.Len() >= 1<<20 {
		t.Errorf("the page is %d bytes, want under 1 MiB", b.Len())
	}
}

// The run's Markdown opens like the sweep's (target, start, mcpbench) and
// right-aligns every numeric column.
func TestRunMarkdownGolden(t *testing.T) {
	for name, r := range map[string]*results.RunReport{"run": fixtureRun(t, 1, 20), "run_open": fixtureOpenRun(t)} {
		var md bytes.Buffer
		if err := WriteRunMarkdown(&md, r); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", name+".md.golden"), md.Bytes())
	}
}

// Figures in every unit the reports print are right-aligned; words, marks
// and mixed text are not, and blanks do not decide.
func TestNumericColumns(t *testing.T) {
	rows := [][]string{
		{"12", "0.15%", "+2.00 ms (+20.0%)", "593.6 MB/h", "-128.5/h", "tools/call echo", "✓", "–"},
		{"1,000", "–", "-3.5 (-7.0%)", "0/h", "none", "timeout", "✗", "n/a"},
	}
	got := numericColumns(8, rows)
	want := []bool{true, true, true, true, true, false, false, false}
	if !slices.Equal(got, want) {
		t.Errorf("numericColumns = %v, want %v", got, want)
	}
}
