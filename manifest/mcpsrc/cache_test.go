package mcpsrc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolCache(t *testing.T) {
	c := toolCache{dir: t.TempDir()}
	srv := Server{Name: "gh", Command: "npx", Args: []string{"srv"}, Env: map[string]string{"TOKEN": "s3cret-value"}}
	if _, ok := c.load(srv); ok {
		t.Fatal("hit on an empty cache")
	}
	tools := []mcp.Tool{{Name: "get_issue", Description: "Get an issue", InputSchema: mcp.ToolInputSchema{Type: "object"}}}
	if err := c.save(srv, tools); err != nil {
		t.Fatal(err)
	}
	got, ok := c.load(srv)
	if !ok || len(got) != 1 || got[0].Name != "get_issue" || got[0].Description != "Get an issue" {
		t.Fatalf("load: %v %+v", ok, got)
	}
	files, _ := filepath.Glob(filepath.Join(c.dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), "s3cret-value") {
		t.Fatal("an env value was written to the cache")
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	// Any change to how the server starts misses.
	for _, changed := range []Server{
		{Name: "gh", Command: "npx", Args: []string{"srv"}, Env: map[string]string{"TOKEN": "other"}},
		{Name: "gh", Command: "npx", Args: []string{"srv", "--x"}, Env: srv.Env},
		{Name: "gh", URL: "https://h/mcp"},
	} {
		if _, ok := c.load(changed); ok {
			t.Errorf("hit for a changed entry %+v", changed)
		}
	}
	// A corrupt entry is a miss, never trusted.
	os.WriteFile(files[0], []byte("{not json"), 0o600)
	if _, ok := c.load(srv); ok {
		t.Fatal("hit on a corrupt entry")
	}
	if _, ok := (toolCache{}).load(srv); ok {
		t.Fatal("hit with the cache off")
	}
}
