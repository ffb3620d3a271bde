// Package toolschema does the JSON Schema work mcpbench needs for MCP tools:
// it generates valid, varied tools/call arguments from a tool's inputSchema,
// checks structuredContent against a compiled outputSchema on the hot path,
// and lints the tool definitions of a tools/list result.
//
// It is a pure library: no network, no files, no terminal output. Validation
// is delegated to github.com/santhosh-tekuri/jsonschema/v6, which is the
// arbiter of "valid" for everything this package generates.
package toolschema
