package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/sweep*.golden from the current output")
	pngDir = flag.String("sweep-png", "", "also write the fixture charts as PNG into this directory, to look at")
)

// fixtureSweep is a server with 8 handler slots and a 20 ms service time:
// throughput min(c,8)·50 rps, latency c·20/8 ms above capacity, and a few
// timeouts once the queue is long. Fixed figures, so the golden is stable.
func fixtureSweep() *results.SweepReport {
	type row struct {
		c        int
		rps      float64
		p50, p95 float64
		errs     int64
	}
	rows := []row{
		{1, 49.6, 20.1, 21.9, 0}, {2, 99.1, 20.2, 22.4, 0}, {4, 197.8, 20.3, 23.0, 0},
		{6, 296.0, 20.4, 24.1, 0}, {8, 392.5, 20.6, 26.8, 0}, {10, 398.7, 25.3, 33.9, 0},
		{12, 399.4, 30.2, 41.7, 0}, {16, 400.1, 40.1, 55.6, 0}, {24, 399.0, 60.4, 82.3, 2},
		{32, 396.2, 80.8, 110.4, 9},
	}
	var pts []measure.Point
	for _, r := range rows {
		p := measure.Point{Concurrency: r.c, Total: 1000, RPS: r.rps, ElapsedS: 1000 / r.rps}
		p.Requests, p.Errors = 1000, r.errs
		p.OK = p.Requests - p.Errors
		p.ErrorRate = float64(r.errs) / 1000
		if r.errs > 0 {
			p.ErrorsByKind = map[string]int64{"timeout": r.errs}
		}
		p.MinMS, p.MeanMS, p.P50MS, p.P90MS, p.P95MS = 19.8, r.p50*1.02, r.p50, r.p95*0.95, r.p95
		p.P99MS, p.P999MS, p.MaxMS = r.p95*1.25, r.p95*1.5, r.p95*1.8
		pts = append(pts, p)
	}
	h := results.Header{
		MCPBenchVersion: "v0.1.0-test",
		StartedAt:       time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Target: results.Target{URL: "http://127.0.0.1:3002/mcp", Transport: "http", ProtocolVersion: "2025-06-18",
			ServerName: "mcpbench-target", ServerVersion: "0.1.0"},
	}
	return results.NewSweepReport(h, pts, sweep.SLO{P95MS: 50, P99MS: 70})
}

func fixtureRateSweep() *results.SweepReport {
	var pts []measure.Point
	for _, r := range []struct{ rate, rps, p95 float64 }{
		{50, 50, 22}, {100, 100, 23}, {200, 199.6, 26}, {300, 298.9, 31}, {400, 391.0, 180}, {600, 402.3, 2400},
	} {
		rate := r.rate
		p := measure.Point{Rate: &rate, RPS: r.rps}
		p.Requests, p.OK = 1000, 1000
		p.P50MS, p.P95MS, p.P99MS, p.MaxMS = 20.5, r.p95, r.p95*1.3, r.p95*2
		pts = append(pts, p)
	}
	return results.NewSweepReport(results.Header{Target: results.Target{URL: "http://127.0.0.1:3002/mcp"}}, pts, sweep.SLO{P95MS: 50, P99MS: 100})
}

