package target

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// fixedMCP answers MCP over HTTP with canned results and neither the SDK nor
// net/http in the way: the cheapest server that still speaks the protocol,
// for measuring a load generator rather than a server
// (scripts/bench-peers.sh). It serves on fasthttp (or net/http, when asked
// to stand in for a trivial net/http responder), finds the id and method
// by scanning the body instead of decoding it, and answers tools/list with
// the echo tool alone. server/discover says 2026-07-28; initialize gets the
// revision it asked for. JSON bodies only; nothing is modelled or counted
// beyond the requests served.
type fixedMCP struct {
	list, call, discover []byte // canned results
	served               int64
}

func newFixedMCP(s *Server) *fixedMCP {
	var echo any
	for _, t := range s.defs {
		if t.Name == ToolEcho {
			echo = t
		}
	}
	list, _ := json.Marshal(map[string]any{"tools": []any{echo}})
	info := `{"name":"` + DefaultName + `-fixed","version":"` + DefaultVersion + `"}`
	return &fixedMCP{
		list:     list,
		call:     []byte(`{"content":[{"type":"text","text":"ok"}],"isError":false}`),
		discover: []byte(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`),
	}
}

var (
	keyID     = []byte(`"id"`)
	keyMethod = []byte(`"method"`)
)

// valueAfter returns the raw JSON scalar after key in body ("" if absent):
// enough for ids and method names, which are numbers or plain strings.
func valueAfter(body, key []byte) []byte {
	i := bytes.Index(body, key)
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] == '"' {
		if j := bytes.IndexByte(rest[1:], '"'); j >= 0 {
			return rest[:j+2]
		}
		return nil
	}
	j := 0
	for j < len(rest) && rest[j] != ',' && rest[j] != '}' && rest[j] != ' ' {
		j++
	}
	return rest[:j]
}

// answer is the canned answer to a request for path: its status, and for
// 200 the JSON-RPC message, appended to out.
func (f *fixedMCP) answer(path string, post bool, body, out []byte) (int, []byte) {
	if path == "/health" {
		out = append(out, `{"status":"ok","mode":"fixed","served":`...)
		return http.StatusOK, append(strconv.AppendInt(out, atomic.LoadInt64(&f.served), 10), '}')
	}
	if path != "/mcp" {
		return http.StatusNotFound, out
	}
	if !post {
		return http.StatusMethodNotAllowed, out
	}
	id := valueAfter(body, keyID)
	if len(id) == 0 || string(id) == "null" { // a notification
		return http.StatusAccepted, out
	}
	var result []byte
	switch m := valueAfter(body, keyMethod); string(m) {
	case `"tools/list"`:
		result = f.list
	case `"tools/call"`:
		result = f.call
	case `"server/discover"`:
		result = f.discover
	case `"initialize"`:
		v := valueAfter(body, []byte(`"protocolVersion"`))
		if len(v) == 0 {
			v = []byte(`"2025-11-25"`)
		}
		result = []byte(`{"protocolVersion":` + string(v) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"` + DefaultName + `-fixed","version":"` + DefaultVersion + `"}}`)
	default:
		result = []byte(`{}`)
	}
	atomic.AddInt64(&f.served, 1)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return http.StatusOK, append(out, '}')
}

// serve carries answer on fasthttp, the default: the server's cost stays
// near zero.
func (f *fixedMCP) serve(ctx *fasthttp.RequestCtx) {
	buf := fixedBuffers.Get().(*[]byte)
	defer fixedBuffers.Put(buf)
	status, out := f.answer(string(ctx.Path()), ctx.IsPost(), ctx.PostBody(), (*buf)[:0])
	*buf = out
	ctx.SetStatusCode(status)
	if status == http.StatusOK {
		ctx.SetContentType("application/json")
		ctx.SetBody(out)
	}
}

// ServeHTTP carries answer on net/http: the "trivial Go net/http
// responder" that generator comparisons are often quoted against.
func (f *fixedMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	buf := fixedBuffers.Get().(*[]byte)
	defer fixedBuffers.Put(buf)
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	status, out := f.answer(r.URL.Path, r.Method == http.MethodPost, body, (*buf)[:0])
	*buf = out
	if status != http.StatusOK {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

var fixedBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
