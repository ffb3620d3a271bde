package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
		if int64(n) != rep.Requests || rep.Requests < 100 {
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
