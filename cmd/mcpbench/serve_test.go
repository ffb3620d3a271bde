package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbench/mcpbench/target"
)

func TestServeHTTP(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "mcp.log")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	e := env{stdout: outW, stderr: io.Discard, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- serveMain(ctx, []string{"--addr", "127.0.0.1:0", "--tools", "3", "--capacity", "4",
			"--log-file", logPath, "--stats-interval", "100ms"}, e)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("first stdout line: %v", err)
	}
	go io.Copy(io.Discard, outR)
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "mcpbench serve: listening on ")
	base, _, _ = strings.Cut(base, " ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}

	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	defer ccancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(cctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(cctx, nil)
	if err != nil || len(lt.Tools) != 5 {
		t.Fatalf("tools/list: %v, %d tools", err, len(lt.Tools))
	}
	cs.Close()

	h, err := target.FetchHealth(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	if h.Status != "ok" || h.MaxInFlight != 4 {
		t.Errorf("health = %+v", h)
	}

	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit code %d", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
	log, _ := os.ReadFile(logPath)
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "[MCP] tools/list stats requests=1 ") {
		t.Errorf("log = %q", log)
	}
}

func TestServeStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := env{stdout: outW, stderr: io.Discard, stdin: inR, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	code := make(chan int, 1)
	go func() { code <- serveMain(ctx, []string{"--stdio", "--tools", "1"}, e); outW.Close() }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "over stdio"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "over stdio" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	cs.Close()
	if c := <-code; c != exitOK {
		t.Errorf("exit code %d", c)
	}
}

func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string // on stdout for help, the one stderr line otherwise
	}{
		{[]string{"--help"}, exitOK, "Examples:"},
		{[]string{"--capacity", "x"}, exitUsage, "mcpbench serve: --capacity \"x\": want a whole number"},
		{[]string{"--fault", "nope"}, exitUsage, "mcpbench serve: "},
		{[]string{"--fault-rate", "0.5"}, exitUsage, "mcpbench serve: --fault-rate needs --fault"},
		{[]string{"--service-dist", "gamma"}, exitUsage, "mcpbench serve: "},
		{[]string{"extra"}, exitUsage, "mcpbench serve: unexpected argument"},
	} {
		var out, errb strings.Builder
		e := env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
		got := serveMain(t.Context(), tc.args, e)
		text := out.String()
		if tc.code != exitOK {
			text = errb.String()
			if strings.Count(text, "\n") != 1 {
				t.Errorf("%v: stderr %q, want one line", tc.args, text)
			}
		}
		if got != tc.code || !strings.Contains(text, tc.out) {
			t.Errorf("%v: code %d, output %q", tc.args, got, text)
		}
	}
}
