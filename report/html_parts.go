package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
)

// Parts of the HTML page that run, sweep and compare pages share.

// startedText is a report's start time as every report prints it.
func startedText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// headerEnv is the environment a report header records: who measured,
// when, and which server answered.
func headerEnv(h *results.Header) []htmlTable {
	t := h.Target
	return []htmlTable{
		keyValues("Measured by", [][2]string{
			{"mcpbench", textfmt.OrDash(h.MCPBenchVersion)},
			{"started", startedText(h.StartedAt)},
			{"report schema", h.Schema},
		}),
		keyValues("Target", [][2]string{
			{"URL", textfmt.OrDash(t.URL)},
			{"transport", t.Transport},
			{"protocol revision", t.ProtocolVersion},
			{"server", strings.TrimSpace(t.ServerName + " " + t.ServerVersion)},
		}),
	}
}

// workloadEnv describes what was sent and how; p may be nil (a sweep's
// levels vary, so it has no single load).
func workloadEnv(w *results.Workload, p *measure.Point) htmlTable {
	var kv [][2]string
	if p != nil {
		kv = append(kv, [2]string{"load", loadText(p)})
	}
	if w != nil {
		kv = append(kv,
			[2]string{"loop", w.Mode},
			[2]string{"operations", results.OperationsLine(w.Operations)},
			[2]string{"warm-up requests", strconv.FormatInt(w.Warmup, 10)},
			[2]string{"session", w.Session},
		)
		if w.DurationS > 0 {
			kv = append(kv, [2]string{"duration", textfmt.Float(w.DurationS) + " s"})
		}
	}
	if p != nil && p.Total > 0 {
		kv = append(kv, [2]string{"total requests asked", strconv.FormatInt(p.Total, 10)})
	}
	return keyValues("Workload", kv)
}

// loadText is a point's load in words.
func loadText(p *measure.Point) string {
	if p.Sessions != nil { // a scenario's load is users, not workers
		return sessionLoadLine(p)
	}
	if p.Rate != nil {
		return fmt.Sprintf("open loop, %s requests/s offered, at most %d in flight", textfmt.Float(*p.Rate), p.Concurrency)
	}
	return fmt.Sprintf("closed loop, %d workers", p.Concurrency)
}

// clientEnv is the generator's own figures.
func clientEnv(c measure.ClientStats) htmlTable {
	sat := "no"
	if c.Saturated {
		sat = "yes: " + c.SaturationReason
	}
	return keyValues("Client", [][2]string{
		{"engine", c.Engine},
		{"connection pool", strconv.Itoa(c.PoolMaxConns) + " connections"},
		{"requests that waited for a connection", strconv.FormatInt(c.PoolWaits, 10)},
		{"connections opened", strconv.FormatInt(c.Dials, 10)},
		{"generator CPU", fmt.Sprintf("%.2f s", c.CPUS)},
		{"generator saturated", sat},
	})
}

// shardEnv says which shard a report is, or what a merge put together.
func shardEnv(s *results.Shard, m *results.MergeInfo) []htmlTable {
	var out []htmlTable
	if s != nil {
		out = append(out, keyValues("Shard", [][2]string{{"shard", fmt.Sprintf("%d of %d", s.Index, s.Count)}}))
	}
	if m != nil {
		out = append(out, keyValues("Merged", [][2]string{
			{"reports merged", strconv.Itoa(m.Reports)},
			{"shards", shardsText(m.Shards)},
			{"missing shards", intsText(m.Missing)},
			{"notes", strings.Join(m.Notes, "; ")},
		}))
	}
	return out
}

func shardsText(ss []results.Shard) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("%d/%d", s.Index, s.Count)
	}
	return strings.Join(parts, ", ")
}

func intsText(v []int) string {
	if len(v) == 0 {
		return ""
	}
	return intsOrNone(v)
}

// warn adds a line a reader should heed before trusting the figures,
// turning a pass into a warning.
func (v *htmlVerdict) warn(line string) {
	v.Lines = append(v.Lines, line)
	if v.Level == levelPass {
		v.Level = levelWarn
	}
}

// addMerge says what a merge put together; missing shards are a warning.
func (v *htmlVerdict) addMerge(m *results.MergeInfo) {
	if m == nil {
		return
	}
	v.Lines = append(v.Lines, fmt.Sprintf("Merged from %d reports; the histograms are merged exactly.", m.Reports))
	if len(m.Missing) > 0 {
		v.warn("Shards " + intsOrNone(m.Missing) + " are missing: the figures cover only the shards present.")
	}
	v.Lines = append(v.Lines, m.Notes...)
}

// serverSection shows what the server itself reported: its /health before
// and after, and its stats log over the window. Nil when neither was
// asked for.
func serverSection(h *probe.Health, ls *logscan.WindowScan) *htmlSection {
	if h == nil && ls == nil {
		return nil
	}
	s := &htmlSection{ID: "server", Title: "Server side"}
	if h != nil {
		head, rows := healthRows(h)
		for _, r := range rows {
			for i := range r {
				r[i] = plainCell(r[i])
			}
		}
		s.Tables = append(s.Tables, newTable("Health endpoint "+h.URL, head, rows))
	}
	if ls != nil {
		s.Tables = append(s.Tables, keyValues("Stats log over the measured window", logscanFigures(ls)))
	}
	return s
}

