package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
)

// Requests a server sends its client while it works on a call:
// elicitation/create, sampling/createMessage, roots/list (and ping). A
// load tester has no user and no model, so a policy answers them, the same
// on every transport, and they are counted by method. A server that gets
// no answer waits, and the call would end at --timeout: measuring the
// time-out, not the server. The 2026-07-28 input_required results carry
// the same requests and are answered by the same policy (mrtr.go).

// ClientRequests is the policy that answers requests from the server.
// The nil policy is the default: decline elicitations, -32601 (method not
// found) for sampling and roots.
type ClientRequests struct {
	refuseAll bool                       // "error": a JSON-RPC error for every request
	canned    map[string]json.RawMessage // results by method, from a file
}

// ParseClientRequests reads --client-requests: decline (the default),
// error, or the path of a JSON file that maps methods to the result to
// send, e.g. {"elicitation/create": {"action": "accept"}}. An accepted
// elicitation without content is answered with the defaults its schema
// names. Methods the file leaves out are answered as by default.
func ParseClientRequests(spec string) (*ClientRequests, error) {
	switch spec {
	case "", "decline":
		return nil, nil
	case "error":
		return &ClientRequests{refuseAll: true}, nil
	}
	raw, err := os.ReadFile(spec)
	if err != nil {
		return nil, configErrorf("--client-requests: %v (give decline, error or a JSON file)", err)
	}
	var canned map[string]json.RawMessage
	if err := json.Unmarshal(raw, &canned); err != nil {
		return nil, configErrorf("--client-requests %s %s", spec, clientRequestsShape(raw, err))
	}
	for m, v := range canned {
		line := keyLine(raw, m)
		if methodIndex(m) == len(serverMethods)-1 {
			return nil, configErrorf("--client-requests %s line %d: %q is not a request a server sends (%s)", spec, line, m, strings.Join(serverMethods[:len(serverMethods)-1], ", "))
		}
		if len(bytes.TrimSpace(v)) == 0 || bytes.TrimSpace(v)[0] != '{' {
			return nil, configErrorf("--client-requests %s line %d: the answer to %s must be a JSON object, e.g. {\"action\": \"accept\"}", spec, line, m)
		}
	}
	return &ClientRequests{canned: canned}, nil
}

// clientRequestsShape says what is wrong with a --client-requests file
// that is not a JSON object, at which line, in JSON's words.
func clientRequestsShape(raw []byte, err error) string {
	const want = `a JSON object of results by method, e.g. {"elicitation/create": {"action": "accept"}}`
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: not valid JSON (%v); want %s", lineOf(raw, se.Offset), se, want)
	case errors.As(err, &te):
		return fmt.Sprintf("line %d: found a JSON %s; want %s", lineOf(raw, te.Offset), te.Value, want)
	}
	return "line 1: want " + want
}

// lineOf is the line (from 1) of byte off in b.
func lineOf(b []byte, off int64) int {
	return 1 + bytes.Count(b[:min(max(off, 0), int64(len(b)))], []byte("\n"))
}

// keyLine is the line where the key k is written in the JSON object b.
func keyLine(b []byte, k string) int {
	q, _ := json.Marshal(k)
	return lineOf(b, int64(bytes.Index(b, q)))
}

// clientCounts are the client's counts of what is not a measured request;
// each is touched only when what it counts happens.
type clientCounts struct {
	requests                [len(serverMethods)]atomic.Int64
	progress, rounds, polls atomic.Int64
	// reopens counts standing GET streams asked for again after they
	// ended or could not be opened: a server that drops them shows.
	reopens atomic.Int64
}

// serverMethods are the requests counted by name; the last entry counts
// every other method.
var serverMethods = [...]string{"elicitation/create", "sampling/createMessage", "roots/list", "ping", "other"}

func methodIndex(m string) int {
	for i, name := range serverMethods[:len(serverMethods)-1] {
		if m == name {
			return i
		}
	}
	return len(serverMethods) - 1
}

