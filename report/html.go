package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/results"
)

// The HTML report is one file that works offline: the page template, its
// script and style, and the uPlot charting library (MIT, assets/uplot/
// LICENSE) are embedded in the binary and inlined into every page, so the
// page loads nothing from anywhere.
//
//go:embed assets/page.html assets/page.js assets/page.css assets/uplot/uPlot.iife.min.js assets/uplot/uPlot.min.css assets/uplot/LICENSE
var htmlAssets embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"numeric": func(t htmlTable, col int) bool { return col < len(t.Numeric) && t.Numeric[col] },
}).ParseFS(htmlAssets, "assets/page.html"))

// Verdict levels, the colour of the box at the top of the page.
const (
	levelPass = "pass"
	levelWarn = "warn"
	levelFail = "fail"
)

// htmlPage is what the template renders: a verdict, sections of charts and
// tables, and the environment the figures came from.
type htmlPage struct {
	Title    string
	Subtitle string
	Verdict  htmlVerdict
	Sections []htmlSection
	Env      []htmlTable
	// Charts are the data of every chart, read by the page's script.
	Charts []htmlChart
	// Version is the mcpbench that measured (or compared) the figures.
	Version string
}

// htmlVerdict is the plain-words summary at the top.
type htmlVerdict struct {
	Level    string
	Headline string
	Lines    []string
}

// htmlSection is one titled part of the page.
type htmlSection struct {
	ID     string
	Title  string
	Intro  []string
	Charts []*htmlChart
	Tables []htmlTable
}

// htmlTable is a table of text cells; numeric columns are right-aligned.
type htmlTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	Numeric []bool
	// Bad marks rows to highlight (a failed gate, an infeasible point).
	Bad []bool
}

// newTable builds a table and works out which columns hold numbers.
func newTable(caption string, head []string, rows [][]string) htmlTable {
	return htmlTable{Caption: caption, Head: head, Rows: rows, Numeric: numericColumns(len(head), rows)}
}

// keyValues is a two-column table of labelled values.
func keyValues(caption string, pairs [][2]string) htmlTable {
	rows := make([][]string, 0, len(pairs))
	for _, p := range pairs {
		if p[1] != "" {
			rows = append(rows, []string{p[0], p[1]})
		}
	}
	return htmlTable{Caption: caption, Rows: rows}
}

// add appends a section and registers its charts for the script.
func (p *htmlPage) add(s htmlSection) {
	for _, c := range s.Charts {
		p.Charts = append(p.Charts, *c)
	}
	p.Sections = append(p.Sections, s)
}

// pageView is the template's input: the page plus the inlined assets.
type pageView struct {
	*htmlPage
	UPlotJS      template.JS
	UPlotCSS     template.CSS
	UPlotLicense string
	PageJS       template.JS
	PageCSS      template.CSS
}

// writePage renders p as one self-contained HTML document.
func writePage(w io.Writer, p *htmlPage) error {
	read := func(name string) string {
		b, err := htmlAssets.ReadFile("assets/" + name)
		if err != nil { // embedded at build time: cannot happen
			panic(err)
		}
		return string(b)
	}
	v := pageView{
		htmlPage:     p,
		UPlotJS:      template.JS(read("uplot/uPlot.iife.min.js")),
		UPlotCSS:     template.CSS(read("uplot/uPlot.min.css")),
		UPlotLicense: strings.TrimSpace(read("uplot/LICENSE")),
		PageJS:       template.JS(read("page.js")),
		PageCSS:      template.CSS(read("page.css")),
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// WriteRunHTML writes the run report as one self-contained HTML page.
func WriteRunHTML(w io.Writer, r *results.RunReport) error { return writePage(w, runPage(r)) }

// WriteSweepHTML writes the sweep report as one self-contained HTML page.
func WriteSweepHTML(w io.Writer, r *results.SweepReport) error { return writePage(w, sweepPage(r)) }

// WriteCompareHTML writes the comparison as one self-contained HTML page,
// with the two reports' charts overlaid when the comparison carries them.
func WriteCompareHTML(w io.Writer, c *results.Comparison) error {
	return writePage(w, comparePage(c))
}
