package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/telemetry"
)

// startPrometheus starts Debian's prometheus on a free loopback port with
// its remote-write receiver on and nothing to scrape, and returns its
// base URL. Without prometheus on PATH the test is skipped, unless
// MCPBENCH_REQUIRE_PROMETHEUS is set (make test installs it).
func startPrometheus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("MCPBENCH_REQUIRE_PROMETHEUS") != "" {
			t.Fatal("prometheus is not installed (scripts/install-prometheus.sh)")
		}
		t.Skip("prometheus is not installed (scripts/install-prometheus.sh)")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startOnFreePort(t, "prometheus", func(addr string) *exec.Cmd {
		return exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
			"--web.listen-address="+addr, "--web.enable-remote-write-receiver", "--log.level=warn")
	}, func(addr string) bool {
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return "http://" + addr
}

// promQuery is the single value of an instant PromQL query.
func promQuery(t *testing.T, base, q string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "success" || len(body.Data.Result) != 1 {
		t.Fatalf("%s: status %s, %d series", q, body.Status, len(body.Data.Result))
	}
	v, err := strconv.ParseFloat(fmt.Sprint(body.Data.Result[0].Value[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bucketOf is the index of the duration bucket that holds s seconds.
func bucketOf(s float64) int {
	for i, b := range telemetry.DurationBuckets {
		if s <= b {
			return i
		}
	}
	return len(telemetry.DurationBuckets)
}

// TestOutPrometheusRemoteWrite: a run of 6,000 requests of a two-operation
// mix (a count, not a duration: on a starved machine 15 s once gave 708
// of the 1,000 lists the check needs) streamed to a real Prometheus; for each operation, PromQL over its
// duration histogram's count gives exactly the report's request count of
// that operation, the counter by operation and outcome too, and the
// histogram's p99 lies within one bucket of the report's.
func TestOutPrometheusRemoteWrite(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	prom := startPrometheus(t)
	srv := startTarget(t, target.Config{ServiceTime: 2 * time.Millisecond, ServiceDist: "exp"})
	dir := t.TempDir()
	out, mix := filepath.Join(dir, "run.json"), filepath.Join(dir, "mix.json")
	_ = os.WriteFile(mix, []byte(`[{"method":"tools/call","tool":"echo","args":{"message":"a"},"weight":3},{"method":"tools/list","weight":1}]`), 0o644)
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "4", "-n", "6000", "-q", "--json-out", out, "--mix", mix,
		"--out", "prometheus-rw="+prom+"/api/v1/write", "--out-label", "testcase=promrw")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "--out") {
		t.Fatalf("the exporter reported a problem: %s", r.stderr)
	}
	rep := readRunReport(t, out)
	if len(rep.ByOperation) != 2 {
		t.Fatalf("%d operations in the report", len(rep.ByOperation))
	}
	for _, op := range rep.ByOperation {
		sel := fmt.Sprintf(`{testcase="promrw",mcp_method_name=%q,gen_ai_tool_name=%q}`, op.Method, op.Tool)
		count := promQuery(t, prom, telemetry.PromDuration+"_count"+sel)
		ok := promQuery(t, prom, telemetry.PromRequests+sel)
		p99 := promQuery(t, prom, "histogram_quantile(0.99, "+telemetry.PromDuration+"_bucket"+sel+")")
		t.Logf("%s %s: report %d requests, p99 %.3f ms; PromQL: count %.0f, requests_total %.0f, p99 %.3f ms", op.Method, op.Tool, op.Requests, op.P99MS, count, ok, p99*1000)
		if int64(count) != op.Requests || int64(ok) != op.OK || op.Requests < 1000 {
			t.Fatalf("%s %s: PromQL count %v, requests_total %v; the report %d requests, %d ok", op.Method, op.Tool, count, ok, op.Requests, op.OK)
		}
		if d := bucketOf(p99) - bucketOf(op.P99MS/1000); math.Abs(float64(d)) > 1 {
			t.Fatalf("%s %s: PromQL p99 %.4f s is %d buckets from the report's %.4f s", op.Method, op.Tool, p99, d, op.P99MS/1000)
		}
	}
}

// outDeadOrSlowEndpoint (in TestServerBound): an endpoint that refuses
// connections, or one that answers too slowly, costs the run nothing: it
// ends on time, its report is whole, the undelivered requests are said
// once on stderr, and the exit code is the measurement's. A 10 ms answer
// keeps each run near 200 calls/s, light beside the sweeps.
func outDeadOrSlowEndpoint(t *testing.T) {
	srv := startTarget(t, target.Config{ServiceTime: 10 * time.Millisecond})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client leave
		select {
		case <-time.After(30 * time.Second):
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/api/v1/write"
	l.Close()
	for name, endpoint := range map[string]string{"dead": dead, "slow": slow.URL + "/api/v1/write"} {
		t.Run(name, func(t *testing.T) {
			// Both endpoints at once: two light runs of 3 s, each timed on
			// its own.
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run.json")
			began := time.Now()
			r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-c", "2", "-d", "3s", "-q", "--json-out", out,
				"--out", "prometheus-rw=" + endpoint}, echoCalls...)...)
			took := time.Since(began)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// 3 s of load, the exporter's flush budget, and a second for
			// the rest of the command.
			if limit := 3*time.Second + telemetry.FlushBudget + 1500*time.Millisecond; took > limit {
				t.Fatalf("the run took %v, more than %v", took, limit)
			}
			if n := strings.Count(r.stderr, "--out prometheus-rw"); n != 1 || !strings.Contains(r.stderr, "not delivered") {
				t.Fatalf("want one line on the undelivered requests, got %d: %s", n, r.stderr)
			}
			if rep := readRunReport(t, out); rep.Interrupted || rep.Requests < 100 || rep.Series == nil {
				t.Fatalf("report: interrupted %v, %d requests", rep.Interrupted, rep.Requests)
			}
			t.Logf("%s endpoint: run took %v; %s", name, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
		})
	}
}
