package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/abstat"
	"github.com/mcpbench/mcpbench/results"
)

// ABFormats are the formats of an A/B report, in the order `mcpbench ab`
// writes them.
var ABFormats = []Format[*results.ABReport]{
	{FormatJSON, WriteABJSON},
	{FormatMarkdown, WriteABMarkdown},
	{FormatHTML, WriteABHTML},
	{FormatJUnit, WriteABJUnit},
	{FormatSummary, WriteABSummary},
}

// WriteABJSON writes the A/B report as indented JSON.
func WriteABJSON(w io.Writer, r *results.ABReport) error { return writeIndented(w, r) }

// abMetricNames are the metrics as people read them.
var abMetricNames = map[abstat.Metric]string{
	abstat.Throughput: "throughput", abstat.P50: "p50", abstat.P95: "p95", abstat.P99: "p99",
	abstat.ErrorRate: "error rate", abstat.ServerCPUPerRequest: "server CPU per request",
}

// abHeadline is the outcome in one line.
func abHeadline(r *results.ABReport) string {
	regs := 0
	for _, v := range r.Verdicts {
		if v.Verdict == abstat.Regression && r.Gated(v.Metric) {
			regs++
		}
	}
	switch {
	case regs > 0:
		return fmt.Sprintf("B regressed on %d gated metric(s)", regs)
	case r.Inconclusive():
		return "inconclusive: a gated metric is undecided"
	}
	return "no regression of B against A on the gated metrics"
}

// abStopText says why the experiment stopped.
func abStopText(r *results.ABReport) string {
	why := map[string]string{
		ab.StopDecided: "every gated metric decided", ab.StopMaxRounds: "the last round of the plan",
		ab.StopBudget: "the time budget spent", ab.StopInterrupted: "interrupted", ab.StopFailed: "a measurement failed",
	}[r.Stopped]
	return fmt.Sprintf("%d rounds in %.0f s, stopped: %s", len(r.Rounds), r.Seconds, why)
}

// abChange is a change with its interval in percent: "+5.1% [+3.0%, +7.2%]".
func abChange(v abstat.Result) string {
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*v.Change, 100*v.Low, 100*v.High)
}

// abVerdictRows are the verdict table's rows: metric, verdict, change and
// interval, p-value, rounds, gated.
func abVerdictRows(r *results.ABReport) [][]string {
	var rows [][]string
	for _, v := range r.Verdicts {
		gated := ""
		if r.Gated(v.Metric) {
			gated = "yes"
		}
		rows = append(rows, []string{string(v.Metric), strings.ReplaceAll(string(v.Verdict), "_", " "),
			abChange(v), fmt.Sprintf("%.3g", v.P), fmt.Sprintf("%.3g", v.Alpha), fmt.Sprint(v.Rounds), gated})
	}
	return rows
}

var abVerdictHead = []string{"metric", "verdict", "change B/A − 1 [interval]", "p", "level", "rounds", "gated"}

// abPlanLine says the plan, with alpha per metric.
func abPlanLine(r *results.ABReport) string {
	p := r.Settings.Plan
	mode := "interleaved in random order"
	switch {
	case r.Settings.Duet:
		mode = "duet: A and B at the same time"
	case r.Settings.SliceSeconds > 0:
		mode = fmt.Sprintf("interleaved in random order, each round in turns of %s", time.Duration(r.Settings.SliceSeconds*float64(time.Second)))
	}
	if r.Settings.Restarted {
		mode += ", servers started afresh each round"
	}
	rounds := fmt.Sprintf("rounds %d to %d", p.MinRounds, p.MaxRounds)
	if asked := r.Settings.AskedRounds; asked > 0 {
		rounds += fmt.Sprintf(" (of %d asked: what the budget holds)", asked)
	}
	if r.Settings.CannotAlarm {
		rounds += ", too few to find any regression at this alpha: give a longer --budget"
	}
	return fmt.Sprintf("alpha %.3g for the gate (each of %d gated metrics tested at %.3g), no-change alpha %.3g, minimum effect %.3g%%, %s, %s, seed %d",
		p.Alpha, len(r.Settings.Gated), r.Settings.AlarmAlpha, p.NoChangeAlpha, 100*p.MinEffect, rounds, mode, r.Seed)
}

