package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/telemetry"
)

// otlpReceiver is an OTLP/HTTP collector's metrics endpoint on loopback
// that decodes the wire format with the OpenTelemetry proto module and
// keeps the latest cumulative count of each series.
type otlpReceiver struct {
	mu       sync.Mutex
	requests int
	counts   map[string]uint64 // metric name and attributes -> latest count
	attrs    map[string]map[string]string
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req colmetrics.ExportMetricsServiceRequest
	if r.URL.Path != "/v1/metrics" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP metrics export", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests++
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if h := m.GetHistogram(); h != nil {
					for _, dp := range h.DataPoints {
						key, attrs := m.Name, map[string]string{}
						for _, kv := range dp.Attributes {
							key += "," + kv.Key + "=" + kv.Value.GetStringValue()
							attrs[kv.Key] = kv.Value.GetStringValue()
						}
						rc.counts[key], rc.attrs[key] = dp.Count, attrs
					}
				}
			}
		}
	}
	out, _ := proto.Marshal(&colmetrics.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// TestOutOTLPMetrics: the duration histogram's count, as a collector
// decodes it from the wire, equals the report's request count, under the
// MCP semantic conventions' names.
func TestOutOTLPMetrics(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond})
	rc := &otlpReceiver{counts: map[string]uint64{}, attrs: map[string]map[string]string{}}
	col := httptest.NewServer(rc)
	t.Cleanup(col.Close)
	out := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-c", "2", "-d", "3s", "-q", "--json-out", out,
		"--out", "otlp=" + col.URL, "--out-label", "team=perf"}, echoCalls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readRunReport(t, out)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.counts) != 1 || rc.requests < 3 {
		t.Fatalf("%d exports, series %v: want one duration series over several exports", rc.requests, rc.counts)
	}
	for key, n := range rc.counts {
		a := rc.attrs[key]
		t.Logf("%d exports; %s: count %d; the report %d requests", rc.requests, key, n, rep.Requests)
		// At least 30: equal counts of nothing would say nothing (a
		// starved machine has answered only a few dozen a second).
		if int64(n) != rep.Requests || rep.Requests < 30 {
			t.Fatalf("OTLP count %d, the report's %d", n, rep.Requests)
		}
		if a["mcp.method.name"] != "tools/call" || a["gen_ai.tool.name"] != "echo" || a["team"] != "perf" || a["mcpbench.run.id"] == "" {
			t.Fatalf("attributes %v", a)
		}
		if key[:len(telemetry.MetricDuration)] != telemetry.MetricDuration {
			t.Fatalf("metric %s", key)
		}
	}
}

// TestOutMixHistogramPerOperation: in a mix, each operation has its own
// duration histogram, in the OTLP export (its count the report's for
// that operation, as the collector decodes it) and in the JSON Lines
// file (its intervals rebuild each operation's count and p99 exactly).
// 1,000 requests, not 2 s: a starved machine once answered 37 calls in 2
// s, under the 50 an operation needs.
func TestOutMixHistogramPerOperation(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond, ServiceDist: "exp"})
	rc := &otlpReceiver{counts: map[string]uint64{}, attrs: map[string]map[string]string{}}
	col := httptest.NewServer(rc)
	t.Cleanup(col.Close)
	dir := t.TempDir()
	mix, out, file := filepath.Join(dir, "mix.json"), filepath.Join(dir, "run.json"), filepath.Join(dir, "run.jsonl")
	_ = os.WriteFile(mix, []byte(`[{"method":"tools/call","tool":"echo","args":{"message":"a"},"weight":1},{"method":"tools/list","weight":1}]`), 0o644)
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "2", "-n", "1000", "-q", "--mix", mix, "--json-out", out,
		"--out", "otlp="+col.URL, "--out", "json="+file)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readRunReport(t, out)
	if len(rep.ByOperation) != 2 {
		t.Fatalf("%d operations in the report", len(rep.ByOperation))
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rec := readWith(t, file, telemetry.ReadJSONL)
	rebuilt, err := rec.RebuildRun()
	if err != nil || len(rebuilt.ByOperation) != 2 {
		t.Fatalf("rebuilt: %v, %d operations", err, len(rebuilt.ByOperation))
	}
	for i, op := range rep.ByOperation {
		key := telemetry.MetricDuration
		var n uint64
		found := 0
		for k, c := range rc.counts {
			if a := rc.attrs[k]; strings.HasPrefix(k, key+",") && a["mcp.method.name"] == op.Method && a["gen_ai.tool.name"] == op.Tool {
				n, found = c, found+1
			}
		}
		got := rebuilt.ByOperation[i]
		t.Logf("%s %s: report %d requests, p99 %.3f ms; OTLP count %d; rebuilt %d, p99 %.3f ms", op.Method, op.Tool, op.Requests, op.P99MS, n, got.Requests, got.P99MS)
		if found != 1 || int64(n) != op.Requests || op.Requests < 50 {
			t.Errorf("%s %s: %d duration series, count %d; the report's %d", op.Method, op.Tool, found, n, op.Requests)
		}
		if got.Operation != op.Operation || got.Requests != op.Requests || got.P99MS != op.P99MS || got.MaxMS != op.MaxMS {
			t.Errorf("rebuilt %s %s: %d requests, p99 %v, max %v; the report's %d, %v, %v", op.Method, op.Tool, got.Requests, got.P99MS, got.MaxMS, op.Requests, op.P99MS, op.MaxMS)
		}
	}
	for k := range rc.counts {
		if strings.Contains(k, "=all") {
			t.Errorf("a duration series for all operations: %s", k)
		}
	}
}
