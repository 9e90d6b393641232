package main

import (
	"os"
	"testing"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// TestMain lets the test binary double as the Go test upstream MCP server
// (see internal/testupstream) for the upstream tests.
func TestMain(m *testing.M) {
	testupstream.Main()
	os.Exit(m.Run())
}