// WriteABMarkdown writes the A/B report for a CI summary: the outcome,
// the verdict table and the rounds.
func WriteABMarkdown(w io.Writer, r *results.ABReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcpbench ab: %s\n\n", abHeadline(r))
	fmt.Fprintf(&b, "A: `%s`  \nB: `%s`  \n%s; %s.  \n%s.\n\n", r.A.URL, r.B.URL, r.Workload, abStopText(r), abPlanLine(r))
	if r.Error != "" {
		fmt.Fprintf(&b, "**Error:** %s\n\n", r.Error)
	}
	if err := markdownTable(&b, abVerdictHead, abVerdictRows(r)); err != nil {
		return err
	}
	b.WriteString("\n<details><summary>Rounds (in run order)</summary>\n\n")
	if err := markdownTable(&b, abRoundHead(), abRoundRows(r)); err != nil {
		return err
	}
	b.WriteString("\n</details>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// abRoundHead and abRoundRows: each round's order and each side's
// throughput, p50, p95 and server CPU per request, with B/A.
func abRoundHead() []string {
	return []string{"round", "order", "A rps", "B rps", "B/A", "A p50 ms", "B p50 ms", "B/A", "A p95 ms", "B p95 ms", "A CPU/req µs", "B CPU/req µs", "B/A"}
}

func abRoundRows(r *results.ABReport) [][]string {
	var rows [][]string
	for i, rd := range r.Rounds {
		rows = append(rows, []string{fmt.Sprint(rd.Index), string(rd.Order[0]) + string(rd.Order[1]),
			num(rd.A.Throughput, 1), num(rd.B.Throughput, 1), ratio(r.Ratio(i, abstat.Throughput)),
			num(rd.A.P50MS, 3), num(rd.B.P50MS, 3), ratio(r.Ratio(i, abstat.P50)),
			num(rd.A.P95MS, 3), num(rd.B.P95MS, 3),
			num(1e6*rd.A.Value(abstat.ServerCPUPerRequest), 1), num(1e6*rd.B.Value(abstat.ServerCPUPerRequest), 1),
			ratio(r.Ratio(i, abstat.ServerCPUPerRequest))})
	}
	return rows
}

func num(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func ratio(v float64) string { return num(v, 3) }

// WriteABSummary is the short summary on the terminal.
func WriteABSummary(w io.Writer, r *results.ABReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ab        %s\n", abHeadline(r))
	fmt.Fprintf(&b, "rounds    %s\n", abStopText(r))
	fmt.Fprintf(&b, "plan      %s\n", abPlanLine(r))
	for _, v := range r.Verdicts {
		gated := ""
		if r.Gated(v.Metric) {
			gated = " (gated)"
		}
		fmt.Fprintf(&b, "%-24s %-13s %s%s\n", abMetricNames[v.Metric], v.Verdict, abChange(v), gated)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteABJUnit writes one test case per judged metric; a gated
// regression fails, and so does an undecided gated metric when the gate
// fails on inconclusive.
func WriteABJUnit(w io.Writer, r *results.ABReport) error {
	s := junitSuite{Name: "mcpbench ab", Time: fmt.Sprintf("%.1f", r.Seconds), Timestamp: r.StartedAt.UTC().Format("2006-01-02T15:04:05")}
	for _, v := range r.Verdicts {
		tc := junitCase{Name: string(v.Metric), Classname: "mcpbench.ab", Time: "0"}
		detail := fmt.Sprintf("%s: B/A − 1 = %s, p %.3g at level %.3g, %d rounds", v.Verdict, abChange(v), v.P, v.Alpha, v.Rounds)
		failed := r.Gated(v.Metric) && (v.Verdict == abstat.Regression || r.FailOnInconclusive && v.Verdict == abstat.Inconclusive)
		if failed {
			tc.Failure = &junitFailure{Message: string(v.Metric) + " " + string(v.Verdict), Type: string(v.Verdict), Text: detail}
			s.Failures++
		} else {
			tc.SystemOut = detail
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	return writeJUnit(w, "mcpbench ab", s)
}
