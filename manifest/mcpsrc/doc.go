// Package mcpsrc turns upstream MCP servers into operations: it reads the
// mcpServers configuration hosts already use (Claude Desktop, Claude Code's
// .mcp.json, Cursor's .cursor/mcp.json, VS Code's "servers" key), connects
// to each server (stdio child processes, streamable HTTP, SSE) with mcp-go's
// client, and registers every upstream tool as the operation
// <namespace>.<tool> that forwards calls to it.
//
// One job per file:
//
//	config.go       the server entries, their checks and error codes
//	interpolate.go  ${VAR} / ${env:VAR} expansion
//	naming.go       tool names to id segments; collisions
//	kind.go         tool annotations to a kind
//	result.go       an upstream CallToolResult to the operation's JSON result
//	conn.go         one upstream: start, call, restart with backoff, list_changed
//	proc_*.go       child-process attributes (the child dies with intentsrv)
//	cache.go        tools lists on disk, keyed by a hash of the config entry
//	fleet.go        every upstream: parallel start, registration, status
//
// Upstream servers are outside the operator's control: their descriptions
// are sanitised and capped like OpenAPI text, and their annotations may
// raise a tool's kind but only the operator's overlay may lower it.
package mcpsrc
