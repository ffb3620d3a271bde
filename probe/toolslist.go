package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/toolschema"
)

// maxPages bounds one listing: a server whose cursors never end must not
// keep the probe forever.
const maxPages = 10_000

// largestN is how many of the largest tools the audit names.
const largestN = 10

// ServerInfo is what the server said about itself: through negotiation
// (server/discover or initialize), and in answer to a plain GET of the
// endpoint where it offers one.
type ServerInfo struct {
	Endpoint string `json:"endpoint"`
	mcp.ServerInfo
	// Negotiation is server/discover (stateless revisions) or initialize.
	Negotiation string `json:"negotiation"`
	// GetInfo is the JSON object a GET of the endpoint returned (seed
	// servers: {name, version, protocolVersion, message}), or null.
	GetInfo      json.RawMessage `json:"get_info"`
	GetInfoError string          `json:"get_info_error,omitempty"`
}

func serverInfoOf(c *mcp.Client) ServerInfo {
	si := ServerInfo{Endpoint: mcp.Redact(c.URL()), ServerInfo: c.Info(), Negotiation: "initialize"}
	if mcp.IsModern(c.ProtocolVersion()) {
		si.Negotiation = "server/discover"
	}
	return si
}

// ToolsList is the audit of the tools/list payload.
type ToolsList struct {
	ToolCount int `json:"tool_count"`
	Pages     int `json:"pages"`
	// PayloadBytes is the size of the tools/list result JSON, all pages.
	PayloadBytes int64 `json:"payload_bytes"`
	// FirstCallMS is the latency of the first tools/list request the probe
	// sent (the first page of its first listing).
	FirstCallMS  float64          `json:"first_call_ms"`
	LargestTools []ToolSize       `json:"largest_tools"`
	Descriptions DescriptionStats `json:"descriptions"`
	// CompactionSavingsBytes is what the seed server's schema compaction
	// (annotation keys dropped from every inputSchema) would save, summed
	// over the tools; CompactionSavingsPct is that share of PayloadBytes.
	CompactionSavingsBytes int64     `json:"compaction_savings_bytes"`
	CompactionSavingsPct   float64   `json:"compaction_savings_pct"`
	Lint                   []Finding `json:"lint"`
	// Error says why the listing failed; the other figures are then empty.
	Error string `json:"error,omitempty"`
}

// ToolSize is one tool's share of the payload.
type ToolSize struct {
	Name             string `json:"name"`
	Bytes            int    `json:"bytes"`
	InputSchemaBytes int    `json:"input_schema_bytes"`
	DescriptionChars int    `json:"description_chars"`
}

// DescriptionStats describe the tools' description lengths in characters.
type DescriptionStats struct {
	Count     int     `json:"count"` // tools with a description
	MaxChars  int     `json:"max_chars"`
	MeanChars float64 `json:"mean_chars"`
	Cap       int     `json:"cap"`
	OverCap   int     `json:"over_cap"`
	// CapSavingsBytes is what truncating descriptions at Cap would save.
	CapSavingsBytes int64 `json:"cap_savings_bytes"`
}

// Finding is a lint finding with its severity.
type Finding struct {
	toolschema.Finding
	Severity string `json:"severity"`
}

