// Package hostile holds small misbehaving MCP servers, one per case users
// meet in the wild: answers that never end or never come, bodies that lie
// about their length, JSON-RPC that breaks the rules, redirect and session
// loops, stdio processes that misbehave, and servers that echo the bearer
// token back. The suite in this package's tests drives the real mcpbench
// binary against each one and checks that the run stays bounded in time and
// memory, counts every failure in one error kind, writes its reports and
// leaks no secret (docs/hostile.md, written by make hostile-doc).
//
// The servers speak raw HTTP/1.1 on 127.0.0.1 (net/http would refuse to
// send most of these answers) and import nothing of mcpbench's, so that the
// suite tests the program as users meet it, not its insides.
package hostile
