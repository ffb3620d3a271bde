package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/browsertest"
)

// The HTML pages are opened in headless Chromium (Debian's package, which
// scripts/install-chromium.sh installs): the page's script marks
// #mcpbench-status when every chart is drawn, lists any error in
// #mcpbench-errors and counts the resources it fetched; the test dumps the
// DOM after load and reads those, plus the browser's own console log.

// chromium and browserFlags are browsertest's.
func chromium(t *testing.T) string { return browsertest.Chromium(t) }

func browserFlags(profile string) []string { return browsertest.Flags(profile) }

// openInBrowser loads file and returns the DOM after load and the
// browser's log.
func openInBrowser(t *testing.T, browser, file string, extra ...string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(browserFlags(t.TempDir()), extra...)
	args = append(args, "file://"+file)
	cmd := exec.CommandContext(ctx, browser, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errb.String())
	}
	return out.String(), errb.String()
}

var (
	statusRE  = regexp.MustCompile(`<div id="mcpbench-status"[^>]*>`)
	attrRE    = regexp.MustCompile(`data-([a-z]+)="([^"]*)"`)
	errorsRE  = regexp.MustCompile(`(?s)<ol id="mcpbench-errors"[^>]*>(.*?)</ol>`)
	consoleRE = regexp.MustCompile(`(?m)^.*:CONSOLE.*$`)
)

// pageStatus reads the marker the page's script leaves.
func pageStatus(t *testing.T, dom string) map[string]string {
	t.Helper()
	tag := statusRE.FindString(dom)
	if tag == "" {
		t.Fatalf("no #mcpbench-status in the DOM:\n%.2000s", dom)
	}
	st := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(tag, -1) {
		st[m[1]] = m[2]
	}
	return st
}

func pageErrors(dom string) string {
	m := errorsRE.FindStringSubmatch(dom)
	if m == nil {
		return "(no #mcpbench-errors list)"
	}
	return strings.TrimSpace(m[1])
}

func TestHTMLInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	for _, c := range append(htmlCases(t), recordedCases(t)...) {
		t.Run(c.name, func(t *testing.T) {
			page := renderCase(t, c)
			checkSelfContained(t, page)
			charts := chartData(t, page)
			file := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, log := openInBrowser(t, browser, file, "--dump-dom")
			if msgs := consoleRE.FindAllString(log, -1); len(msgs) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(msgs, "\n"))
			}
			if errs := pageErrors(dom); errs != "" {
				t.Errorf("errors on the page: %s", errs)
			}
			st := pageStatus(t, dom)
			if st["state"] != "ready" {
				t.Errorf("page state %q, want ready", st["state"])
			}
			if st["charts"] != strconv.Itoa(len(charts)) {
				t.Errorf("%s charts drawn, the page describes %d", st["charts"], len(charts))
			}
			if st["resources"] != "0" {
				t.Errorf("the page fetched %s resources, want none", st["resources"])
			}
			for _, id := range c.charts {
				checkChartDrawn(t, dom, id)
			}
		})
	}
}

// checkChartDrawn finds a chart's container in the DOM and checks uPlot
// drew into it: its root, a canvas and a legend.
func checkChartDrawn(t *testing.T, dom, id string) {
	t.Helper()
	i := strings.Index(dom, `id="chart-`+id+`"`)
	if i < 0 {
		t.Errorf("chart %s: no container in the DOM", id)
		return
	}
	end := strings.Index(dom[i:], "</figure>")
	if end < 0 {
		end = len(dom) - i
	}
	box := dom[i : i+end]
	for _, want := range []string{`class="uplot`, "<canvas", "u-legend", "u-title"} {
		if !strings.Contains(box, want) {
			t.Errorf("chart %s: no %s in what the browser built", id, want)
		}
	}
}

// The checks above can fail: a page whose script hits an error (here, a
// chart without a container) is reported failed, with the error listed.
func TestHTMLInBrowserCatchesErrors(t *testing.T) {
	browser := chromium(t)
	p := runPage(fixtureRun(t, 1, 20))
	p.Charts = append(p.Charts, htmlChart{ID: "nowhere", X: jsNums([]float64{1, 2})})
	var b bytes.Buffer
	if err := writePage(&b, p); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := openInBrowser(t, browser, file, "--dump-dom")
	if st := pageStatus(t, dom); st["state"] != "failed" {
		t.Errorf("page state %q, want failed", st["state"])
	}
	if errs := pageErrors(dom); !strings.Contains(errs, "no container for chart nowhere") {
		t.Errorf("errors listed: %q", errs)
	}
}
