package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSteps: a session's calls become steps: the handshake and a
// listing's later pages left out, a gap of at least minThink a think
// step, calls sent before the others were answered a parallel block, and
// the --redact paths scrubbed.
func TestSteps(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	call := func(method, params string, sent, answer int) Call {
		return Call{Method: method, Params: json.RawMessage(params), Sent: at(sent), Answer: at(answer)}
	}
	calls := []Call{
		call("initialize", `{}`, 0, 2),
		call("tools/list", `{}`, 3, 5),
		call("tools/list", `{"cursor":"p2"}`, 5, 6),
		call("tools/call", `{"name":"echo","arguments":{"message":"a","auth":{"key":"s3cret"}}}`, 300, 302),
		call("tools/call", `{"name":"echo","arguments":{"message":"b"}}`, 303, 310),
		call("resources/read", `{"uri":"demo://x"}`, 304, 308),
		call("prompts/get", `{"name":"p","arguments":{"token":"t"}}`, 311, 312),
		call("sampling/whatever", `{}`, 313, 314),
	}
	got := steps(calls, []string{"auth.key", "token"})
	if len(got) != 5 {
		t.Fatalf("%d steps: %+v", len(got), got)
	}
	if got[0].List == nil || got[1].Think != "295ms" || got[2].Call == nil || len(got[3].Parallel) != 2 || got[4].Request == nil {
		t.Fatalf("steps %+v", got)
	}
	if key := got[2].Call.Args["auth"].(map[string]any)["key"]; key != Redacted || got[2].Call.Args["message"] != "a" {
		t.Errorf("redact: %v", got[2].Call.Args)
	}
	if got[3].Parallel[1].Request.URI != "demo://x" || got[4].Request.Args["token"] != Redacted {
		t.Errorf("requests: %+v %+v", got[3].Parallel[1].Request, got[4].Request)
	}
}

// TestWritePoolsVaryingArguments: a tool called with different arguments
// (across sessions and in a parallel block) gets a data file beside the
// scenario, one line per recorded call in order, redacted, and its call
// steps read it; a tool always called alike keeps its arguments inline.
func TestWritePoolsVaryingArguments(t *testing.T) {
	t0 := time.Unix(0, 0)
	call := func(params string, sent int) Call {
		at := t0.Add(time.Duration(sent) * time.Millisecond)
		return Call{Method: "tools/call", Params: json.RawMessage(params), Sent: at, Answer: at.Add(time.Millisecond)}
	}
	one := []Call{
		call(`{"name":"echo","arguments":{"message":"a","token":"s3cret"}}`, 0),
		call(`{"name":"get-sum","arguments":{"a":1,"b":2}}`, 10),
		call(`{"name":"echo","arguments":{"message":"b"}}`, 20),
		call(`{"name":"echo","arguments":{"message":"c"}}`, 20),
	}
	two := []Call{call(`{"name":"echo","arguments":{"message":"d"}}`, 0), call(`{"name":"get-sum","arguments":{"a":1,"b":2}}`, 10)}
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.yaml")
	if n, err := Write(path, [][]Call{one, two}, []string{"token"}); err != nil || n != 2 {
		t.Fatalf("Write: %d %v", n, err)
	}
	rows, err := os.ReadFile(filepath.Join(dir, "agent.echo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"message":"a","token":"REDACTED"}` + "\n" + `{"message":"b"}` + "\n" + `{"message":"c"}` + "\n" + `{"message":"d"}` + "\n"
	if string(rows) != want {
		t.Fatalf("data file:\n%s\nwant:\n%s", rows, want)
	}
	b, _ := os.ReadFile(path)
	if got := strings.Count(string(b), "file: agent.echo.jsonl"); got != 4 {
		t.Errorf("%d call steps read the data file, want 4:\n%s", got, b)
	}
	if strings.Contains(string(b), "message:") || strings.Count(string(b), "b: 2") != 2 {
		t.Errorf("echo's arguments should be pooled, get-sum's inline:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.get-sum.jsonl")); err == nil {
		t.Error("get-sum, always called alike, has a data file")
	}
}
