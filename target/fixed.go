package target

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/valyala/fasthttp"
)

// fixedMCP answers MCP over HTTP with canned results and neither the SDK nor
// net/http in the way: the cheapest server that still speaks the protocol,
// for measuring a load generator rather than a server
// (scripts/bench-peers.sh). It serves on fasthttp, finds the id and method
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

func (f *fixedMCP) serve(ctx *fasthttp.RequestCtx) {
	path := ctx.Path()
	if string(path) == "/health" {
		ctx.SetContentType("application/json")
		ctx.SetBodyString(`{"status":"ok","mode":"fixed","served":` + strconv.FormatInt(f.served, 10) + `}`)
		return
	}
	if string(path) != "/mcp" {
		ctx.SetStatusCode(fasthttp.StatusNotFound)
		return
	}
	if !ctx.IsPost() {
		ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
		return
	}
	body := ctx.PostBody()
	id := valueAfter(body, keyID)
	if len(id) == 0 || string(id) == "null" { // a notification
		ctx.SetStatusCode(fasthttp.StatusAccepted)
		return
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
	f.served++ // one handler goroutine per connection: an estimate, not exact
	ctx.SetContentType("application/json")
	w := ctx.Response.BodyWriter()
	w.Write([]byte(`{"jsonrpc":"2.0","id":`))
	w.Write(id)
	w.Write([]byte(`,"result":`))
	w.Write(result)
	w.Write([]byte(`}`))
}
