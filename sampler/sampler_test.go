package sampler

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestProcReadsItself(t *testing.T) {
	p, err := NewProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(p.Gauges()))
	if err := p.Read(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	rss, fds, threads := v[0], v[1], v[2]
	if rss < 1e6 || fds < 3 || threads < 1 || v[3] < 0 || math.IsNaN(v[3]) {
		t.Fatalf("rss %v fds %v threads %v cpu %v", rss, fds, threads, v[3])
	}
	// Ten more open files show as ten more fds.
	var files []*os.File
	for range 10 {
		f, err := os.Open(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if err := p.Read(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	if v[1] != fds+10 {
		t.Errorf("fds %v after opening 10 more than %v", v[1], fds)
	}
	if p.Where() != fmt.Sprintf("pid %d", os.Getpid()) {
		t.Errorf("where %q", p.Where())
	}
}

func TestProcRefusesBadPID(t *testing.T) {
	for _, pid := range []int{0, -3, 1 << 30} {
		if _, err := NewProc(pid); err == nil {
			t.Errorf("pid %d accepted", pid)
		}
	}
}

const page = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.5e+07
# TYPE go_goroutines gauge
go_goroutines 42
# TYPE app_sessions gauge
app_sessions{transport="http"} 3
app_sessions{transport="sse"} 4
# TYPE app_requests_total counter
app_requests_total 1234
# TYPE app_latency_seconds histogram
app_latency_seconds_bucket{le="0.1"} 1
app_latency_seconds_bucket{le="+Inf"} 2
app_latency_seconds_sum 0.3
app_latency_seconds_count 2
`

func promServer(t *testing.T, body *string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "text/plain") {
			t.Errorf("asked for %q, not the text format", r.Header.Get("Accept"))
		}
		if *body == "" {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, *body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPromReadsNamedMetrics(t *testing.T) {
	body := page
	srv := promServer(t, &body)
	p, absent, err := NewProm(context.Background(), srv.URL, []string{"app_sessions", "app_requests_total"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(absent) != 1 || absent[0] != "process_open_fds" {
		t.Errorf("absent %v, want process_open_fds", absent)
	}
	want := []Gauge{
		{Name: "process_resident_memory_bytes", Unit: UnitBytes},
		{Name: "go_goroutines"},
		{Name: "app_sessions"},
		{Name: "app_requests_total", Counter: true},
	}
	if fmt.Sprint(p.Gauges()) != fmt.Sprint(want) {
		t.Fatalf("gauges %v, want %v", p.Gauges(), want)
	}
	v := make([]float64, 4)
	if err := p.Read(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	if v[0] != 25e6 || v[1] != 42 || v[2] != 7 || v[3] != 1234 {
		t.Errorf("values %v, want 25e6 42 7 (3+4) 1234", v)
	}
	// A metric that disappears reads as missing; a failed scrape as all.
	body = strings.Replace(page, "go_goroutines 42\n", "", 1)
	if err := p.Read(context.Background(), v); err != nil || !math.IsNaN(v[1]) || v[0] != 25e6 {
		t.Errorf("after go_goroutines went: %v %v", v, err)
	}
	body = ""
	if err := p.Read(context.Background(), v); err == nil || !math.IsNaN(v[0]) {
		t.Errorf("a 503 read as %v", v)
	}
}

func TestPromRefuses(t *testing.T) {
	body := page
	srv := promServer(t, &body)
	for name, extra := range map[string]string{
		"a missing metric": "nope_total",
		"a histogram":      "app_latency_seconds",
	} {
		if _, _, err := NewProm(context.Background(), srv.URL, []string{extra}, nil); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	body = "this is { not metrics"
	if _, _, err := NewProm(context.Background(), srv.URL, nil, nil); err == nil || !strings.Contains(err.Error(), "not Prometheus text format") {
		t.Errorf("garbage: %v", err)
	}
}

// TestPromHidesPassword: credentials in the URL reach neither the
// report's source nor an error message.
func TestPromHidesPassword(t *testing.T) {
	body := page
	srv := promServer(t, &body)
	withCreds := strings.Replace(srv.URL, "http://", "http://scraper:hunter2@", 1)
	p, _, err := NewProm(context.Background(), withCreds, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Where(), "hunter2") {
		t.Errorf("where %q shows the password", p.Where())
	}
	_, _, err = NewProm(context.Background(), withCreds, []string{"absent_metric"}, nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %v", err)
	}
}
