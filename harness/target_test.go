package harness

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// startTarget serves the bundled reference server on 127.0.0.1 for the
// test and returns a setup that targets it with tools/list.
func startTarget(t *testing.T) Setup {
	t.Helper()
	srv, err := target.Start(context.Background(), target.Config{Tools: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	o := mcp.Options{URL: srv.MCPURL(), PoolSize: 4, Timeout: 10 * time.Second}
	s := Setup{Options: o, Version: "test"}
	s.Load = Requests(workload.Spec{Method: "tools/list"})
	return s
}
