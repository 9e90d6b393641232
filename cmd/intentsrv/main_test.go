package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// TestMain lets the test binary double as the Go test upstream MCP server
// (see internal/testupstream) for the upstream tests.
//
// Every server the tests start, in process or as the real binary, keeps
// its default run store (and any cache) under a temporary home, never the
// real one.
func TestMain(m *testing.M) {
	testupstream.Main()
	home, err := os.MkdirTemp("", "intentsrv-test-home")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
