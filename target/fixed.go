package target

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// fixedMCP answers MCP over HTTP with canned results and no SDK in the way:
// the cheapest server that still speaks the protocol, for measuring the
// generator itself (scripts/bench-peers.sh) rather than a server. It is
// stateless 2026-07-28 for server/discover and answers initialize with the
// revision asked for, JSON bodies only.
type fixedMCP struct {
	listResult []byte // the tools/list result, marshalled once
	callResult []byte
	served     atomic.Int64
}

func newFixedMCP(s *Server) *fixedMCP {
	list, _ := json.Marshal(map[string]any{"tools": s.defs})
	call, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": "ok"}},
	})
	return &fixedMCP{listResult: list, callResult: call}
}

func (f *fixedMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result []byte
	switch req.Method {
	case "tools/list":
		result = f.listResult
	case "tools/call":
		result = f.callResult
	case "server/discover":
		result = []byte(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"` + DefaultName + `-fixed","version":"` + DefaultVersion + `"}}}`)
	case "initialize":
		v := req.Params.ProtocolVersion
		if v == "" {
			v = "2025-11-25"
		}
		result = []byte(`{"protocolVersion":` + strconv.Quote(v) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"` + DefaultName + `-fixed","version":"` + DefaultVersion + `"}}`)
	default:
		result = []byte(`{}`)
	}
	f.served.Add(1)
	out := make([]byte, 0, len(result)+len(req.ID)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, req.ID...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	out = append(out, '}')
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	_, _ = w.Write(out)
}
