package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestURLCredentialsEchoedAreScrubbed: a password in the URL goes out as
// Basic authorization; a server repeating that header back gets neither
// the password nor its encoded form into the output.
func TestURLCredentialsEchoedAreScrubbed(t *testing.T) {
	const password = "pw-9x7-secret"
	encoded := base64.StdEncoding.EncodeToString([]byte("ann:" + password))
	srv, err := target.New(target.Config{Stateless: true, JSONResponse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inner := srv.Handler()
	var sawBasic atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pw, ok := r.BasicAuth(); ok && user == "ann" && pw == password {
			sawBasic.Store(true)
		}
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"tools/call"`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": -32000, "message": "rejected " + r.Header.Get("Authorization")}})
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		inner.ServeHTTP(w, r)
	}))
	defer ts.Close()
	out := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, "run", "--url", strings.Replace(ts.URL, "http://", "http://ann:"+password+"@", 1)+"/mcp", "-n", "5",
		"--method", "tools/call", "--tool", "echo", "--args", `{"message":"x"}`, "--json-out", out)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (every call failed): %s", r.code, r.stderr)
	}
	if !sawBasic.Load() {
		t.Fatal("the URL's credentials were not sent as Basic authorization")
	}
	report, _ := os.ReadFile(out)
	if !strings.Contains(string(report), "rejected Basic ***") {
		t.Fatalf("the error example was not kept (scrubbed): %s", report)
	}
	for _, text := range []string{r.stdout, r.stderr, string(report)} {
		if strings.Contains(text, password) || strings.Contains(text, encoded) {
			t.Fatalf("a credential reached the output:\n%s", text)
		}
	}
}
