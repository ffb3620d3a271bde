package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mcpbench/mcpbench/target"
)

// rwReceiver is a remote-write endpoint that decodes what it gets and
// keeps the metric and label names.
type rwReceiver struct {
	mu      sync.Mutex
	metrics map[string]bool
	labels  map[string]bool
}

func (rc *rwReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, body)
	var req prompb.WriteRequest
	if err != nil || req.Unmarshal(raw) != nil {
		http.Error(w, "not a remote-write request", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, ts := range req.Timeseries {
		for _, l := range ts.Labels {
			if l.Name == "__name__" {
				rc.metrics[l.Value] = true
			} else {
				rc.labels[l.Name] = true
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// TestGrafanaDashboard: docs/grafana/mcpbench.json parses, and every
// query names only series the exporter writes (captured from a real run)
// or the server's own process metrics (read from the bundled server's
// /metrics), and groups by labels those series have.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	// Some tool errors, so that the outcome label is written too.
	srv := startTarget(t, target.Config{ServiceTime: time.Millisecond, Fault: target.FaultToolError, FaultRate: 0.05})
	rc := &rwReceiver{metrics: map[string]bool{}, labels: map[string]bool{"le": true, "instance": true}}
	rw := httptest.NewServer(rc)
	t.Cleanup(rw.Close)
	r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-c", "2", "-d", "2s", "-q", "--allow-request-errors",
		"--out", "prometheus-rw=" + rw.URL + "/api/v1/write"}, echoCalls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	exposition, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	b, err := os.ReadFile("../../docs/grafana/mcpbench.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard does not parse: %v", err)
	}
	selector := regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{`)
	grouping := regexp.MustCompile(`by \(([^)]*)\)`)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	queries, server := 0, false
	for _, p := range dash.Panels {
		if p.Type == "row" {
			server = strings.Contains(p.Title, "server")
			continue
		}
		if len(p.Targets) == 0 {
			t.Fatalf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			queries++
			names := selector.FindAllStringSubmatch(q.Expr, -1)
			if len(names) == 0 {
				t.Fatalf("panel %q: no series in %s", p.Title, q.Expr)
			}
			for _, n := range names {
				switch {
				case rc.metrics[n[1]] && !server:
				case server && strings.Contains(string(exposition), "\n"+n[1]+" "):
				default:
					t.Fatalf("panel %q names %s, which neither the exporter (%v) nor the server writes", p.Title, n[1], rc.metrics)
				}
			}
			for _, g := range grouping.FindAllStringSubmatch(q.Expr, -1) {
				for _, l := range strings.Split(g[1], ",") {
					if l = strings.TrimSpace(l); !rc.labels[l] {
						t.Fatalf("panel %q groups by %s, a label the exporter does not write (%v)", p.Title, l, rc.labels)
					}
				}
			}
		}
	}
	if queries < 5 {
		t.Fatalf("%d queries", queries)
	}
}
