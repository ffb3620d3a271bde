package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// The plan of a dry run, and the lines about tools that a run prints:
// which tools are called, and what their annotations say.

// sampleChars bounds a sample argument set in the human forms: generated
// strings can be long, and the JSON report keeps them whole.
const sampleChars = 160

// WritePlanJSON writes the plan report as indented JSON.
func WritePlanJSON(w io.Writer, r *results.PlanReport) error { return writeIndented(w, r) }

// WritePlanSummary is the plan for people: the target, the load, each
// tool with its annotations and sample arguments, and the warnings.
func WritePlanSummary(w io.Writer, r *results.PlanReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "dry run   %s: nothing is called\n", r.Command)
	for _, f := range planFacts(r) {
		fmt.Fprintf(&b, "%-9s %s\n", strings.ToLower(f[0]), f[1])
	}
	for _, c := range r.Plan.Calls {
		where := ""
		if c.Step != "" {
			where = c.Scenario + "/" + c.Step + " calls "
		}
		fmt.Fprintf(&b, "tool      %s%s: %s\n", where, c.Name, toolTraits(c.ToolInfo, c.Weight))
		if c.Dynamic {
			fmt.Fprintf(&b, "            (arguments also from data rows or earlier results)\n")
		}
		for _, args := range c.SampleArgs {
			fmt.Fprintf(&b, "            %s\n", clipRunes(string(args), sampleChars))
		}
	}
	for _, warn := range r.Plan.Warnings {
		fmt.Fprintf(&b, "WARNING   %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WritePlanMarkdown writes the plan as a Markdown document.
func WritePlanMarkdown(w io.Writer, r *results.PlanReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# mcpbench %s: plan (dry run, nothing called)\n\n", r.Command)
	for _, f := range planFacts(r) {
		fmt.Fprintf(&b, "- **%s:** %s\n", f[0], f[1])
	}
	for _, warn := range r.Plan.Warnings {
		fmt.Fprintf(&b, "- **Warning:** %s\n", warn)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(r.Plan.Calls) == 0 {
		return nil
	}
	io.WriteString(w, "\n## Tools\n\n")
	var rows [][]string
	for _, c := range r.Plan.Calls {
		var samples []string
		for _, a := range c.SampleArgs {
			samples = append(samples, "`"+clipRunes(string(a), sampleChars)+"`")
		}
		rows = append(rows, []string{c.Name, toolTraits(c.ToolInfo, c.Weight), strings.Join(samples, " ")})
	}
	return markdownTable(w, []string{"tool", "annotations", "sample arguments"}, rows)
}

// planFacts are the plan's headline facts, named, in the order shown.
func planFacts(r *results.PlanReport) [][2]string {
	return [][2]string{
		{"Target", targetLine(r.Target)},
		{"Load", loadLine(r.Plan.Load)},
		{"Sends", textfmt.OrDash(results.OperationsLine(r.Plan.Operations))},
	}
}

// loadLine is the load in words: "closed loop, 4 workers, 200 requests".
func loadLine(l results.PlannedLoad) string {
	var parts []string
	workers, per := "workers", "requests/s"
	if l.Unit == "sessions" {
		workers, per = "users", "sessions/s"
	}
	switch {
	case l.Mode == "open":
		parts = append(parts, "open loop at "+joinFloats(l.Rates)+" "+per)
	case len(l.Concurrency) == 1:
		parts = append(parts, fmt.Sprintf("closed loop, %d %s", l.Concurrency[0], workers))
	default:
		levels := make([]string, len(l.Concurrency))
		for i, c := range l.Concurrency {
			levels[i] = strconv.Itoa(c)
		}
		parts = append(parts, "closed loop at "+strings.Join(levels, ", ")+" "+workers)
	}
	level := ""
	if len(l.Concurrency)+len(l.Rates) > 1 {
		level = " per level"
	}
	if l.Total > 0 {
		parts = append(parts, fmt.Sprintf("%d requests%s", l.Total, level))
	} else {
		parts = append(parts, fmt.Sprintf("%ss%s", textfmt.Float(l.DurationS), level))
	}
	if l.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("%d warm-up requests", l.Warmup))
	}
	if l.RampUpS > 0 {
		parts = append(parts, fmt.Sprintf("ramp-up %ss", textfmt.Float(l.RampUpS)))
	}
	return strings.Join(parts, ", ")
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = textfmt.Float(f)
	}
	return strings.Join(s, ", ")
}

// ToolsLine is the one line a run prints before its load: the tools it
// calls, each with its effect.
func ToolsLine(tools []workload.ToolInfo) string {
	parts := make([]string, len(tools))
	for i, t := range tools {
		parts[i] = fmt.Sprintf("%s (%s)", t.Name, t.Effect)
	}
	return fmt.Sprintf("calling %d tool(s): %s", len(tools), strings.Join(parts, ", "))
}

// toolTraits says what a tool's annotations make of it, how it was
// chosen, and its argument sets: "read-only {"readOnlyHint":true}, 16
// argument sets".
func toolTraits(t workload.ToolInfo, weight float64) string {
	hints := "no annotations"
	if b, _ := json.Marshal(t.Annotations); string(b) != "{}" {
		hints = string(b)
	}
	parts := []string{string(t.Effect) + " " + hints}
	if t.Named {
		parts = append(parts, "named")
	}
	if weight > 0 {
		parts = append(parts, "weight "+textfmt.Float(textfmt.Round3(weight)))
	}
	switch {
	case t.ArgSets == 1:
		parts = append(parts, "1 argument set")
	case t.ArgSets > 1:
		parts = append(parts, fmt.Sprintf("%d argument sets", t.ArgSets))
	}
	if t.CardinalityNote != "" {
		parts = append(parts, t.CardinalityNote)
	}
	return strings.Join(parts, ", ")
}

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
