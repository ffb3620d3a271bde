package main

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// Secret values, each distinct and unlikely to occur by chance, so that a
// plain substring search over every output finds any leak.
const (
	secretEnvToken = "envtok-Q7zK2mW9pX4v"
	secretBearer   = "bearer-H8nR3tY6cJ1d"
	secretCookie   = "cookie-L5fG0sA2kE7u"
	secretProxy    = "proxyauth-V9bN4hM1qZ3w"
	secretAPIKey   = "apikey-T2xC8jD5rF6y"
	secretCustom   = "custom-P4gS7wK0nB9e"
)

var allSecrets = []string{secretEnvToken, secretBearer, secretCookie, secretProxy, secretAPIKey, secretCustom}

// headerRecorder serves the reference server and remembers every header
// value it received, so the test can show the secrets really went out.
type headerRecorder struct {
	mu   sync.Mutex
	seen map[string]map[string]bool
}

func (h *headerRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		for name, vals := range r.Header {
			if h.seen[name] == nil {
				h.seen[name] = map[string]bool{}
			}
			for _, v := range vals {
				h.seen[name][v] = true
			}
		}
		h.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (h *headerRecorder) saw(name, value string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[name][value]
}

// TestSecretsNeverLeak runs run, sweep and probe (and compare and merge on
// their reports) with secrets in MCPBENCH_TOKEN, -H and --secret-header,
// against a server that accepts them, one that answers 401, none at all,
// and with malformed -H values; then searches stdout, stderr, every report
// and the server's log for each secret.
func TestSecretsNeverLeak(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	srv, err := target.New(target.Config{Tools: 2, StatsLog: logFile, StatsInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := &headerRecorder{seen: map[string]map[string]bool{}}
	ok := httptest.NewServer(rec.wrap(srv.Handler()))
	defer func() { ok.Close(); srv.Close() }()
	reject := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"invalid token"}}`)
	}))
	defer reject.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/mcp"
	gone.Close()

	okURL := ok.URL + "/mcp"
	rejectURL := reject.URL + "/mcp"
	envTok := []string{"MCPBENCH_TOKEN=" + secretEnvToken}
	headers := []string{
		"-H", "Authorization: Bearer " + secretBearer,
		"-H", "Cookie: session=" + secretCookie,
		"-H", "Proxy-Authorization: Basic " + secretProxy,
		"-H", "X-Api-Key: " + secretAPIKey,
		"--secret-header", "X-Custom-Secret", "-H", "X-Custom-Secret: " + secretCustom,
	}
	out := func(name string) string { return filepath.Join(dir, "reports", name) }
	with := func(args ...string) []string { return append(args, headers...) }

	type call struct {
		name string
		env  []string
		args []string
		code int // -1: any
	}
	calls := []call{
		{"run with the env token", envTok, []string{"run", "--url", okURL, "-n", "20", "-c", "2", "--json-out", out("run-env.json"), "--md-out", out("run-env.md")}, 0},
		{"run with headers", envTok, with("run", "--url", okURL, "-n", "20", "-c", "2", "--json-out", out("run.json"), "--md-out", out("run.md")), 0},
		{"run tools/call with headers", nil, with("run", "--url", okURL, "-n", "20", "--method", "tools/call", "--tool", "echo", "--args", `{"message":"hi"}`, "--json-out", out("call.json")), 0},
		{"sweep with headers", envTok, with("sweep", "--url", okURL, "--concurrency-values", "1,2", "-n", "20",
			"--json-out", out("sweep.json"), "--md-out", out("sweep.md"), "--svg-out", out("sweep.svg")), 0},
		{"sweep with the env token", envTok, []string{"sweep", "--url", okURL, "--concurrency-values", "1", "-n", "10", "--out-dir", out("default")}, 0},
		{"probe with headers", envTok, with("probe", "--url", okURL, "--sequential-samples", "2", "--sequential-sleep-ms", "1",
			"--bench-small-total", "20", "--bench-large-total", "0", "--json-out", out("probe.json"), "--md-out", out("probe.md")), 0},
		{"probe with the env token", envTok, []string{"probe", "--url", okURL, "--sequential-samples", "2", "--sequential-sleep-ms", "1",
			"--bench-small-total", "10", "--bench-large-total", "0", "--json-out", "-"}, 0},
		// Failing cases: refused, unreachable, malformed.
		{"run rejected", envTok, with("run", "--url", rejectURL, "-n", "5", "--json-out", out("rejected.json")), exitUnreachable},
		{"run rejected, env token", envTok, []string{"run", "--url", rejectURL, "-n", "5"}, exitUnreachable},
		{"sweep rejected", envTok, with("sweep", "--url", rejectURL, "--concurrency-values", "1", "-n", "5", "--json-out", out("rejected-sweep.json")), exitUnreachable},
		{"probe rejected", envTok, with("probe", "--url", rejectURL, "--bench-large-total", "0"), -1},
		{"run unreachable", envTok, with("run", "--url", goneURL, "-n", "5"), exitUnreachable},
		{"sweep unreachable", envTok, with("sweep", "--url", goneURL, "--concurrency-values", "1", "-n", "5"), exitUnreachable},
		{"probe unreachable", envTok, with("probe", "--url", goneURL), -1},
		{"run, -H without a colon", nil, []string{"run", "--url", okURL, "-n", "5", "-H", "Authorization Bearer " + secretBearer}, exitUsage},
		{"sweep, -H name with a blank", nil, []string{"sweep", "--url", okURL, "--concurrency-values", "1", "-H", "X-Api-Key " + secretAPIKey + ": x"}, exitUsage},
		{"probe, -H value with a newline", nil, []string{"probe", "--url", okURL, "-H", "Cookie: a=" + secretCookie + "\nX-Injected: 1"}, exitUsage},
		{"run, secret header with a control character", nil, []string{"run", "--url", okURL, "-n", "5", "--secret-header", "X-Custom-Secret", "-H", "X-Custom-Secret: " + secretCustom + "\x7f"}, exitUsage},
	}
	for _, cmd := range []string{"run", "sweep", "probe", "logscan", "compare", "merge", "serve", "version"} {
		calls = append(calls, call{cmd + " --help", envTok, with(cmd, "--help"), -1})
	}
	var outputs []string
	for _, c := range calls {
		r := runCLI(t, c.env, c.args...)
		if c.code >= 0 && r.code != c.code {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", c.name, r.code, c.code, r.stderr)
		}
		outputs = append(outputs, c.name+" stdout: "+r.stdout, c.name+" stderr: "+r.stderr)
	}
	// compare and merge read the reports and write their own.
	for _, c := range []call{
		{"compare", nil, []string{"compare", out("run-env.json"), out("run.json"), "--md-out", out("cmp.md"), "--json-out", out("cmp.json"), "--junit-out", out("cmp.xml")}, -1},
		{"compare sweeps", nil, []string{"compare", out("sweep.json"), out("sweep.json")}, -1},
		{"merge", nil, []string{"merge", out("run-env.json"), out("run.json"), "--json-out", out("merged.json"), "--md-out", out("merged.md")}, -1},
	} {
		r := runCLI(t, c.env, c.args...)
		outputs = append(outputs, c.name+" stdout: "+r.stdout, c.name+" stderr: "+r.stderr)
	}

	// The test means something only if the secrets went out.
	for name, value := range map[string]string{
		"Authorization":       "Bearer " + secretEnvToken,
		"Cookie":              "session=" + secretCookie,
		"Proxy-Authorization": "Basic " + secretProxy,
		"X-Api-Key":           secretAPIKey,
		"X-Custom-Secret":     secretCustom,
	} {
		if !rec.saw(name, value) {
			t.Errorf("the server never received %s: the test is vacuous", name)
		}
	}
	if !rec.saw("Authorization", "Bearer "+secretBearer) {
		t.Error("the server never received the -H Authorization")
	}

	srv.Close() // writes the last stats line
	files := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		outputs = append(outputs, path+": "+string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// run, run-env, call, sweep x3, default sweep x3, probe x2, compare x3,
	// merge x2 and the server log.
	if files < 17 {
		t.Errorf("only %d files to search: some outputs were not written", files)
	}
	for _, o := range outputs {
		for _, s := range allSecrets {
			if strings.Contains(o, s) {
				name, _, _ := strings.Cut(o, ":")
				t.Errorf("secret %s leaked in %s", s, name)
			}
		}
	}
}
