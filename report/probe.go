package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
)

// WriteProbeJSON writes r as indented JSON.
func WriteProbeJSON(w io.Writer, r *results.ProbeReport) error {
	if r.Gates == nil {
		r.Gates = []results.Gate{}
	}
	return writeIndented(w, r)
}

// WriteProbeSummary is the short human summary on stdout.
func WriteProbeSummary(w io.Writer, r *results.ProbeReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "target      %s\n", targetLine(r.Target))
	fmt.Fprintf(&b, "health      %s\n", probeHealthLine(r.Health.HealthSnapshot))
	if d := r.Health.Delta; d != nil && d.CacheHits != nil && d.CacheMisses != nil {
		fmt.Fprintf(&b, "            during the probe: %d cache hits, %d misses%s\n", *d.CacheHits, *d.CacheMisses, probeHitRate(d.WindowHitRatePct))
	}
	tl := &r.ToolsList
	if tl.Error != "" {
		fmt.Fprintf(&b, "tools/list  FAILED: %s\n", tl.Error)
	} else {
		fmt.Fprintf(&b, "tools/list  %d tools, %d page(s), %s, first call %s ms; compaction would save %s (%.1f%%); %d lint finding(s)\n",
			tl.ToolCount, tl.Pages, probeBytes(tl.PayloadBytes), fmtMS(tl.FirstCallMS), probeBytes(tl.CompactionSavingsBytes), tl.CompactionSavingsPct, len(tl.Lint))
	}
	for _, l := range r.Listings {
		if l.Error != "" {
			fmt.Fprintf(&b, "%-11s %s\n", l.Method, l.Error)
			continue
		}
		fmt.Fprintf(&b, "%-11s %d entries, %d page(s), %s", l.Method, l.Count, l.Pages, probeBytes(l.EntriesBytes))
		if l.Largest != "" {
			fmt.Fprintf(&b, ", largest %s (%s)", l.Largest, probeBytes(int64(l.LargestBytes)))
		}
		if l.Unnamed > 0 {
			fmt.Fprintf(&b, "; %d without their identifying field", l.Unnamed)
		}
		b.WriteString("\n")
	}
	if sp := r.SequentialProfile; sp.Count > 0 {
		fmt.Fprintf(&b, "sequential  %d listings: first %s, second %s, min %s, median %s, max %s ms",
			sp.Count, probeOptMS(sp.FirstMS), probeOptMS(sp.SecondMS), fmtMS(sp.MinMS), fmtMS(sp.MedianMS), fmtMS(sp.MaxMS))
		if sp.Errors > 0 {
			fmt.Fprintf(&b, "; %d errors", sp.Errors)
		}
		b.WriteString("\n")
	}
	for _, bp := range []struct {
		name string
		p    *measure.Point
	}{{"small", r.Benchmarks.Small}, {"large", r.Benchmarks.Large}} {
		if bp.p != nil {
			fmt.Fprintf(&b, "bench %-5s %s\n", bp.name, probePointLine(bp.p))
		} else if msg := r.Benchmarks.Errors[bp.name]; msg != "" {
			fmt.Fprintf(&b, "bench %-5s FAILED: %s\n", bp.name, msg)
		}
	}
	if ls := r.LogScan; ls != nil {
		fmt.Fprintf(&b, "log         %s\n", logScanLine(ls))
		if c := LogCoverage(ls.Coverage); c != "" {
			fmt.Fprintf(&b, "            window %s\n", c)
		}
	} else if r.LogScanError != "" {
		fmt.Fprintf(&b, "log         not scanned: %s\n", r.LogScanError)
	}
	for _, g := range r.Gates {
		if !g.Passed {
			fmt.Fprintf(&b, "gate        %s: FAILED (%s, limit %s)\n", g.Name, textfmt.Percent(g.Value), textfmt.Percent(g.Limit))
		}
	}
	if r.Interrupted {
		b.WriteString("INTERRUPTED: the report covers the part measured before the stop\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteProbeMarkdown writes the Markdown report of a probe, one section
// after another.
func WriteProbeMarkdown(w io.Writer, r *results.ProbeReport) error {
	for _, section := range []func(io.Writer, *results.ProbeReport) error{
		probeMarkdownHead, probeMarkdownHealth, probeMarkdownServerInfo, probeMarkdownToolsList,
		probeMarkdownSequential, probeMarkdownBenchmarks, probeMarkdownLog,
	} {
		if err := section(w, r); err != nil {
			return err
		}
	}
	return writeGates(w, r.Gates)
}

func probeMarkdownHead(w io.Writer, r *results.ProbeReport) error {
	var b strings.Builder
	b.WriteString("# mcpbench probe\n\n")
	if r.Interrupted {
		b.WriteString("> **Interrupted:** the report covers what was measured before the stop.\n\n")
	}
	headerMarkdown(&b, &r.Header)
	if si := &r.ServerInfo; si.Negotiation != "" {
		fmt.Fprintf(&b, "- **Negotiation:** %s\n", si.Negotiation)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func probeMarkdownHealth(w io.Writer, r *results.ProbeReport) error {
	if _, err := io.WriteString(w, "\n## Health\n\n"); err != nil {
		return err
	}
	if err := probeHealthTable(w, &r.Health); err != nil {
		return err
	}
	if d := r.Health.Delta; d != nil && len(d.Observability) > 0 {
		fmt.Fprintf(w, "\nObservability during the probe: %s\n", probeKV(d.Observability))
	}
	return nil
}

func probeMarkdownServerInfo(w io.Writer, r *results.ProbeReport) error {
	si := &r.ServerInfo
	var b strings.Builder
	b.WriteString("\n## Server info\n\n")
	fmt.Fprintf(&b, "- **Name / version:** %s\n", textfmt.OrDash(strings.TrimSpace(si.Name+" "+si.Version)))
	fmt.Fprintf(&b, "- **Protocol:** %s over %s\n", textfmt.OrDash(si.ProtocolVersion), textfmt.OrDash(si.Transport))
	if len(si.Capabilities) > 0 {
		fmt.Fprintf(&b, "- **Capabilities:** `%s`\n", si.Capabilities)
	}
	if si.GetInfo != nil {
		fmt.Fprintf(&b, "- **GET %s:** `%s`\n", si.Endpoint, si.GetInfo)
	} else {
		fmt.Fprintf(&b, "- **GET %s:** no server-info document (%s)\n", si.Endpoint, textfmt.OrDash(si.GetInfoError))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// probeMarkdownToolsList is the payload audit: its size, the largest
// tools, the descriptions and the lint findings.
func probeMarkdownToolsList(w io.Writer, r *results.ProbeReport) error {
	tl := &r.ToolsList
	var b strings.Builder
	b.WriteString("\n## tools/list payload\n\n")
	if tl.Error != "" {
		fmt.Fprintf(&b, "> **Listing failed:** %s\n\n", tl.Error)
	}
	d := tl.Descriptions
	fmt.Fprintf(&b, "- **Tools:** %d in %d page(s), %s of result JSON; first call %s ms\n", tl.ToolCount, tl.Pages, probeBytes(tl.PayloadBytes), fmtMS(tl.FirstCallMS))
	fmt.Fprintf(&b, "- **Descriptions:** %d, longest %d characters, mean %.1f; %d over the %d-character cap (%s beyond it)\n",
		d.Count, d.MaxChars, d.MeanChars, d.OverCap, d.Cap, probeBytes(d.CapSavingsBytes))
	fmt.Fprintf(&b, "- **Schema compaction** (annotation keys dropped from inputSchema) would save %s, %.1f%% of the payload\n\n",
		probeBytes(tl.CompactionSavingsBytes), tl.CompactionSavingsPct)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(tl.LargestTools) > 0 {
		io.WriteString(w, "Largest tools:\n\n")
		var rows [][]string
		for _, t := range tl.LargestTools {
			rows = append(rows, []string{"`" + t.Name + "`", fmt.Sprint(t.Bytes), fmt.Sprint(t.InputSchemaBytes), fmt.Sprint(t.DescriptionChars)})
		}
		if err := markdownTable(w, []string{"tool", "bytes", "inputSchema bytes", "description chars"}, rows); err != nil {
			return err
		}
	}
	io.WriteString(w, "\n### Lint\n\n")
	if len(tl.Lint) == 0 {
		io.WriteString(w, "No findings.\n")
		return nil
	}
	var rows [][]string
	for _, f := range tl.Lint {
		rows = append(rows, []string{fmt.Sprint(f.Index), "`" + f.Tool + "`", f.Severity, f.Rule, probeCell(f.Message)})
	}
	return markdownTable(w, []string{"#", "tool", "severity", "rule", "message"}, rows)
}

func probeMarkdownSequential(w io.Writer, r *results.ProbeReport) error {
	sp := r.SequentialProfile
	fmt.Fprintf(w, "\n## Sequential profile\n\n%d listings, %s ms apart, in the order sent (the first is the cold one).\n\n", sp.Count, textfmt.Float(sp.SleepMS))
	if sp.Count == 0 {
		return nil
	}
	head := []string{"first ms", "second ms", "min ms", "median ms", "mean ms", "max ms", "errors"}
	rows := [][]string{{probeOptMS(sp.FirstMS), probeOptMS(sp.SecondMS), fmtMS(sp.MinMS), fmtMS(sp.MedianMS), fmtMS(sp.MeanMS), fmtMS(sp.MaxMS), fmt.Sprint(sp.Errors)}}
	if err := markdownTable(w, head, rows); err != nil {
		return err
	}
	samples := make([]string, len(sp.SamplesMS))
	for i, v := range sp.SamplesMS {
		samples[i] = probeOptMS(v)
	}
	fmt.Fprintf(w, "\nSamples (ms): %s\n", strings.Join(samples, ", "))
	return nil
}

func probeMarkdownBenchmarks(w io.Writer, r *results.ProbeReport) error {
	io.WriteString(w, "\n## Benchmarks (tools/list, closed loop)\n\n")
	var rows [][]string
	for _, bp := range []struct {
		name string
		p    *measure.Point
	}{{"small", r.Benchmarks.Small}, {"large", r.Benchmarks.Large}} {
		p := bp.p
		switch {
		case p != nil:
			rows = append(rows, []string{bp.name, fmt.Sprint(p.Concurrency), fmt.Sprint(p.Requests), fmt.Sprint(p.Errors), fmt.Sprintf("%.1f", p.RPS),
				fmtMS(p.P50MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.MaxMS)})
		case r.Benchmarks.Errors[bp.name] != "":
			rows = append(rows, []string{bp.name, "", "", "", "", "", "", "", probeCell("failed: " + r.Benchmarks.Errors[bp.name])})
		default:
			rows = append(rows, []string{bp.name, "", "", "", "", "", "", "", "skipped"})
		}
	}
	return markdownTable(w, []string{"run", "concurrency", "requests", "errors", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms"}, rows)
}

func probeMarkdownLog(w io.Writer, r *results.ProbeReport) error {
	io.WriteString(w, "\n## Server log\n\n")
	switch ls := r.LogScan; {
	case ls != nil:
		return logScanTable(w, ls)
	case r.LogScanError != "":
		fmt.Fprintf(w, "Not scanned: %s\n", probeCell(r.LogScanError))
	default:
		io.WriteString(w, "Not scanned (no --log-file).\n")
	}
	return nil
}

// logScanTable is a log window's figures in Markdown: where, then the
// counters' deltas.
func logScanTable(w io.Writer, ls *logscan.WindowScan) error {
	fmt.Fprintf(w, "`%s`, bytes %d to %d: %d stats line(s), baseline %s.\n\n", ls.Path, ls.Window.StartOffset, ls.Window.EndOffset, ls.StatsLines, ls.Baseline)
	if c := LogCoverage(ls.Coverage); c != "" {
		fmt.Fprintf(w, "Window %s.\n\n", c)
	}
	rows := [][]string{{fmt.Sprint(ls.Delta.Requests), fmt.Sprint(ls.Delta.CacheHits), fmt.Sprint(ls.Delta.CacheMisses),
		probeOptPct(ls.WindowHitRatePct), fmt.Sprint(ls.Delta.BuildCount), fmt.Sprint(ls.Delta.BuildFailures)}}
	return markdownTable(w, []string{"requests", "cache hits", "cache misses", "hit rate", "builds", "build failures"}, rows)
}

// probeHealthTable has a row for the snapshot before, the one after, and the
// change between them.
func probeHealthTable(w io.Writer, h *probe.Health) error {
	head, rows := healthRows(h)
	fmt.Fprintf(w, "`%s`\n\n", h.URL)
	return markdownTable(w, head, rows)
}

// healthRows are the Markdown cells of the health table.
func healthRows(h *probe.Health) (head []string, rows [][]string) {
	row := func(name string, s probe.HealthSnapshot) []string {
		status := "–"
		if s.StatusCode != 0 {
			status = fmt.Sprint(s.StatusCode)
		}
		r := []string{name, probeYesNo(s.OK), status, fmtMS(s.LatencyMS), "", "", "", probeCell(s.Error)}
		if c := s.Cache; c != nil {
			r[4], r[5], r[6] = probeOptInt(c.Hits), probeOptInt(c.Misses), probeOptPct(c.HitRatePct)
		}
		return r
	}
	rows = [][]string{row("before", h.HealthSnapshot)}
	if h.After != nil {
		rows = append(rows, row("after", *h.After))
	}
	if d := h.Delta; d != nil {
		rows = append(rows, []string{"change", "", "", "", probeSigned(d.CacheHits), probeSigned(d.CacheMisses), probeOptPct(d.WindowHitRatePct), ""})
	}
	return []string{"snapshot", "ok", "status", "latency ms", "cache hits", "cache misses", "hit rate", "note"}, rows
}

func probeHealthLine(s probe.HealthSnapshot) string {
	if !s.OK {
		return fmt.Sprintf("not ok (%s)", textfmt.OrDash(s.Error))
	}
	line := fmt.Sprintf("ok, HTTP %d in %s ms", s.StatusCode, fmtMS(s.LatencyMS))
	if c := s.Cache; c != nil && c.HitRatePct != nil {
		line += fmt.Sprintf(", cache hit rate %.1f%%", *c.HitRatePct)
	}
	return line
}

func probePointLine(p *measure.Point) string {
	return fmt.Sprintf("c=%d  %d requests, %d errors (%s), %.1f rps, p50 %s p95 %s p99 %s max %s ms",
		p.Concurrency, p.Requests, p.Errors, textfmt.Percent(p.ErrorRate), p.RPS, fmtMS(p.P50MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.MaxMS))
}

func probeKV(m map[string]float64) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %+g", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func probeBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func probeOptMS(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmtMS(*v)
}

func probeOptPct(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", *v)
}

func probeHitRate(v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(" (hit rate %.1f%%)", *v)
}

func probeOptInt(v *int64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprint(*v)
}

func probeSigned(v *int64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%+d", *v)
}

func probeYesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// probeCell keeps a message on one table row.
func probeCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}