// latencyTable is a point's latency figures, with a second row measured
// from the actual send for an open loop.
func latencyTable(p *measure.Point) htmlTable {
	head := []string{"latency", "min ms", "mean ms", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "p99.9 ms", "max ms"}
	first := "all requests"
	if p.Uncorrected != nil {
		first = "from intended send"
	}
	rows := [][]string{{first, fmtMS(p.MinMS), fmtMS(p.MeanMS), fmtMS(p.P50MS), fmtMS(p.P90MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.P999MS), fmtMS(p.MaxMS)}}
	if u := p.Uncorrected; u != nil {
		rows = append(rows, []string{"from actual send", "–", "–", fmtMS(u.P50MS), "–", fmtMS(u.P95MS), fmtMS(u.P99MS), "–", fmtMS(u.MaxMS)})
	}
	return newTable("Latency", head, rows)
}

// countsTable is a point's request counts and rates.
func countsTable(p *measure.Point) htmlTable {
	head := []string{"requests", "ok", "errors", "error rate", "elapsed", "rps"}
	row := []string{strconv.FormatInt(p.Requests, 10), strconv.FormatInt(p.OK, 10), strconv.FormatInt(p.Errors, 10),
		textfmt.Percent(p.ErrorRate), fmt.Sprintf("%.2f s", p.ElapsedS), fmt.Sprintf("%.1f", p.RPS)}
	if p.Rate != nil {
		head = append(head, "offered rps", "unsent")
		row = append(row, textfmt.Float(*p.Rate), strconv.FormatInt(p.Unsent, 10))
	}
	head = append(head, "bytes sent", "bytes received")
	row = append(row, strconv.FormatInt(p.BytesSent, 10), strconv.FormatInt(p.BytesReceived, 10))
	return newTable("Requests", head, [][]string{row})
}

// operationsTable is a mix's figures per operation (method and tool).
func operationsTable(level string, ops []measure.OperationStats) ([]string, [][]string) {
	head := []string{"operation", "requests", "errors", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms"}
	if level != "" {
		head = append([]string{"level"}, head...)
	}
	var rows [][]string
	for _, o := range ops {
		row := []string{results.OperationName(o.Operation), strconv.FormatInt(o.Requests, 10), strconv.FormatInt(o.Errors, 10),
			fmt.Sprintf("%.1f", o.RPS), fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS), fmtMS(o.MaxMS)}
		if level != "" {
			row = append([]string{level}, row...)
		}
		rows = append(rows, row)
	}
	return head, rows
}

// errorsTable is a point's errors by kind with the first message of each.
func errorsTable(p *measure.Point) htmlTable {
	var rows [][]string
	for _, k := range sortedKeys(p.ErrorsByKind) {
		n := p.ErrorsByKind[k]
		share := 0.0
		if p.Requests > 0 {
			share = float64(n) / float64(p.Requests)
		}
		rows = append(rows, []string{k, strconv.FormatInt(n, 10), textfmt.Percent(share), p.ErrorExamples[k]})
	}
	return newTable("Errors by kind", []string{"kind", "count", "share of requests", "first example"}, rows)
}

// errorsLine is the errors of a point in a few words: "12 errors (0.3%):
// timeout 10, jsonrpc 2".
func errorsLine(p *measure.Point) string {
	if p.Errors == 0 {
		return "No request failed."
	}
	parts := make([]string, 0, len(p.ErrorsByKind))
	for _, k := range sortedKeys(p.ErrorsByKind) {
		parts = append(parts, fmt.Sprintf("%s %d", k, p.ErrorsByKind[k]))
	}
	return fmt.Sprintf("%d of %d requests failed (%s): %s.", p.Errors, p.Requests, textfmt.Percent(p.ErrorRate), strings.Join(parts, ", "))
}

// plainCell drops the Markdown emphasis and escapes of a cell the
// Markdown writers made, for an HTML table.
var plainCell = strings.NewReplacer("**", "", `\|`, "|").Replace

// newSpectrumChart is an empty percentile-spectrum chart over the grid
// xs, with the note that explains how to read it.
func newSpectrumChart(xs []float64, open bool) *htmlChart {
	note := "HdrHistogram percentile distribution: the x axis is 1/(1−p) on a log scale, so each step right is ten times rarer (90%, 99%, 99.9% …); the line ends at the maximum."
	if open {
		note += " From the intended send counts the time a request waited for its turn on the schedule; from the actual send leaves it out, which is how a closed-loop tool would report it (coordinated omission). The space between the two lines is that waiting."
	}
	return &htmlChart{ID: "spectrum", Title: "Latency by percentile", X: jsNums(xs), XAxis: axisPercentile, XLabel: "percentile", YLabel: "latency (ms)", Note: note}
}
