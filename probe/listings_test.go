package probe

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"

	"github.com/mcpbench/mcpbench/mcp"
)

// TestAuditListings: resources, templates and prompts of a server of
// another implementation (mark3labs/mcp-go) are counted and sized, the
// largest named; a server that offers none says so per listing.
func TestAuditListings(t *testing.T) {
	s := m3server.NewMCPServer("listings", "1", m3server.WithResourceCapabilities(false, false), m3server.WithPromptCapabilities(false))
	read := func(context.Context, m3mcp.ReadResourceRequest) ([]m3mcp.ResourceContents, error) { return nil, nil }
	s.AddResource(m3mcp.NewResource("mem://small", "small"), read)
	s.AddResource(m3mcp.NewResource("mem://large", "large", m3mcp.WithResourceDescription(strings.Repeat("x", 500))), read)
	s.AddResourceTemplate(m3mcp.NewResourceTemplate("mem://item/{id}", "item"), nil)
	s.AddPrompt(m3mcp.NewPrompt("greet"), func(context.Context, m3mcp.GetPromptRequest) (*m3mcp.GetPromptResult, error) { return nil, nil })
	ts := httptest.NewServer(m3server.NewStreamableHTTPServer(s))
	defer ts.Close()
	bare := httptest.NewServer(m3server.NewStreamableHTTPServer(m3server.NewMCPServer("bare", "1")))
	defer bare.Close()
	ctx := context.Background()
	audit := func(url string) []Listing {
		c, err := mcp.Dial(ctx, mcp.Options{URL: url + "/mcp", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		return auditListings(ctx, c)
	}
	got := audit(ts.URL)
	if len(got) != 3 || got[0].Count != 2 || got[0].Largest != "mem://large" || got[0].LargestBytes < 500 ||
		got[1].Count != 1 || got[1].Largest != "mem://item/{id}" || got[2].Count != 1 || got[2].Largest != "greet" {
		t.Fatalf("%+v", got)
	}
	for _, l := range audit(bare.URL) {
		if l.Error == "" || l.Count != 0 {
			t.Errorf("a server without resources or prompts: %+v", l)
		}
	}
}
