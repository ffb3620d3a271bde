package interop

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
)

// A server of the matrix, wrapped so that it counts what it receives.
type server struct {
	impl, transport string
	opts            mcp.Options // URL, or the stdio command
	count           func() counts
	// sessions: the server keeps sessions (DELETE ends one, a GET stream
	// belongs to one). streamable: Streamable HTTP, which the direct
	// engine carries; HTTP+SSE and stdio have one engine each.
	sessions, streamable bool
	// legacy: HTTP+SSE, where a session is a GET stream and ends with it
	// (no DELETE).
	legacy bool
	pages  string // how tools/list pages, for the table
	// scenarioSessions, when set, is a scenario cell's count instead of
	// sessions: more where sessions cost little (the Go servers without
	// the bundled one's 1002 tools to list); loopSessions, when set, the
	// count on the event loops.
	scenarioSessions, loopSessions int64
	// listTotal is the tools/list cell's request count (pages included).
	listTotal int64
}

// pageSize is the page of the Go servers that let it be set: the
// listings of every tools/list cell take several requests.
const pageSize = 2

// extraTools are the tools beside echo on the servers the matrix builds,
// so that a listing has three pages.
const extraTools = 4

// serve wraps h in a counter and serves it on loopback until the test ends.
func serve(t *testing.T, h http.Handler) (string, *counter) {
	c := newCounter()
	ts := httptest.NewServer(c.wrap(h))
	t.Cleanup(ts.Close)
	return ts.URL, c
}

// bundled is mcpbench serve in one of its modes. Its SDK pages at 1000
// tools, so it gets 1000 synthetic ones: with echo and fail, two pages.
func bundled(t *testing.T, transport string, cfg target.Config) server {
	cfg.Tools = 1000
	s, err := target.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	u, c := serve(t, s.Handler())
	return server{impl: "mcpbench serve", transport: transport, opts: mcp.Options{URL: u + "/mcp"}, count: c.snapshot,
		sessions: !cfg.Stateless, streamable: true, pages: "1002 tools, 1000 a page", listTotal: 4}
}

type echoIn struct {
	Message string `json:"message"`
}

// goSDK is the official Go SDK's Streamable HTTP handler with echo and
// extraTools more, pageSize to a page.
func goSDK(t *testing.T, stateless bool) server {
	s := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-peer", Version: "1"}, &sdk.ServerOptions{PageSize: pageSize})
	for i := range extraTools + 1 {
		name := "echo"
		if i > 0 {
			name = fmt.Sprintf("tool_%d", i)
		}
		sdk.AddTool(s, &sdk.Tool{Name: name}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Message}}}, nil, nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: stateless})
	u, c := serve(t, h)
	return server{impl: "Go SDK " + sdkVersion, transport: statefulName(stateless), opts: mcp.Options{URL: u}, count: c.snapshot,
		sessions: !stateless, streamable: true, scenarioSessions: 40, pages: fmt.Sprintf("%d tools, %d a page", extraTools+1, pageSize)}
}

// sdkVersion is the go.mod's; TestSDKVersionsAsInGoMod keeps it so.
const sdkVersion, mcpGoVersion = "v1.8.0", "v1.2.1"

func statefulName(stateless bool) string {
	if stateless {
		return "Streamable HTTP, stateless"
	}
	return "Streamable HTTP, stateful"
}

func mark3labs() *m3server.MCPServer {
	s := m3server.NewMCPServer("mcp-go-peer", mcpGoVersion, m3server.WithToolCapabilities(false), m3server.WithPaginationLimit(pageSize))
	for i := range extraTools + 1 {
		name := "echo"
		if i > 0 {
			name = fmt.Sprintf("tool_%d", i)
		}
		s.AddTool(m3mcp.NewTool(name, m3mcp.WithString("message", m3mcp.Required())),
			func(ctx context.Context, req m3mcp.CallToolRequest) (*m3mcp.CallToolResult, error) {
				return m3mcp.NewToolResultText(req.GetString("message", "")), nil
			})
	}
	return s
}

// mcpGo is mark3labs/mcp-go's Streamable HTTP server, stateful or not.
func mcpGo(t *testing.T, stateless bool) server {
	u, c := serve(t, m3server.NewStreamableHTTPServer(mark3labs(), m3server.WithStateLess(stateless)))
	o := mcp.Options{URL: u + "/mcp"}
	name := statefulName(stateless)
	if !stateless { // 2026-07-28 has no sessions: the revision
		o.ProtocolVersion, name = mcp.Rev20250618, name+" (2025-06-18)"
	}
	var onLoops int64
	if !stateless {
		onLoops = 400 // issue 46's misread: see sessions
	}
	return server{impl: "mcp-go " + mcpGoVersion, transport: name, opts: o, count: c.snapshot,
		sessions: !stateless, streamable: true, scenarioSessions: 40, loopSessions: onLoops, pages: fmt.Sprintf("%d tools, %d a page", extraTools+1, pageSize)}
}

// mcpGoSSE is mcp-go's legacy HTTP+SSE server (2024-11-05): its POSTs
// and the GET of its stream go through the counter.
func mcpGoSSE(t *testing.T) server {
	c := newCounter()
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	ts.Config.Handler = c.wrap(m3server.NewSSEServer(mark3labs(), m3server.WithBaseURL(ts.URL)))
	return server{impl: "mcp-go " + mcpGoVersion, transport: "HTTP+SSE (2024-11-05)", opts: mcp.Options{URL: ts.URL + "/sse"}, count: c.snapshot,
		sessions: true, legacy: true, pages: fmt.Sprintf("%d tools, %d a page", extraTools+1, pageSize)}
}

// everythingHTTP is server-everything's Streamable HTTP behind a counting
// reverse proxy on loopback (it is a Node process: no middleware of ours
// goes in it).
func everythingHTTP(t *testing.T, entry string) server {
	upstream, err := url.Parse(startEverything(t, entry, "streamableHttp"))
	if err != nil {
		t.Fatal(err)
	}
	// A connection per request to Node: its server closes a kept-alive
	// one after 5 s idle, and a POST the proxy sent on one as it closed
	// came back as the proxy's own 502 (starved, in make test).
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(upstream); r.Out.Host = r.In.Host },
		FlushInterval: -1, // SSE answers pass as they come
		Transport:     tr,
	}
	u, c := serve(t, proxy)
	return server{impl: "TypeScript SDK (server-everything)", transport: "Streamable HTTP", opts: mcp.Options{URL: u + "/mcp"}, count: c.snapshot,
		sessions: true, streamable: true, pages: "one page (it does not paginate)"}
}

// TestSDKVersionsAsInGoMod keeps the versions the table names those that
// ran.
func TestSDKVersionsAsInGoMod(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for mod, v := range map[string]string{"github.com/modelcontextprotocol/go-sdk": sdkVersion, "github.com/mark3labs/mcp-go": mcpGoVersion} {
		if !strings.Contains(string(b), "\t"+mod+" "+v+"\n") {
			t.Errorf("go.mod does not require %s %s: update the versions in servers_test.go", mod, v)
		}
	}
}