func TestSweepReportJSON(t *testing.T) {
	r := fixtureSweep()
	var buf bytes.Buffer
	if err := WriteSweepJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	// Every top-level key the contract names, each exactly once.
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"schema", "mcpbench_version", "started_at", "target", "slo", "points", "summary", "knee", "usl", "recommendation", "gates"}
	if !slices.Equal(keys, want) {
		t.Errorf("top-level keys %v, want %v", keys, want)
	}

	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["schema"] != results.SchemaSweep {
		t.Errorf("schema %v", m["schema"])
	}
	pt := m["points"].([]any)[0].(map[string]any)
	for _, k := range []string{"concurrency", "rate", "requests", "ok", "errors", "error_rate", "rps", "p50_ms", "p95_ms", "p99_ms", "max_ms"} {
		if _, ok := pt[k]; !ok {
			t.Errorf("points[0] lacks %q", k)
		}
	}
	checkKeys(t, m, "slo", "p95_ms", "p99_ms", "max_error_rate")
	checkKeys(t, m, "summary", "point_count", "error_total", "peak_rps", "peak_concurrency")
	checkKeys(t, m, "knee", "concurrency", "method")
	checkKeys(t, m, "usl", "sigma", "kappa", "lambda", "peak_concurrency", "peak_rps", "r2")
	checkKeys(t, m, "recommendation", "recommended_concurrency", "max_feasible_concurrency", "feasible_concurrency", "knee_concurrency", "max_sustainable_rps", "reason")
	rec := m["recommendation"].(map[string]any)
	if rec["recommended_concurrency"] != 8.0 || rec["knee_concurrency"] != 8.0 || rec["max_feasible_concurrency"] != 12.0 {
		t.Errorf("recommendation %v", rec)
	}

	// Round trip, and refusal of another report kind.
	back, err := results.ReadSweepReport(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Points) != len(r.Points) || *back.Recommendation.RecommendedConcurrency != 8 || back.Target.URL != r.Target.URL {
		t.Errorf("round trip lost data: %+v", back.Recommendation)
	}
	if _, err := results.ReadSweepReport(strings.NewReader(`{"schema":"mcpbench.run/v1"}`)); err == nil {
		t.Error("read a run report as a sweep report")
	}

	// Interrupted appears only when set.
	r.Interrupted = true
	buf.Reset()
	if err := WriteSweepJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"interrupted": true`) {
		t.Error("interrupted not written")
	}
}

func checkKeys(t *testing.T, m map[string]any, obj string, keys ...string) {
	t.Helper()
	o, ok := m[obj].(map[string]any)
	if !ok {
		t.Errorf("%s is %T, want an object", obj, m[obj])
		return
	}
	for _, k := range keys {
		if _, ok := o[k]; !ok {
			t.Errorf("%s lacks %q", obj, k)
		}
	}
}

func TestSweepMarkdownGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    *results.SweepReport
	}{
		{"sweep_concurrency", fixtureSweep()},
		{"sweep_rate", fixtureRateSweep()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var md bytes.Buffer
			if err := WriteSweepMarkdown(&md, tt.r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".md.golden"), md.Bytes())
			var txt bytes.Buffer
			if err := WriteSweepTable(&txt, tt.r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".txt.golden"), txt.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run Sweep -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestSweepMarkdownEmpty(t *testing.T) {
	r := results.NewSweepReport(results.Header{}, nil, sweep.SLO{})
	var buf bytes.Buffer
	if err := WriteSweepMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweepTable(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no points were measured") {
		t.Errorf("empty report:\n%s", buf.String())
	}
}

func TestSweepSVG(t *testing.T) {
	for _, tt := range []struct {
		name  string
		r     *results.SweepReport
		texts []string
	}{
		{"concurrency", fixtureSweep(), []string{"Throughput", "rps", "USL fit", "p50", "p95", "p99", "p95 SLO 50 ms", "p99 SLO 70 ms", "knee = recommended 8", "concurrency", "misses SLO"}},
		{"rate", fixtureRateSweep(), []string{"Offered and achieved rate", "achieved", "offered", "p95 SLO 50 ms", "max sustainable 298.9"}},
		{"even rate", fixtureEvenRateSweep(), []string{"100", "200", "300", "400", "500", "600", "700", "800", "900", "1000", "p99 SLO 90 ms"}},
		{"knee at edge", fixtureKneeAtEdge(), []string{"knee = recommended 8", "p99 SLO 90 ms"}},
		{"empty", results.NewSweepReport(results.Header{}, nil, sweep.SLO{P95MS: 10}), []string{"Throughput"}},
		{"one point", results.NewSweepReport(results.Header{}, fixtureSweep().Points[:1], sweep.SLO{P95MS: 10}), []string{"knee 1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSweepSVG(&buf, tt.r); err != nil {
				t.Fatal(err)
			}
			texts, paths := parseSVG(t, buf.Bytes())
			all := strings.Join(texts, "\n")
			for _, want := range tt.texts {
				if !strings.Contains(all, want) {
					t.Errorf("SVG has no text %q; texts: %q", want, texts)
				}
			}
			if paths < 10 {
				t.Errorf("only %d paths drawn", paths)
			}
			if *pngDir != "" {
				f, err := os.Create(filepath.Join(*pngDir, "sweep_"+tt.name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := writeSweepPNG(f, tt.r); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(*pngDir, "sweep_"+tt.name+".svg"), buf.Bytes(), 0o644)
			}
		})
	}
}

// parseSVG checks the document is well-formed XML with an <svg> root and
// returns its text runs and how many paths it draws.
func parseSVG(t *testing.T, b []byte) (texts []string, paths int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root, inText := "", false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			switch el.Name.Local {
			case "path":
				paths++
			case "text":
				inText = true
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts, paths
}

func TestSweepSVGNonFinite(t *testing.T) {
	r := fixtureSweep()
	r.Points[3].RPS = math.NaN()
	r.Points[4].P95MS = math.Inf(1)
	var buf bytes.Buffer
	if err := WriteSweepSVG(&buf, r); err != nil {
		t.Fatal(err)
	}
	parseSVG(t, buf.Bytes())
}

// fixtureEvenRateSweep is a rate sweep of evenly spaced rates, 100 to
// 1000 rps, that keeps up to 700.
func fixtureEvenRateSweep() *results.SweepReport {
	var pts []measure.Point
	for rate := 100.0; rate <= 1000; rate += 100 {
		r := rate
		p := measure.Point{Rate: &r, RPS: min(rate, 720)}
		p.Requests, p.OK = 1000, 1000
		p.P50MS, p.P95MS, p.P99MS, p.MaxMS = 12, 20+rate/50, 30+rate/40, 80
		if rate > 700 {
			p.P95MS, p.P99MS = rate, rate*1.5
		}
		pts = append(pts, p)
	}
	return results.NewSweepReport(results.Header{Target: results.Target{URL: "http://127.0.0.1:3002/mcp"}}, pts, sweep.SLO{P95MS: 60, P99MS: 90})
}

// fixtureKneeAtEdge is a sweep whose knee and recommendation are the
// highest concurrency measured, where a label right of the line would
// leave the plot.
func fixtureKneeAtEdge() *results.SweepReport {
	r := fixtureSweep()
	pts := r.Points[:5] // 1 … 8, still scaling
	return results.NewSweepReport(r.Header, pts, sweep.SLO{P95MS: 50, P99MS: 90})
}

// svgText is one <text> of an SVG with where it starts.
type svgText struct {
	text     string
	x, size  float64
	fontFree bool // no generic family in its font-family
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

func svgTexts(t *testing.T, b []byte) (texts []svgText, width float64) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var cur *svgText
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return texts, width
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch el.Name.Local {
			case "svg":
				var x0, y0, h float64
				fmt.Sscanf(attr["viewBox"], "%g %g %g %g", &x0, &y0, &width, &h)
			case "text":
				cur = &svgText{fontFree: !strings.Contains(attr["style"], "sans-serif")}
				cur.x, _ = strconv.ParseFloat(attr["x"], 64)
				if m := fontSizeRE.FindStringSubmatch(attr["style"]); m != nil {
					cur.size, _ = strconv.ParseFloat(m[1], 64)
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(el)
			}
		case xml.EndElement:
			if el.Name.Local == "text" && cur != nil {
				texts = append(texts, *cur)
				cur = nil
			}
		}
	}
}

// The complaints about the chart, checked on the SVG itself: every
// text names a generic font family after Liberation Sans, no text runs
// past the right edge, and the SLO, knee and recommendation labels stay
// left of the legend column, inside the plots.
func TestSweepSVGLayout(t *testing.T) {
	for _, r := range []*results.SweepReport{fixtureSweep(), fixtureRateSweep(), fixtureEvenRateSweep(), fixtureKneeAtEdge()} {
		var buf bytes.Buffer
		if err := WriteSweepSVG(&buf, r); err != nil {
			t.Fatal(err)
		}
		texts, width := svgTexts(t, buf.Bytes())
		legendX := width - legendColumn.Points()
		for _, tx := range texts {
			if tx.fontFree {
				t.Errorf("%q: no generic font family", tx.text)
			}
			// Half an em per character is Liberation Sans's average width.
			end := tx.x + 0.5*tx.size*float64(utf8.RuneCountInString(tx.text))
			if end > width {
				t.Errorf("%q ends at %.0f, past the edge %.0f", tx.text, end, width)
			}
			annotation := strings.Contains(tx.text, "SLO") || strings.Contains(tx.text, "knee") ||
				strings.Contains(tx.text, "recommended") || strings.Contains(tx.text, "sustainable")
			if annotation && tx.x < legendX && end > legendX {
				t.Errorf("%q runs from the plot into the legend column (%.0f to %.0f, column at %.0f)", tx.text, tx.x, end, legendX)
			}
		}
	}
}

// A rate sweep's load axis is linear: evenly spaced rates get evenly
// spaced ticks, every one labelled.
func TestSweepSVGRateAxisLinear(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSweepSVG(&buf, fixtureEvenRateSweep()); err != nil {
		t.Fatal(err)
	}
	texts, _ := svgTexts(t, buf.Bytes())
	var xs []float64
	for _, tx := range texts {
		if v, err := strconv.Atoi(tx.text); err == nil && v >= 100 && v%100 == 0 && len(xs) < 10 {
			xs = append(xs, tx.x+0.25*tx.size*float64(len(tx.text))) // label centre
		}
	}
	if len(xs) != 10 {
		t.Fatalf("%d rate labels on the first axis, want 10 (100 … 1000)", len(xs))
	}
	first, last := xs[1]-xs[0], xs[9]-xs[8]
	if math.Abs(first-last) > 2 {
		t.Errorf("tick spacing %.1f at the low end, %.1f at the high end: not a linear axis", first, last)
	}
}

// TestSweepSaysWhatToDistrust: saturated points, a point cut short and the
// gates are in the terminal table and in the Markdown (issue 19, points 4,
// 6 and 14).
func TestSweepSaysWhatToDistrust(t *testing.T) {
	r := fixtureSweep()
	for _, i := range []int{8, 9} {
		r.Points[i].Client.Saturated = true
		r.Points[i].Client.SaturationReason = "the generator was short of CPU"
	}
	r.Points[9].Interrupted = true
	r.Gates = []results.Gate{{Name: "points_meeting_slo", Limit: 1, Value: 7, Passed: true}}
	var txt, md bytes.Buffer
	if err := WriteSweepTable(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweepMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	note := "the generator was saturated at concurrency 24, 32 (at concurrency 24: the generator was short of CPU): those points describe mcpbench, not the server"
	for name, out := range map[string]string{"table": txt.String(), "markdown": md.String()} {
		for _, want := range []string{"WARNING", "T" + note[1:], "cut short", "The point at concurrency 32 was cut short by the interrupt", "points_meeting_slo"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	if r.SaturationNote() != note {
		t.Errorf("note %q", r.SaturationNote())
	}
}
