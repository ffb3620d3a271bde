package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (the Go SDK's) when
// MCPBENCH_TEST_STDIO_SERVER is set: a real peer without a build step.
func TestMain(m *testing.M) {
	if os.Getenv("MCPBENCH_TEST_STDIO_SERVER") != "" {
		srv := sdk.NewServer(&sdk.Implementation{Name: "sdk-stdio", Version: "1.0.0"}, nil)
		sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Message: in.Message}, nil
		})
		addAskTool(srv)
		fmt.Fprintln(os.Stderr, "sdk-stdio: ready") // stderr is kept, never an error
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// exercise sends list and echo calls from several sessions at once and
// checks every answer.
func exercise(t *testing.T, c *Client, sessions, calls int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.NewSession(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close(ctx)
			list, _ := s.Prepare(Request{Method: "tools/list"})
			call, _ := s.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(fmt.Sprintf(`{"message":"m%d"}`, i))})
			for j := 0; j < calls; j++ {
				if r := s.Do(ctx, list, ""); r.Kind != OK {
					errs <- fmt.Errorf("tools/list: %v", r.Err)
					return
				}
				r := s.Do(ctx, call, "")
				if r.Kind != OK {
					errs <- fmt.Errorf("echo: %v", r.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestLegacySSEGoSDK(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "sdk-sse", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
		return nil, echoOut{Message: in.Message}, nil
	})
	ts := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	for _, transport := range []Transport{"sse", "auto"} {
		t.Run(string(transport), func(t *testing.T) {
			c, err := Dial(context.Background(), Options{URL: ts.URL + "/sse", Transport: transport, PoolSize: 4, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if c.Info().Transport != "sse" || c.Info().Name != "sdk-sse" {
				t.Fatalf("info %+v", c.Info())
			}
			exercise(t, c, 4, 25)
		})
	}
}

func TestLegacySSEMark3labs(t *testing.T) {
	s := m3server.NewMCPServer("m3-sse", "1")
	s.AddTool(m3mcp.NewTool("echo", m3mcp.WithString("message")), func(ctx context.Context, req m3mcp.CallToolRequest) (*m3mcp.CallToolResult, error) {
		return m3mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	defer ts.Close()
	ts.Config.Handler = m3server.NewSSEServer(s, m3server.WithBaseURL(ts.URL))
	c, err := Dial(context.Background(), Options{URL: ts.URL + "/sse", PoolSize: 4, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if c.Info().Transport != "sse" {
		t.Fatalf("auto picked %q", c.Info().Transport)
	}
	exercise(t, c, 4, 25)
}

func TestStdioGoSDK(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPBENCH_TEST_STDIO_SERVER", "1")
	c, err := Dial(context.Background(), Options{Transport: "stdio", Command: []string{self}, StdioProcs: 3, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	procs := append([]*stdioProc(nil), c.link.(*stdioLink).procs...)
	if c.Info().Name != "sdk-stdio" || len(procs) != 3 {
		t.Fatalf("info %+v, %d procs", c.Info(), len(procs))
	}
	// 12 sessions over 3 processes: answers for four sessions interleave
	// on each stdout.
	exercise(t, c, 12, 20)
	if tail := c.StderrTail(); len(tail) == 0 || !strings.Contains(tail[0], "ready") {
		t.Errorf("stderr not kept: %q", tail)
	}
	c.Close(context.Background())
	for i, p := range procs {
		// Reaped: Wait has returned, so no zombie is left behind.
		if p.cmd.ProcessState == nil {
			t.Errorf("process %d was not reaped", i)
		}
	}
}

func TestStdioBadCommand(t *testing.T) {
	_, err := Dial(context.Background(), Options{Transport: "stdio", Command: []string{"/nonexistent/server"}, Timeout: time.Second})
	if KindOf(err) != KindConnect {
		t.Fatalf("kind %v: %v", KindOf(err), err)
	}
	_, err = Dial(context.Background(), Options{Transport: "stdio", Command: []string{"sh", "-c", "echo not json; echo oops >&2; exit 3"}, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("want the server's stderr in the error, got %v", err)
	}
	_ = exec.ErrNotFound
}
