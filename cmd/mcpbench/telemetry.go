package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/telemetry"
)

// telemetryFlags stream a run or sweep while it runs (--out), k6's way:
// a JSON Lines file, Prometheus remote write, OTLP.
type telemetryFlags struct {
	outs   []string
	labels []string
	trace  float64
	// files are the --out json files, which get the gates at the end.
	files []*telemetry.JSONL
}

// flags declares the streams and tracing, for run and sweep.
func (f *telemetryFlags) flags() []flagDecl {
	return []flagDecl{
		{name: "out", to: &f.outs, group: "Outputs", usage: "stream every interval to `NAME=TARGET` while the load runs: json=FILE (JSON Lines, rebuilt into a report by 'mcpbench report FILE'), prometheus-rw=URL (Prometheus remote write), otlp=URL (OTLP/HTTP metrics; the path defaults to /v1/metrics); repeatable"},
		{name: "out-label", to: &f.labels, group: "Outputs", usage: "add label `K=V` to every series --out exports; repeatable"},
		{name: "trace", to: &f.trace, group: "Outputs", rng: fraction, noOptDef: "0.01", usage: "send W3C trace context (params._meta and the traceparent header) on a `FRACTION` of the requests (--trace=0.1; --trace alone: 0.01); the report keeps the slowest of each operation as exemplars, and --out otlp exports their client spans"},
	}
}

// labelName is what Prometheus accepts as a label name (and OTLP as an
// attribute key); names starting with __ are Prometheus's own.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// parseLabels reads --out-label.
func (f *telemetryFlags) parseLabels(e env) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range f.labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !labelName.MatchString(k) || strings.HasPrefix(k, "__") {
			return nil, usagef("--out-label %q: want NAME=VALUE, NAME of letters, digits and _ (not starting with __)", kv)
		}
		if telemetry.Reserved(k) {
			return nil, usagef("--out-label %q: %s is a label mcpbench sets itself", kv, k)
		}
		if e.secrets.holds(v) {
			return nil, usagef("--out-label %s: its value is a credential, which never goes into a label", k)
		}
		m[k] = v
	}
	return m, nil
}

// holds says whether v is one of the secrets (or holds one).
func (s *secretSet) holds(v string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, sec := range s.vals {
		if strings.Contains(v, sec) {
			return true
		}
	}
	return false
}

// newRunID names one command's series, so that two runs never mix.
func newRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// apply adds the outputs --out asks for to s, and --trace's sampling to
// its client options; each output is wrapped so that what it could not
// deliver is said on stderr when the command ends.
func (f *telemetryFlags) apply(s *harness.Setup, e env, cmd string) error {
	if len(f.outs) == 0 && len(f.labels) > 0 {
		return usagef("--out-label goes with --out")
	}
	labels, err := f.parseLabels(e)
	if err != nil {
		return err
	}
	runID := newRunID()
	var spans []*telemetry.Spans
	seen := map[string]bool{}
	for _, spec := range f.outs {
		name, tgt, ok := strings.Cut(spec, "=")
		if !ok || tgt == "" {
			return usagef("--out %q: want NAME=TARGET, e.g. json=run.jsonl or prometheus-rw=http://127.0.0.1:9090/api/v1/write", spec)
		}
		if seen[spec] {
			return usagef("--out %s is given twice", name)
		}
		seen[spec] = true
		o, err := newTelemetryOutput(name, tgt, labels, runID, s, e)
		if err != nil {
			return err
		}
		s.Outputs = append(s.Outputs, telemetryOutput{Output: o, e: e, cmd: cmd, name: name})
		if j, ok := o.(*telemetry.JSONL); ok {
			f.files = append(f.files, j)
		}
		if col, ok := o.(*telemetry.OTLP); ok && f.trace > 0 {
			sp, err := telemetry.NewSpans(col.URL, labels, runID, s.Version)
			if err != nil {
				return usagef("--out %s: %v", mcp.Redact(spec), err)
			}
			spans = append(spans, sp)
			s.Outputs = append(s.Outputs, telemetryOutput{Output: sp, e: e, cmd: cmd, name: name + " (spans)"})
		}
	}
	if f.trace > 0 {
		s.Trace = &mcp.Trace{Fraction: f.trace, OnSpan: fanOut(spans)}
	}
	return nil
}

// fanOut hands a sampled request to every span exporter; nil for none.
func fanOut(spans []*telemetry.Spans) func(mcp.Span) {
	if len(spans) == 0 {
		return nil
	}
	return func(sp mcp.Span) {
		for _, s := range spans {
			s.Span(sp)
		}
	}
}

// newTelemetryOutput is the output NAME=TARGET names.
func newTelemetryOutput(name, tgt string, labels map[string]string, runID string, s *harness.Setup, e env) (harness.Output, error) {
	switch name {
	case "json":
		if err := harness.CheckWritable(tgt); err != nil {
			return nil, usagef("--out json=%s: %v", tgt, err)
		}
		return &telemetry.JSONL{Path: tgt, Labels: labels, RunID: runID, Wrap: e.scrubbed}, nil
	case "prometheus-rw":
		u, err := telemetry.CheckEndpoint(tgt)
		if err != nil {
			return nil, usagef("--out prometheus-rw=%s: %v", mcp.Redact(tgt), err)
		}
		return telemetry.NewRemoteWrite(u, labels, s.Shard, runID), nil
	case "otlp":
		u, err := telemetry.CheckEndpoint(tgt)
		if err != nil {
			return nil, usagef("--out otlp=%s: %v", mcp.Redact(tgt), err)
		}
		o, err := telemetry.NewOTLP(u, labels, s.Shard, runID, s.Version)
		if err != nil {
			return nil, usagef("--out otlp=%s: %v", mcp.Redact(tgt), err)
		}
		return o, nil
	}
	return nil, usagef("--out %s: unknown output (json, prometheus-rw, otlp)", name)
}

// telemetryOutput says on stderr, as the command ends, what an output
// could not deliver: dropped batches, a dead endpoint, a file it could
// not write. The run's exit code stays what the measurement made it.
type telemetryOutput struct {
	harness.Output
	e    env
	cmd  string
	name string
}

// problem is what an output may report once stopped.
type problem interface{ Problem() string }

func (t telemetryOutput) Stop(f harness.Final) {
	t.Output.Stop(f)
	if p, ok := t.Output.(problem); ok {
		if msg := p.Problem(); msg != "" {
			fmt.Fprintf(t.e.stderr, "mcpbench %s: warning: --out %s: %s\n", t.cmd, t.name, msg)
		}
	}
}

// Late and WantsOperationHistograms pass on what the wrapped output asks
// beyond harness.Output.
func (t telemetryOutput) Late(iv harness.PointInterval) {
	if l, ok := t.Output.(harness.LateOutput); ok {
		l.Late(iv)
	}
}

func (t telemetryOutput) WantsOperationHistograms() bool {
	w, ok := t.Output.(harness.OperationsOutput)
	return ok && w.WantsOperationHistograms()
}

// gates writes the checks the exit code saw into each --out json file.
func (f *telemetryFlags) gates(gs []results.Gate) {
	for _, j := range f.files {
		j.Gates(gs)
	}
}
