package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/mcpbench/mcpbench/internal/jsonscan"
)

// Protocol revisions this client speaks, newest first.
const (
	Rev20260728 = "2026-07-28"
	Rev20251125 = "2025-11-25"
	Rev20250618 = "2025-06-18"
	Rev20250326 = "2025-03-26"
	Rev20241105 = "2024-11-05"
)

// Revisions lists the supported revisions, newest first.
func Revisions() []string {
	return []string{Rev20260728, Rev20251125, Rev20250618, Rev20250326, Rev20241105}
}

// IsModern reports whether rev is a stateless revision (2026-07-28 on):
// no initialize, protocol version and client info in every request's _meta.
func IsModern(rev string) bool { return rev >= Rev20260728 }

// Keys of the per-request _meta of modern revisions.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// JSON-RPC error codes that change what the client does.
const (
	codeUnsupportedVersion = -32022
	codeMethodNotFound     = -32601
)

// Request is one operation to send: a method, and for tools/call the tool
// name and its arguments.
type Request struct {
	Method string
	// Tool is what a named method names (methods.go): the tool of
	// tools/call, the URI of resources/read, the prompt of prompts/get.
	// It goes in the params, the Mcp-Name header and the report's label.
	Tool string
	// Arguments are a tools/call's (nil means {}) or a prompts/get's.
	Arguments json.RawMessage
	Params    json.RawMessage // other methods: the params object, nil means {}
}

// Prepared is a Request framed once for one session: the body is head + id +
// "}", so sending costs an integer format and a copy.
type Prepared struct {
	req  Request
	head []byte
	// nameHeader is the Mcp-Name value (2026-07-28), encoded once, and
	// params the Mcp-Param headers the arguments give (paramheaders.go);
	// relisted says a HeaderMismatch already made the client list again.
	nameHeader string
	params     [][2]string
	relisted   bool
	// hdr is the header map for hdrSession and hdrRev.
	hdr        http.Header
	hdrSession string
	hdrRev     string
	hdrAuth    string
	wire       *wireRequest // the direct engine's form
	// traceparent is set on a sampled request's one-off copy (trace.go).
	traceparent string
}

// Method returns the prepared request's method.
func (p *Prepared) Method() string { return p.req.Method }

// Tool returns the prepared request's tool name, if any.
func (p *Prepared) Tool() string { return p.req.Tool }

// label names the request in an error: its method, and its tool if any.
func (p *Prepared) label() string {
	if p.req.Tool != "" {
		return p.req.Method + " " + p.req.Tool
	}
	return p.req.Method
}

// ClientInfo names this client to servers.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// buildParams returns the params object of req, with the modern _meta block
// when meta is non-nil and a cursor when one is given.
func buildParams(req Request, meta []byte, cursor string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	if meta != nil {
		sep()
		b.WriteString(`"_meta":`)
		b.Write(meta)
	}
	if key := nameKey(req.Method); key != "" {
		sep()
		b.WriteString(`"` + key + `":`)
		name, _ := json.Marshal(req.Tool)
		b.Write(name)
		if len(req.Arguments) > 0 || req.Method == "tools/call" {
			sep()
			b.WriteString(`"arguments":`)
			if err := writeCompact(&b, req.Arguments); err != nil {
				return nil, err
			}
		}
	} else if len(req.Params) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(req.Params, &obj); err != nil {
			return nil, err
		}
		delete(obj, "_meta")
		delete(obj, "cursor")
		for k, v := range obj {
			sep()
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeCompact(&b, v); err != nil {
				return nil, err
			}
		}
	}
	if cursor != "" {
		sep()
		b.WriteString(`"cursor":`)
		cb, _ := json.Marshal(cursor)
		b.Write(cb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// frameHead returns `{"jsonrpc":"2.0","method":M,"params":P,"id":` so that
// appending an id and "}" completes the message.
func frameHead(method string, params []byte) []byte {
	m, _ := json.Marshal(method)
	head := make([]byte, 0, len(params)+len(m)+48)
	head = append(head, `{"jsonrpc":"2.0","method":`...)
	head = append(head, m...)
	head = append(head, `,"params":`...)
	head = append(head, params...)
	head = append(head, `,"id":`...)
	return head
}

// notification frames a JSON-RPC notification (no id).
func notification(method string) []byte {
	m, _ := json.Marshal(method)
	return append(append([]byte(`{"jsonrpc":"2.0","method":`), m...), '}')
}

// reply is the part of a JSON-RPC message classification needs: raw
// sub-slices of the message, valid as long as the message bytes are.
type reply struct {
	ID, Method, Result, Error []byte
	found                     [4][]byte
	// Members of the result read in the same pass: nextCursor, isError,
	// structuredContent, resultType (2026-07-28) and task (a task handle).
	inResult [numResultKeys][]byte
	memo     parseMemo
	// shared, when set, is used instead of memo: the memo of the event
	// loop the session's request runs on (transport_loop.go).
	shared *parseMemo
}

var replyKeys = [][]byte{[]byte("id"), []byte("method"), []byte("result"), []byte("error")}

// parse scans one JSON-RPC message; a null member counts as absent.
func (r *reply) parse(b []byte) error {
	m := &r.memo
	if r.shared != nil {
		m = r.shared
	}
	if !m.recall(b, &r.found, &r.inResult) {
		if err := jsonscan.MembersWithin(b, replyKeys, r.found[:], resultKey, resultKeys[:], r.inResult[:]); err != nil {
			r.ID, r.Method, r.Result, r.Error = nil, nil, nil, nil
			r.found, r.inResult = [4][]byte{}, [numResultKeys][]byte{}
			return err
		}
		m.remember(b, &r.found, &r.inResult)
	}
	r.settle()
	return nil
}

// settle names the members found, a null one absent.
func (r *reply) settle() {
	r.ID, r.Method, r.Result, r.Error = r.found[0], nonNull(r.found[1]), nonNull(r.found[2]), nonNull(r.found[3])
}

// isNotification says the message is a request or notification from the
// server, not an answer.
func (r *reply) isNotification() bool { return len(r.Method) > 0 }

func nonNull(b []byte) []byte {
	if string(b) == "null" {
		return nil
	}
	return b
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

var (
	resultKey  = []byte("result")
	resultKeys = [numResultKeys][]byte{[]byte("nextCursor"), []byte("isError"), []byte("structuredContent"), []byte("resultType"), []byte("task")}
)

// Where each of resultKeys is found in reply.inResult.
const (
	inNextCursor = iota
	inIsError
	inStructured
	inResultType
	inTask
	numResultKeys
)

// inputRequired says the result asks for another round (2026-07-28
// multi round-trip requests): resultType "input_required".
func (r *reply) inputRequired() bool {
	return string(r.inResult[inResultType]) == `"input_required"`
}