// answerTo returns the result, or else the error, to send for a request.
func (p *ClientRequests) answerTo(method string, params json.RawMessage) (json.RawMessage, *rpcError) {
	if method == "ping" {
		return json.RawMessage(`{}`), nil // liveness: always answered
	}
	if p != nil && p.refuseAll {
		return nil, &rpcError{Code: codeMethodNotFound, Message: "mcpbench answers no " + method + " (--client-requests error)"}
	}
	if p != nil {
		if res, ok := p.canned[method]; ok {
			if method == "elicitation/create" {
				return withSchemaDefaults(res, params), nil
			}
			return res, nil
		}
	}
	if method == "elicitation/create" {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "mcpbench does not answer " + method + " (see --client-requests)"}
}

// withSchemaDefaults fills an accepting elicitation answer that has no
// content with the defaults of the requested schema (SEP-1034).
func withSchemaDefaults(res, params json.RawMessage) json.RawMessage {
	var ans map[string]json.RawMessage
	if json.Unmarshal(res, &ans) != nil || string(ans["action"]) != `"accept"` || ans["content"] != nil {
		return res
	}
	var req struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &req)
	content := map[string]json.RawMessage{}
	for name, prop := range req.RequestedSchema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	ans["content"], _ = json.Marshal(content)
	out, _ := json.Marshal(ans)
	return out
}

// capabilities are the client capabilities the policy can honour: a
// declined elicitation is still an answer, sampling and roots only when
// the file has answers for them.
func (p *ClientRequests) capabilities() map[string]any {
	caps := map[string]any{}
	if p == nil || !p.refuseAll {
		caps["elicitation"] = map[string]any{}
	}
	if p != nil {
		if _, ok := p.canned["sampling/createMessage"]; ok {
			caps["sampling"] = map[string]any{}
		}
		if _, ok := p.canned["roots/list"]; ok {
			caps["roots"] = map[string]any{}
		}
	}
	return caps
}

// serverMessage handles a message from the server that is not the answer
// being waited for: a progress notification is counted, a request is
// answered by the policy. It returns the JSON-RPC response to send back,
// or nil. rep is data already scanned; notifications cost no allocation.
func (c *Client) serverMessage(rep *reply, data []byte) []byte {
	if len(nonNull(rep.ID)) == 0 {
		if string(rep.Method) == `"notifications/progress"` {
			c.counts.progress.Add(1)
		}
		return nil
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	c.counts.requests[methodIndex(m.Method)].Add(1)
	res, rerr := c.opts.ClientRequests.answerTo(m.Method, m.Params)
	return frameAnswer(nonNull(rep.ID), res, rerr)
}

// frameAnswer frames a JSON-RPC response to the request numbered id.
func frameAnswer(id, result json.RawMessage, e *rpcError) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	if e != nil {
		eb, _ := json.Marshal(e)
		b = append(append(b, `,"error":`...), eb...)
	} else {
		b = append(append(b, `,"result":`...), result...)
	}
	return append(b, '}')
}

// Counters returns what the client counted beside the measured requests,
// by name: requests from the server by method (client_requests/METHOD),
// progress_events, round_trips (extra rounds of multi round-trip calls),
// task_polls, token_refreshes, sessions_abandoned and streams_reopened
// (standing GET streams asked for again). Every count only grows; a caller takes
// the difference over the interval it measures.
func (c *Client) Counters() map[string]int64 {
	out := map[string]int64{}
	for i, m := range serverMethods {
		if n := c.counts.requests[i].Load(); n > 0 {
			out["client_requests/"+m] = n
		}
	}
	for name, n := range map[string]int64{
		"progress_events":    c.counts.progress.Load(),
		"round_trips":        c.counts.rounds.Load(),
		"task_polls":         c.counts.polls.Load(),
		"token_refreshes":    c.tokenRefreshes(),
		"sessions_abandoned": c.AbandonedSessions(),
		"streams_reopened":   c.counts.reopens.Load(),
	} {
		if n > 0 {
			out[name] = n
		}
	}
	return out
}

// String names the policy in force, for a report header.
func (p *ClientRequests) String() string {
	switch {
	case p == nil:
		return "decline"
	case p.refuseAll:
		return "error"
	}
	methods := make([]string, 0, len(p.canned))
	for m := range p.canned {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	return fmt.Sprintf("canned (%s)", strings.Join(methods, ", "))
}
