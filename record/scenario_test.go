package record

import (
	"encoding/json"
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
