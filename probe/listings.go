package probe

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbench/mcpbench/mcp"
)

// Listing is the audit of a listing beside tools/list: resources/list,
// resources/templates/list or prompts/list, every page. Resources and
// prompts go into a model's context as tools do, so their count and size
// matter the same way; an entry without the field that identifies it is
// one a client cannot use.
type Listing struct {
	Method string `json:"method"`
	Count  int    `json:"count"`
	Pages  int    `json:"pages"`
	// EntriesBytes is the size of the entries' JSON, all pages.
	EntriesBytes int64 `json:"entries_bytes"`
	// Largest names the largest entry (by its name, URI or template) and
	// its size.
	Largest      string `json:"largest,omitempty"`
	LargestBytes int    `json:"largest_bytes"`
	// Unnamed counts entries without their identifying field (uri,
	// uriTemplate or name).
	Unnamed int `json:"unnamed"`
	// Error says why the listing failed (a server that does not offer it
	// answers method-not-found).
	Error string `json:"error,omitempty"`
}

// listings are the listings audited, with each entry's key and the field
// that identifies an entry.
var listings = []struct{ method, key, id string }{
	{"resources/list", "resources", "uri"},
	{"resources/templates/list", "resourceTemplates", "uriTemplate"},
	{"prompts/list", "prompts", "name"},
}

// auditListings lists resources, templates and prompts on a session of its
// own.
func auditListings(ctx context.Context, c *mcp.Client) []Listing {
	out := make([]Listing, 0, len(listings))
	s, err := c.NewSession(ctx)
	if err != nil {
		for _, l := range listings {
			out = append(out, Listing{Method: l.method, Error: fmt.Sprintf("opening a session: %v", err)})
		}
		return out
	}
	defer s.Close(context.WithoutCancel(ctx))
	for _, l := range listings {
		a := Listing{Method: l.method}
		entries, pages, err := c.List(ctx, s, l.method, l.key)
		a.Pages = pages
		if err != nil {
			a.Error = err.Error()
			out = append(out, a)
			continue
		}
		a.Count = len(entries)
		for _, e := range entries {
			a.EntriesBytes += int64(len(e))
			var fields map[string]json.RawMessage
			_ = json.Unmarshal(e, &fields)
			var id string
			if json.Unmarshal(fields[l.id], &id) != nil || id == "" {
				a.Unnamed++
			}
			if len(e) > a.LargestBytes {
				a.Largest, a.LargestBytes = id, len(e)
			}
		}
		out = append(out, a)
	}
	return out
}
