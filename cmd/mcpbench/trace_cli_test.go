package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/target"
)

// traceSeen is what a handler wrapper in front of the bundled server saw
// of the trace context: by trace id, the traceparent of the header and
// of params._meta.
type traceSeen struct {
	mu       sync.Mutex
	requests int
	header   map[string]string
	meta     map[string]string
	order    []string // the trace ids of params._meta, in the order they came
}

// wrap passes every request to next, noting its trace context.
func (ts *traceSeen) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Params struct {
				Meta struct {
					TraceParent string `json:"traceparent"`
				} `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		ts.mu.Lock()
		if r.Method == http.MethodPost {
			ts.requests++
		}
		if h := r.Header.Get("traceparent"); h != "" {
			ts.header[strings.Split(h, "-")[1]] = h
		}
		if m := msg.Params.Meta.TraceParent; m != "" {
			ts.meta[strings.Split(m, "-")[1]] = m
			ts.order = append(ts.order, strings.Split(m, "-")[1])
		}
		ts.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// spanReceiver is an OTLP/HTTP traces endpoint that decodes the wire
// format and keeps the trace ids of the spans.
type spanReceiver struct {
	mu     sync.Mutex
	traces map[string]int
	spans  int
}

func (sr *spanReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/traces" {
		w.WriteHeader(http.StatusOK) // metrics: TestOutOTLPMetrics checks them
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP traces export", http.StatusBadRequest)
		return
	}
	sr.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				sr.spans++
				sr.traces[hexOf(sp.TraceId)]++
			}
		}
	}
	sr.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestTraceContextAndExemplars: with --trace, the bundled server (on the
// Go SDK, behind a handler wrapper that notes what arrives) receives W3C
// trace context in params._meta and in the traceparent header, the same
// in both; every sampled request's client span reaches the OTLP
// collector, one per traced request; the server itself takes the trace
// ids from params._meta; and the report's exemplars are requests it saw.
func TestTraceContextAndExemplars(t *testing.T) {
	// Counts, files and exit codes, no figure a busy machine changes: with
	// the other parallel tests. 1,000 requests, not 2 s: a starved machine
	// once sent 39 in 2 s, and 2 of them traced is then not rare.
	t.Parallel()
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond, ServiceDist: "exp"})
	up, _ := url.Parse(srv.URL)
	seen := &traceSeen{header: map[string]string{}, meta: map[string]string{}}
	proxy := httputil.NewSingleHostReverseProxy(up)
	proxy.FlushInterval = -1
	front := httptest.NewServer(seen.wrap(proxy))
	t.Cleanup(front.Close)
	sr := &spanReceiver{traces: map[string]int{}}
	col := httptest.NewServer(sr)
	t.Cleanup(col.Close)
	out := filepath.Join(t.TempDir(), "run.json")
	md := filepath.Join(t.TempDir(), "run.md")
	page := filepath.Join(t.TempDir(), "run.html")
	r := runCLI(t, nil, append([]string{"run", "--url", front.URL + "/mcp", "-c", "2", "-n", "1000", "-q", "--json-out", out, "--md-out", md, "--html-out", page,
		"--trace=0.2", "--out", "otlp=" + col.URL}, echoCalls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readRunReport(t, out)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	sr.mu.Lock()
	defer sr.mu.Unlock()
	t.Logf("%d requests reached the server, %d with trace context; %d spans exported; %d exemplars; report %d requests, %d errors",
		seen.requests, len(seen.header), sr.spans, len(rep.Exemplars), rep.Requests, rep.Errors)
	if rep.Errors != 0 {
		t.Fatalf("the server refused traced requests: %v", rep.ErrorsByKind)
	}
	frac := float64(len(seen.header)) / float64(seen.requests)
	if frac < 0.1 || frac > 0.3 {
		t.Fatalf("%d of %d requests traced: want about 0.2", len(seen.header), seen.requests)
	}
	for id, h := range seen.header {
		if seen.meta[id] != h {
			t.Fatalf("trace %s: header %s, params._meta %q", id, h, seen.meta[id])
		}
	}
	if len(seen.meta) != len(seen.header) || sr.spans != len(seen.header) || len(sr.traces) != len(seen.header) {
		t.Fatalf("%d traced in _meta, %d in the header, %d spans (%d traces)", len(seen.meta), len(seen.header), sr.spans, len(sr.traces))
	}
	if len(rep.Exemplars) == 0 || len(rep.Exemplars) > 5 {
		t.Fatalf("%d exemplars: want 1 to 5", len(rep.Exemplars))
	}
	// The bundled server (the Go SDK's) took the same trace context from
	// params._meta: one request per trace id, those the client traced
	// (whatever the method: a sampled initialize too), but for those the
	// end of the run cut off before the SDK dispatched them, in flight at
	// the front when the client closed its connections: at most one a
	// worker (-c 2), so a missing id must be one of the last two sent.
	got := srv.TraceIDs()
	for id, n := range got {
		if n != 1 || seen.meta[id] == "" {
			t.Fatalf("trace %s: the server took it %d times from params._meta; sent %q", id, n, seen.meta[id])
		}
	}
	for i, id := range seen.order {
		if got[id] == 0 && i < len(seen.order)-2 {
			t.Fatalf("the server never took trace %s, sent %d of %d, from params._meta (it took %d)", id, i+1, len(seen.order), len(got))
		}
	}
	for i, ex := range rep.Exemplars {
		if seen.header[ex.TraceID] == "" || got[ex.TraceID] != 1 || sr.traces[ex.TraceID] != 1 || ex.Tool != "echo" {
			t.Fatalf("exemplar %+v: not a request the server and the collector saw", ex)
		}
		if i > 0 && ex.LatencyMS > rep.Exemplars[i-1].LatencyMS {
			t.Fatalf("exemplars not slowest first: %v", rep.Exemplars)
		}
	}
	for _, file := range []string{md, page} {
		if b, _ := os.ReadFile(file); !strings.Contains(string(b), rep.Exemplars[0].TraceID) {
			t.Fatalf("%s does not show the slowest exemplar's trace id %s", filepath.Base(file), rep.Exemplars[0].TraceID)
		}
	}
}

// TestSweepExemplars: a sweep with --trace keeps each point's slowest
// traced requests, naming the level, as requests the server received
// with that trace context; its Markdown and HTML show them.
func TestSweepExemplars(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	srv := startTarget(t, target.Config{ServiceTime: time.Millisecond, ServiceDist: "exp"})
	up, _ := url.Parse(srv.URL)
	seen := &traceSeen{header: map[string]string{}, meta: map[string]string{}}
	front := httptest.NewServer(seen.wrap(httputil.NewSingleHostReverseProxy(up)))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	out, md, page := filepath.Join(dir, "sweep.json"), filepath.Join(dir, "sweep.md"), filepath.Join(dir, "sweep.html")
	r := runCLI(t, nil, append([]string{"sweep", "--url", front.URL + "/mcp", "--concurrency-values", "1,2", "--total", "300", "-q",
		"--json-out", out, "--md-out", md, "--html-out", page, "--trace=0.5"}, echoCalls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readWith(t, out, results.ReadSweepReport)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	levels := map[string]int{}
	for _, ex := range rep.Exemplars {
		levels[ex.Level]++
		if seen.header[ex.TraceID] == "" || seen.meta[ex.TraceID] == "" || ex.Tool != "echo" {
			t.Fatalf("exemplar %+v: not a request the server saw with its trace context", ex)
		}
	}
	t.Logf("%d exemplars by level %v; the server saw %d traced requests", len(rep.Exemplars), levels, len(seen.header))
	if len(levels) != 2 || levels["c=1"] < 1 || levels["c=1"] > 5 || levels["c=2"] < 1 || levels["c=2"] > 5 {
		t.Fatalf("exemplars by level %v: want 1 to 5 for each of c=1 and c=2", levels)
	}
	for _, file := range []string{md, page} {
		b, _ := os.ReadFile(file)
		for _, ex := range rep.Exemplars {
			if !strings.Contains(string(b), ex.TraceID) {
				t.Fatalf("%s does not show exemplar %s of %s", filepath.Base(file), ex.TraceID, ex.Level)
			}
		}
	}
}
