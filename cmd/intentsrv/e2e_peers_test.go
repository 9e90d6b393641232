package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threePeers writes an mcpServers file fronting server-everything,
// server-filesystem (rooted in root) and server-memory (its graph in root).
func threePeers(t *testing.T, root string) string {
	t.Helper()
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{findMCPServer(t, "everything"), "stdio"}},
		"files":      map[string]any{"command": "node", "args": []string{findMCPServer(t, "filesystem"), root}},
		"memory": map[string]any{"command": "node", "args": []string{findMCPServer(t, "memory")},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(root, "memory.jsonl")}},
	}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// childRunning returns the pid of intentsrv's child whose command line
// contains marker.
func childRunning(t *testing.T, parent int, marker string) int {
	t.Helper()
	for _, pid := range childPIDs(t, parent) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), marker) {
			return pid
		}
	}
	t.Fatalf("no child of %d runs %s", parent, marker)
	return 0
}

// intentsrv in front of three real MCP servers at once, under each write
// policy: reads run through ask, writes through act as the policy says,
// and killing one server leaves the others working while it recovers.
func TestE2EThreePeers(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := threePeers(t, root)
	file := filepath.Join(root, "hello.txt")
	entity := map[string]any{"entities": []map[string]any{{"name": "intentsrv", "entityType": "project", "observations": []string{"fronts MCP servers"}}}}

	t.Run("deny", func(t *testing.T) {
		c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off").client
		env := callTool(t, c, "find", map[string]any{"intent": "read the contents of a text file"})
		if !env.OK || !strings.Contains(string(env.Data), "files.read_text_file") {
			t.Fatalf("find: %s", env.Data)
		}
		env = callTool(t, c, "ask", map[string]any{"action": "files.read_text_file", "params": map[string]any{"path": file}})
		if !env.OK || !strings.Contains(string(env.Data), "hello from a file") {
			t.Fatalf("read: %+v", env)
		}
		env = callTool(t, c, "ask", map[string]any{"action": "files.write_file", "params": map[string]any{"path": file, "content": "x"}})
		if env.OK || env.Code != "writes_disabled" {
			t.Fatalf("write under deny: %+v", env)
		}
	})
	t.Run("confirm", func(t *testing.T) {
		c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "confirm").client
		env := callTool(t, c, "act", map[string]any{"action": "memory.create_entities", "params": entity})
		if env.OK || env.Code != "confirmation_required" {
			t.Fatalf("a write under confirm must preview: %+v", env)
		}
		var d struct {
			PlanRef string `json:"plan_ref"`
		}
		json.Unmarshal(env.Details, &d)
		env = callTool(t, c, "act", map[string]any{"action": "memory.create_entities", "params": entity, "plan_ref": d.PlanRef})
		if !env.OK {
			t.Fatalf("confirmed write: %+v", env)
		}
		env = callTool(t, c, "ask", map[string]any{"action": "memory.read_graph"})
		if !env.OK || !strings.Contains(string(env.Data), "fronts MCP servers") {
			t.Fatalf("read back: %s", env.Data)
		}
	})
	t.Run("allow", func(t *testing.T) {
		p := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "allow")
		c := p.client
		env := callTool(t, c, "act", map[string]any{"action": "memory.add_observations", "params": map[string]any{
			"observations": []map[string]any{{"entityName": "intentsrv", "contents": []string{"runs in CI"}}}}})
		if !env.OK {
			t.Fatalf("a plain write under allow runs at once: %+v", env)
		}
		env = callTool(t, c, "act", map[string]any{"action": "files.write_file", "params": map[string]any{"path": file, "content": "overwritten"}})
		if env.OK || env.Code != "confirmation_required" {
			t.Fatalf("a destructive write previews even under allow: %+v", env)
		}
		if b, _ := os.ReadFile(file); string(b) != "hello from a file" {
			t.Fatalf("the preview wrote the file: %q", b)
		}

		// Kill the filesystem server: the others answer, and it recovers.
		victim := childRunning(t, p.cmd.Process.Pid, "server-filesystem")
		if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		processGone(t, victim)
		time.Sleep(100 * time.Millisecond)
		env = callTool(t, c, "ask", map[string]any{"action": "everything.get_sum", "params": map[string]any{"a": 1, "b": 1}})
		if !env.OK {
			t.Fatalf("everything after files died: %+v", env)
		}
		env = callTool(t, c, "ask", map[string]any{"action": "memory.search_nodes", "params": map[string]any{"query": "intentsrv"}})
		if !env.OK || !strings.Contains(string(env.Data), "runs in CI") {
			t.Fatalf("memory after files died: %+v", env)
		}
		read := map[string]any{"action": "files.read_text_file", "params": map[string]any{"path": file}}
		if env = callTool(t, c, "ask", read); env.OK || env.Code != "upstream_unavailable" {
			t.Fatalf("the killed server: %+v", env)
		}
		if env = callTool(t, c, "ask", read); !env.OK || !strings.Contains(string(env.Data), "hello from a file") {
			t.Fatalf("the killed server after restart: %+v", env)
		}
	})
}