// Audit measures the pages of one tools/list listing (each page's result
// JSON, in order).
func Audit(pages []json.RawMessage) (ToolsList, error) {
	tl := ToolsList{Pages: len(pages), Descriptions: DescriptionStats{Cap: toolschema.MaxDescriptionLength}, Lint: []Finding{}}
	var tools []json.RawMessage
	for i, p := range pages {
		tl.PayloadBytes += int64(len(p))
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(p, &page); err != nil {
			return tl, fmt.Errorf("tools/list page %d: %w", i+1, err)
		}
		tools = append(tools, page.Tools...)
	}
	tl.ToolCount = len(tools)
	sizes := make([]ToolSize, 0, len(tools))
	var descTotal int
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			Description *string         `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		_ = json.Unmarshal(raw, &t) // Lint reports tools that are not objects
		s := ToolSize{Name: t.Name, Bytes: len(raw), InputSchemaBytes: len(t.InputSchema)}
		if t.Description != nil {
			n := utf8.RuneCountInString(*t.Description)
			s.DescriptionChars = n
			d := &tl.Descriptions
			d.Count++
			descTotal += n
			d.MaxChars = max(d.MaxChars, n)
			if n > d.Cap {
				d.OverCap++
				d.CapSavingsBytes += int64(len(*t.Description) - len(prefixRunes(*t.Description, d.Cap)))
			}
		}
		sizes = append(sizes, s)
		tl.CompactionSavingsBytes += int64(toolschema.CompactionSavings(raw))
	}
	if tl.Descriptions.Count > 0 {
		tl.Descriptions.MeanChars = float64(descTotal) / float64(tl.Descriptions.Count)
	}
	if tl.PayloadBytes > 0 {
		tl.CompactionSavingsPct = 100 * float64(tl.CompactionSavingsBytes) / float64(tl.PayloadBytes)
	}
	sort.SliceStable(sizes, func(i, j int) bool { return sizes[i].Bytes > sizes[j].Bytes })
	tl.LargestTools = sizes[:min(len(sizes), largestN)]
	for _, f := range toolschema.Lint(tools) {
		tl.Lint = append(tl.Lint, Finding{Finding: f, Severity: toolschema.RuleSeverity(f.Rule)})
	}
	return tl, nil
}

func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Sequential is the latency of tools/list listings sent one after another,
// in the order sent. A listing follows nextCursor to the end; its latency is
// the sum of its pages'.
type Sequential struct {
	Count   int     `json:"count"`
	SleepMS float64 `json:"sleep_ms"`
	Errors  int     `json:"errors"`
	// SamplesMS are the listings' latencies in send order; null for one
	// that failed.
	SamplesMS []*float64 `json:"samples_ms"`
	// FirstMS and SecondMS are the first and second listings as sent (the
	// first is the cold one), null when that listing failed or was not sent.
	FirstMS  *float64 `json:"first_ms"`
	SecondMS *float64 `json:"second_ms"`
	MinMS    float64  `json:"min_ms"`
	MedianMS float64  `json:"median_ms"`
	MeanMS   float64  `json:"mean_ms"`
	MaxMS    float64  `json:"max_ms"`
	// ErrorExample is the first error's message.
	ErrorExample string `json:"error_example,omitempty"`
}

// Profile summarises samples given in send order (nil = failed).
func Profile(samples []*float64) Sequential {
	s := Sequential{Count: len(samples), SamplesMS: samples}
	if s.SamplesMS == nil {
		s.SamplesMS = []*float64{}
	}
	if len(samples) > 0 {
		s.FirstMS = samples[0]
	}
	if len(samples) > 1 {
		s.SecondMS = samples[1]
	}
	var ok []float64
	for _, v := range samples {
		if v == nil {
			s.Errors++
			continue
		}
		ok = append(ok, *v)
	}
	if len(ok) == 0 {
		return s
	}
	var sum float64
	for _, v := range ok {
		sum += v
	}
	s.MeanMS = sum / float64(len(ok))
	sort.Float64s(ok) // a copy: SamplesMS keeps the send order
	s.MinMS, s.MaxMS = ok[0], ok[len(ok)-1]
	if n := len(ok); n%2 == 1 {
		s.MedianMS = ok[n/2]
	} else {
		s.MedianMS = (ok[n/2-1] + ok[n/2]) / 2
	}
	return s
}

// listing sends the sequential listings on one session; the first one is
// also the one the audit measures, so first_ms is the cold call.
func listing(ctx context.Context, c *mcp.Client, cfg Config) (ToolsList, Sequential) {
	n := max(cfg.SequentialSamples, 1)
	tl := ToolsList{Lint: []Finding{}, LargestTools: []ToolSize{}, Descriptions: DescriptionStats{Cap: toolschema.MaxDescriptionLength}}
	var samples []*float64
	var firstErr string
	s, err := c.NewSession(ctx)
	if err != nil {
		tl.Error = fmt.Sprintf("opening a session: %v", err)
		seq := Profile(nil)
		seq.ErrorExample = tl.Error
		return tl, seq
	}
	defer s.Close(context.WithoutCancel(ctx))
	for i := 0; i < n; i++ {
		if i > 0 && !mcp.Sleep(ctx, cfg.SequentialSleep) {
			break
		}
		pages, firstPage, total, err := listAll(ctx, c, s)
		if i == 0 {
			tl.FirstCallMS = firstPage
			if err != nil {
				tl.Error = err.Error()
			} else {
				audited, aerr := Audit(pages)
				audited.FirstCallMS = firstPage
				tl = audited
				if aerr != nil {
					tl.Error = aerr.Error()
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				break // the interrupt's casualty is not the server's error
			}
			if firstErr == "" {
				firstErr = err.Error()
			}
			samples = append(samples, nil)
			continue
		}
		samples = append(samples, &total)
	}
	if cfg.SequentialSamples < 1 {
		samples = nil // the audit's listing was not asked to be a sample
	}
	seq := Profile(samples)
	seq.SleepMS = float64(cfg.SequentialSleep) / float64(time.Millisecond)
	seq.ErrorExample = firstErr
	return tl, seq
}

// listAll fetches every page of one listing. It returns the pages, the
// first page's latency and the total latency.
func listAll(ctx context.Context, c *mcp.Client, s *mcp.Session) (pages []json.RawMessage, firstMS, totalMS float64, err error) {
	cursor := ""
	seen := map[string]bool{}
	for {
		start := time.Now()
		res, err := c.Request(ctx, s, mcp.Request{Method: "tools/list"}, cursor)
		took := msSince(start)
		totalMS += took
		if len(pages) == 0 {
			firstMS = took
		}
		if err != nil {
			return pages, firstMS, totalMS, fmt.Errorf("tools/list page %d: %w", len(pages)+1, err)
		}
		pages = append(pages, res)
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return pages, firstMS, totalMS, fmt.Errorf("tools/list page %d: %w", len(pages), err)
		}
		if page.NextCursor == "" {
			return pages, firstMS, totalMS, nil
		}
		if seen[page.NextCursor] || len(pages) >= maxPages {
			return pages, firstMS, totalMS, fmt.Errorf("tools/list: nextCursor does not end (page %d repeats or exceeds %d pages)", len(pages), maxPages)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}
