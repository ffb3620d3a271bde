package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/target"
)

// TestSecretEchoedByServerIsScrubbed: a server that repeats the credential
// in its error message must not get it into a report or onto the terminal;
// the value is written as ***.
func TestSecretEchoedByServerIsScrubbed(t *testing.T) {
	const token = "tok-3chO-xy9-secret"
	const custom = "custom-val-77"
	srv, err := target.New(target.Config{Stateless: true, JSONResponse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inner := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"tools/call"`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			msg := fmt.Sprintf("rejected %s and %s", r.Header.Get("Authorization"), r.Header.Get("X-Custom-Secret"))
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": -32000, "message": msg}})
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		inner.ServeHTTP(w, r)
	}))
	defer ts.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	md := filepath.Join(dir, "run.md")
	r := runCLI(t, []string{"MCPBENCH_TOKEN=" + token}, "run", "--url", ts.URL+"/mcp", "-n", "10",
		"--method", "tools/call", "--tool", "echo", "--args", `{"message":"x"}`,
		"--secret-header", "X-Custom-Secret", "-H", "X-Custom-Secret: "+custom, "--json-out", out, "--md-out", md)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (every call failed): %s", r.code, r.stderr)
	}
	report, _ := os.ReadFile(out)
	mdText, _ := os.ReadFile(md)
	if !strings.Contains(string(report), "rejected Bearer ***") {
		t.Fatalf("the error example was not kept (scrubbed): %s", report)
	}
	for _, text := range []string{r.stdout, r.stderr, string(report), string(mdText)} {
		if strings.Contains(text, token) || strings.Contains(text, custom) {
			t.Fatalf("a secret reached the output:\n%s", text)
		}
	}
}
