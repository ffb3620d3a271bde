// Package interop holds the differential matrix, and only tests: every
// MCP server that runs here (mcpbench serve, the official Go SDK,
// mark3labs/mcp-go, the TypeScript SDK's server-everything), each wrapped
// so that it counts what it received, under every engine and driver and
// every kind of workload; in each cell the server's counts must equal
// the report's, with no error. make interop-doc writes its table into
// docs/interop.md. It sits above harness, whose runs it drives as the
// command would, and nothing imports it.
package interop
