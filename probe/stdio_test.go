package probe

import (
	"context"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
)

// The test binary doubles as the reference server over stdio when
// MCPBENCH_PROBE_STDIO_SERVER is set, so the probe can spawn one.
func TestMain(m *testing.M) {
	if os.Getenv("MCPBENCH_PROBE_STDIO_SERVER") != "" {
		s, err := target.New(target.Config{Tools: 3})
		if err != nil {
			os.Exit(1)
		}
		_ = s.MCP().Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProbeStdio: a stdio server gets the whole probe bar what needs an
// HTTP endpoint, which says why it is missing instead of failing.
func TestProbeStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPBENCH_PROBE_STDIO_SERVER", "1")
	res, err := Run(context.Background(), Config{
		Options:           mcp.Options{Transport: mcp.TransportStdio, Command: []string{self}, Timeout: 5 * time.Second},
		SequentialSamples: 2,
		Small:             BenchSpec{Concurrency: 2, Total: 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != target.DefaultName || res.ServerInfo.Transport != "stdio" || res.ToolsList.ToolCount != 5 {
		t.Fatalf("server info %+v, %d tools", res.ServerInfo.ServerInfo, res.ToolsList.ToolCount)
	}
	if p := res.Benchmarks.Small; p == nil || p.Requests != 20 || p.Errors != 0 || p.Client.Engine != "stdio" {
		t.Fatalf("small benchmark %+v, errors %v", p, res.Benchmarks.Errors)
	}
	if res.Health.Error != errNoEndpoint.Error() || res.ServerInfo.GetInfoError != errNoEndpoint.Error() || res.Health.OK {
		t.Fatalf("health %+v, get info %q", res.Health.HealthSnapshot, res.ServerInfo.GetInfoError)
	}
}
