// Package intentsrv is the root of the intentsrv module: a Go MCP server
// that keeps hundreds to hundreds of thousands of API operations in a
// private registry and lists only four intent tools (find, describe, ask,
// act) to hosts.
//
// The packages that do the work live below this one: operations (the
// registry), intent (the four-tool contract and its MCP adapter), router
// (search and intent resolution), gate (the surface gate for tests and CI)
// and cmd/intentsrv (the binary). This package holds no code; its test file
// surfacegate_test.go is the project's own surface gate.
package intentsrv
