package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// The interoperability matrix: every transport of three independent MCP
// implementations, each cell a tools/list and an echo tools/call run that
// must come back with requests == ok == n. Set MCPBENCH_INTEROP_OUT to
// write the matrix as a Markdown table (make interop-doc does).

type interopCell struct {
	impl, transport string
	opts            mcp.Options
}

type interopRow struct {
	cell     interopCell
	protocol string
	list     measure.Point
	call     measure.Point
}

func repoRoot(t *testing.T) string {
	root, _ := filepath.Abs("..") // go test runs in the package's folder
	return root
}

// everythingEntry finds server-everything as scripts/install-peers.sh
// installs it. make test requires it (MCPBENCH_REQUIRE_PEERS=1); a plain
// go test on a machine without Node.js skips those cells and says so.
func everythingEntry(t *testing.T) string {
	entry := filepath.Join(repoRoot(t), ".run/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	_, err := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if err == nil && nodeErr == nil {
		return entry
	}
	if os.Getenv("MCPBENCH_REQUIRE_PEERS") != "" {
		t.Fatalf("server-everything is not installed (run scripts/install-peers.sh): %v %v", err, nodeErr)
	}
	t.Log("server-everything cells skipped: run scripts/install-peers.sh (make test does)")
	return ""
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverything runs server-everything in mode (streamableHttp or sse)
// on a free loopback port and waits until it listens.
func startEverything(t *testing.T, entry, mode string) string {
	port := freePort(t)
	cmd := exec.Command("node", entry, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	go func() { // drain, so the server never blocks on a full pipe
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server-everything %s did not listen on %s", mode, addr)
	return ""
}

func mark3labsServer() *m3server.MCPServer {
	s := m3server.NewMCPServer("mark3labs-peer", "1.2.1", m3server.WithToolCapabilities(false))
	s.AddTool(m3mcp.NewTool("echo", m3mcp.WithString("message", m3mcp.Required())),
		func(ctx context.Context, req m3mcp.CallToolRequest) (*m3mcp.CallToolResult, error) {
			return m3mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	return s
}

func TestInteropMatrix(t *testing.T) {
	var cells []interopCell
	add := func(impl, transport string, o mcp.Options) {
		cells = append(cells, interopCell{impl, transport, o})
	}
	for _, m := range []struct {
		name string
		cfg  target.Config
	}{
		{"Streamable HTTP, stateful (SSE answers)", target.Config{}},
		{"Streamable HTTP, stateless", target.Config{Stateless: true}},
		{"Streamable HTTP, JSON answers", target.Config{JSONResponse: true}},
	} {
		srv, err := target.Start(context.Background(), m.cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		add("Go SDK (mcpbench serve)", m.name, mcp.Options{URL: srv.MCPURL()})
		if m.cfg == (target.Config{}) {
			add("Go SDK (mcpbench serve)", "HTTP+SSE (2024-11-05)", mcp.Options{URL: srv.SSEURL()})
		}
	}
	for _, stateless := range []bool{false, true} {
		ts := httptest.NewServer(m3server.NewStreamableHTTPServer(mark3labsServer(), m3server.WithStateLess(stateless)))
		t.Cleanup(ts.Close)
		name := "Streamable HTTP, stateful"
		if stateless {
			name = "Streamable HTTP, stateless"
		}
		add("mark3labs/mcp-go", name, mcp.Options{URL: ts.URL + "/mcp"})
	}
	sse := httptest.NewUnstartedServer(nil)
	sse.Start()
	t.Cleanup(sse.Close)
	sse.Config.Handler = m3server.NewSSEServer(mark3labsServer(), m3server.WithBaseURL(sse.URL))
	add("mark3labs/mcp-go", "HTTP+SSE (2024-11-05)", mcp.Options{URL: sse.URL + "/sse"})
	if entry := everythingEntry(t); entry != "" {
		add("TypeScript SDK (server-everything)", "Streamable HTTP", mcp.Options{URL: startEverything(t, entry, "streamableHttp") + "/mcp"})
		add("TypeScript SDK (server-everything)", "HTTP+SSE (2024-11-05)", mcp.Options{URL: startEverything(t, entry, "sse") + "/sse"})
		add("TypeScript SDK (server-everything)", "stdio", mcp.Options{Transport: "stdio", Command: []string{"node", entry, "stdio"}, StdioProcs: 2})
	}

	var rows []interopRow
	for _, c := range cells {
		t.Run(c.impl+"/"+c.transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			o := c.opts
			o.PoolSize, o.Timeout = 4, 10*time.Second
			client, err := mcp.Dial(ctx, o)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer client.Close(ctx)
			row := interopRow{cell: c, protocol: client.ProtocolVersion()}
			for _, op := range []mcp.Request{list, echo} {
				wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: op}}}
				p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 4}, Total: 100}, wl)
				if err != nil {
					t.Fatalf("%s: %v", op.Method, err)
				}
				if p.Requests != 100 || p.OK != 100 {
					t.Fatalf("%s: requests %d ok %d, errors %v %v", op.Method, p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples)
				}
				if op.Method == "tools/list" {
					row.list = p
				} else {
					row.call = p
				}
			}
			rows = append(rows, row)
		})
	}
	if out := os.Getenv("MCPBENCH_INTEROP_OUT"); out != "" {
		writeInteropTable(t, out, rows)
	}
}

func writeInteropTable(t *testing.T, path string, rows []interopRow) {
	var b strings.Builder
	b.WriteString("# Interoperability matrix\n\n")
	b.WriteString("Generated by `make interop-doc` (the `TestInteropMatrix` test in `bench/`): each cell ran\n")
	b.WriteString("100 `tools/list` and 100 `tools/call echo` requests at concurrency 4 against a real server\n")
	b.WriteString("on 127.0.0.1 and passed with requests == ok == 100. Latencies are from that run and only\n")
	b.WriteString("show the cell worked; they are not a benchmark.\n\n")
	b.WriteString("| implementation | transport | negotiated protocol | tools/list ok | tools/call ok | list p50 ms | call p50 ms |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d/%d | %d/%d | %.2f | %.2f |\n", r.cell.impl, r.cell.transport, r.protocol,
			r.list.OK, r.list.Requests, r.call.OK, r.call.Requests, r.list.P50MS, r.call.P50MS)
	}
	// The conformance section after the matrix is another test's
	// (cmd/mcpbench's TestConformanceClients): keep it.
	if old, err := os.ReadFile(path); err == nil {
		if i := strings.Index(string(old), "\n## Conformance harness"); i >= 0 {
			b.WriteString(string(old[i:]))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
