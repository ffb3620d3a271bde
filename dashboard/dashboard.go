// Package dashboard serves a run's or a sweep's HTML report live
// (--dashboard): an Output that rebuilds the report page from the settled
// intervals of the level under way, and a read-only HTTP server on
// loopback that gives it out. The page is the final report's own, with a
// small script that asks the server every interval whether there is
// news and reloads when there is; it fetches nothing from anywhere else.
package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
)

// Dashboard is the live page's Output and server.
type Dashboard struct {
	harness.NopOutput
	addr    string
	target  string
	ln      net.Listener
	srv     *http.Server
	version string

	mu      sync.Mutex
	every   time.Duration
	seq     int // grows with every change of the page
	started time.Time
	meta    harness.Meta
	cur     *level
	step    int
	final   harness.Final
	done    bool
	// seen, when set, hears the path of every request (the tests').
	seen func(path string)
}

// New is a dashboard that will listen on addr (host:port; a bare port or
// ":port" listens on 127.0.0.1) for the target named target (redacted).
func New(addr, target string) *Dashboard {
	return &Dashboard{addr: addr, target: target, every: time.Second}
}

// ListenAddr is addr with loopback for a missing host.
func ListenAddr(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("%q is not a port", port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Start listens, so a port in use fails before the load.
func (d *Dashboard) Start(m harness.Meta) error {
	addr, err := ListenAddr(d.addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	d.ln, d.version, d.meta = ln, m.Version, m
	if m.Interval > 0 {
		d.every = m.Interval
	}
	d.srv = &http.Server{Handler: d, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = d.srv.Serve(ln) }()
	return nil
}

// URL is where the page is, once started.
func (d *Dashboard) URL() string { return "http://" + d.ln.Addr().String() + "/" }

// Close stops the server.
func (d *Dashboard) Close() {
	if d.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = d.srv.Shutdown(ctx)
	}
}

func (d *Dashboard) Interval(iv harness.PointInterval) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur == nil || iv.Step.N != d.step {
		lv := iv.Step.Level
		if iv.Step.N == 0 && len(d.meta.Levels) > 0 {
			lv = d.meta.Levels[0] // a run's one level
		}
		d.cur, d.step = newLevel(lv.Concurrency, lv.Rate), iv.Step.N
		if d.started.IsZero() {
			d.started = iv.Start
		}
	}
	d.cur.add(iv)
	d.seq++
}

func (d *Dashboard) Stop(f harness.Final) {
	d.mu.Lock()
	d.final, d.done = f, true
	d.seq++
	d.mu.Unlock()
}

// ServeHTTP gives out the page (/) and its change counter (/seq); it
// takes nothing in.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.seen != nil {
		d.seen(r.URL.Path)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch r.URL.Path {
	case "/seq":
		d.mu.Lock()
		seq, done := d.seq, d.done
		d.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "%d %t", seq, done)
	case "/":
		page, err := d.page()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	default:
		http.NotFound(w, r)
	}
}

// page renders the report as it stands: the final one once there is one.
func (d *Dashboard) page() ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var b bytes.Buffer
	var err error
	switch {
	case d.final.Run != nil:
		err = report.WriteRunHTML(&b, d.final.Run)
	case d.final.Sweep != nil:
		err = report.WriteSweepHTML(&b, d.final.Sweep)
	case d.cur != nil:
		err = report.WriteRunHTML(&b, d.cur.report(d.target, d.version, d.started))
	default:
		err = report.WriteRunHTML(&b, waiting(d.target, d.version))
	}
	if err != nil {
		return nil, err
	}
	if d.done {
		return b.Bytes(), nil
	}
	return live(b.Bytes(), d.seq, d.every), nil
}

// waiting is the page before the first interval has settled.
func waiting(target, version string) *results.RunReport {
	r := &results.RunReport{}
	r.MCPBenchVersion, r.Target.URL = version, target
	return r
}

// live puts the polling script into the page: every interval it asks
// /seq whether the page has changed since seq, and reloads when it has.
func live(page []byte, seq int, every time.Duration) []byte {
	script := fmt.Sprintf(`<script>
(function () {
  var seen = "%d";
  function poll() {
    fetch("/seq", {cache: "no-store"}).then(function (r) { return r.text(); }).then(function (t) {
      if (t.split(" ")[0] !== seen) { location.reload(); return; }
      setTimeout(poll, %d);
    }, function () { setTimeout(poll, %d); });
  }
  setTimeout(poll, %d);
})();
</script>
</head>`, seq, every.Milliseconds(), every.Milliseconds(), every.Milliseconds())
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+len(script))
	out = append(append(append(out, page[:i]...), script...), page[i+len("</head>"):]...)
	return out
}

var _ harness.Output = (*Dashboard)(nil)
