package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// TestOAuthRun: run gets its token by OAuth from the bundled server (secret
// from the environment), renews it while measuring, reports the renewals,
// and writes no token anywhere.
func TestOAuthRun(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	srv, err := target.New(target.Config{OAuth: true, TokenTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec := &headerRecorder{seen: map[string]map[string]bool{}}
	ts := httptest.NewServer(rec.wrap(srv.Handler()))
	defer func() { ts.Close(); srv.Close() }()
	report := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, []string{"MCPBENCH_OAUTH_CLIENT_SECRET=" + target.DefaultOAuthClientSecret},
		"run", "--url", ts.URL+"/mcp", "-d", "3s", "-c", "2", "--oauth", "client-credentials",
		"--oauth-client-id", target.DefaultOAuthClientID, "--json-out", report, "--md-out", report+".md")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Errors   int64            `json:"errors"`
		Counters map[string]int64 `json:"counters"`
	}
	raw, _ := os.ReadFile(report)
	md, _ := os.ReadFile(report + ".md")
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Errors != 0 || rep.Counters["token_refreshes"] < 2 {
		t.Fatalf("report %s (%v)", raw, err)
	}
	tokens := 0
	for v := range rec.seen["Authorization"] {
		tok := strings.TrimPrefix(v, "Bearer ")
		tokens++
		for _, out := range []string{r.stdout, r.stderr, string(raw), string(md)} {
			if strings.Contains(out, tok) {
				t.Fatalf("a token was written out")
			}
		}
	}
	if tokens < 3 {
		t.Fatalf("%d tokens seen by the server", tokens)
	}
	for _, out := range []string{r.stdout, r.stderr, string(raw), string(md)} {
		if strings.Contains(out, target.DefaultOAuthClientSecret) {
			t.Fatal("the client secret was written out")
		}
	}
}

// TestClientRequestsFlag: every call of a tool that elicits is answered and
// counted, under the default policy and a file of answers; bad values are
// usage errors.
func TestClientRequestsFlag(t *testing.T) {
	srv := startTarget(t, target.Config{ClientTools: true})
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"elicitation/create":{"action":"accept","content":{"name":"x"}}}`), 0o600)
	for _, policy := range []string{"decline", answers} {
		r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "40", "-c", "2", "--timeout", "5s",
			"--method", "tools/call", "--tool", target.ToolElicit, "--client-requests", policy, "--json-out", "-")
		var rep struct {
			OK       int64            `json:"ok"`
			Counters map[string]int64 `json:"counters"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || rep.OK != 40 || rep.Counters["client_requests/elicitation/create"] != 40 {
			t.Fatalf("%s: exit %d, %s %s", policy, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"--client-requests", filepath.Join(t.TempDir(), "missing.json")},
		{"--oauth", "password"},
		{"--oauth-client-id", "x"},
		{"--oauth", "client-credentials", "--oauth-client-id", "x"},
	} {
		r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-n", "1"}, args...)...)
		if r.code != exitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
}

// Test2026ToolsRun: run against the 2026-07-28 tools: the x-mcp-header
// tool's header goes out from the first call (run lists the tools before
// measuring), and the input_required tool's second rounds are counted.
func Test2026ToolsRun(t *testing.T) {
	srv := startTarget(t, target.Config{ClientTools: true, Stateless: true})
	for _, c := range []struct {
		tool, args string
		rounds     int64
	}{
		{target.ToolRegion, `{"region":"asia-east2"}`, 0},
		{target.ToolInputOnce, `{}`, 30},
	} {
		r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-n", "30", "-c", "3", "--method", "tools/call",
			"--tool", c.tool, "--args", c.args, "--json-out", "-")
		var rep struct {
			Requests, OK int64
			Counters     map[string]int64 `json:"counters"`
			Target       struct {
				ProtocolVersion string `json:"protocol_version"`
			} `json:"target"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
			t.Fatalf("%s: exit %d, %s %s", c.tool, r.code, r.stdout, r.stderr)
		}
		if rep.Requests != 30 || rep.OK != 30 || rep.Counters["round_trips"] != c.rounds || rep.Target.ProtocolVersion != "2026-07-28" {
			t.Fatalf("%s: %s", c.tool, r.stdout)
		}
	}
}
