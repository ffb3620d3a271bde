// Package mcp is mcpbench's MCP client: JSON-RPC framing, the Streamable HTTP
// transport, SSE parsing, version negotiation and sessions, and the
// classification of every failure into one error kind.
//
// It is written for the load generator's hot path: a Session is owned by one
// goroutine, builds request bodies from prepared prefixes, reads answers into
// reused buffers and decodes only what classification needs.
//
// Its files are grouped by job, by name:
//
//   - the protocol: jsonrpc.go (framing and the reply), negotiate.go,
//     rounds.go, cursor.go, methods.go, ids.go, errors.go, servertext.go
//   - the session and client: session.go, client.go, branch.go, modes.go,
//     clientreq.go, auth.go, paramheaders.go
//   - the wires: transport.go and transport_*.go, one per transport, with
//     what each one alone uses beside it under its name
//     (transport_direct_*.go, transport_http_*.go, transport_stdio_*.go);
//     the readers of the wire formats (sse*.go, lines.go, answer*.go)
//   - the caches of the hot path beside what they cache (jsonrpc_memo.go
//     beside jsonrpc.go, negotiate_initcache.go beside negotiate.go, the
//     direct engine's in transport_direct_*.go)
//   - what a load test asks for beyond MCP, set by its caller through Hooks
//     (hooks.go): sessions that go away without ending (abandon.go; the
//     net/http connections they drop are booked in internal/connbook)
//     and trace context (trace.go).
package mcp
