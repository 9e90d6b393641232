package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// testUpstreamEntry is an mcpServers entry running this test binary as the
// Go test upstream, with env added to its environment.
func testUpstreamEntry(t *testing.T, disabled bool, env map[string]string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{testupstream.EnvMode: "serve"}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "disabled": disabled, "env": e}
}

// writeMCPConfig writes an mcpServers file of servers.
func writeMCPConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadingConfig is an mcpServers file with the Go test upstream twice: as
// "notes", started at once, and as "later", disabled until loaded.
func loadingConfig(t *testing.T) string {
	return writeMCPConfig(t, map[string]any{"notes": testUpstreamEntry(t, false, nil), "later": testUpstreamEntry(t, true, nil)})
}

// With --allow-upstream-loading the agent lists, loads and unloads the
// configured servers through ask and act: a loaded server's tools become
// findable and callable, an unloaded one's leave the catalog, and a name
// outside the configuration is refused by the schema.
func TestE2EUpstreamLoading(t *testing.T) {
	cfg := loadingConfig(t)
	c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "allow", "--allow-upstream-loading").client

	if got := upstreamStates(t, c); got["later"] != "disabled" || got["notes"] != "ready" {
		t.Fatalf("list: %v", got)
	}
	if env := callTool(t, c, "ask", map[string]any{"action": "later.echo", "params": map[string]any{"message": "x"}}); env.OK || env.Code != "unknown_action" {
		t.Fatalf("a disabled server's tool before load: %+v", env)
	}
	if env := callTool(t, c, "ask", map[string]any{"action": "intentsrv.upstreams.load", "params": map[string]any{"server": "later"}}); env.OK || env.Code != "not_read_only" {
		t.Fatalf("load through ask: %+v", env)
	}
	env := callTool(t, c, "act", map[string]any{"action": "intentsrv.upstreams.load", "params": map[string]any{"server": "later"}})
	if !env.OK || !strings.Contains(string(env.Data), `"state":"ready"`) {
		t.Fatalf("load: %+v %s", env, env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "later.echo", "params": map[string]any{"message": "loaded"}})
	if !env.OK || !strings.Contains(string(env.Data), "echo: loaded") {
		t.Fatalf("a loaded server's tool: %+v %s", env, env.Data)
	}
	env = callTool(t, c, "find", map[string]any{"intent": "echo a message back", "params": map[string]any{"namespace": "later"}})
	if !env.OK || !strings.Contains(string(env.Data), "later.echo") {
		t.Fatalf("find after load (the index must be rebuilt): %s", env.Data)
	}

	env = callTool(t, c, "act", map[string]any{"action": "intentsrv.upstreams.unload", "params": map[string]any{"server": "notes"}})
	if !env.OK || !strings.Contains(string(env.Data), `"state":"unloaded"`) {
		t.Fatalf("unload: %+v %s", env, env.Data)
	}
	if env := callTool(t, c, "ask", map[string]any{"action": "notes.echo", "params": map[string]any{"message": "x"}}); env.OK || env.Code != "unknown_action" {
		t.Fatalf("an unloaded server's tool: %+v", env)
	}
	if got := upstreamStates(t, c); got["later"] != "ready" || got["notes"] != "unloaded" {
		t.Fatalf("list after load and unload: %v", got)
	}
	env = callTool(t, c, "find", map[string]any{"intent": "echo a message back"})
	if strings.Contains(string(env.Data), "notes.echo") {
		t.Fatalf("find still offers an unloaded server's tool: %s", env.Data)
	}

	env = callTool(t, c, "act", map[string]any{"action": "intentsrv.upstreams.load", "params": map[string]any{"server": "sh -c 'touch pwned'"}})
	if env.OK || env.Code != "invalid_params" {
		t.Fatalf("a server outside the configuration: %+v", env)
	}
}

// Off by default: the operations do not exist, and the flag refuses to
// serve with nothing to load; under --writes deny loading is refused.
func TestE2EUpstreamLoadingPolicy(t *testing.T) {
	cfg := loadingConfig(t)
	c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "allow").client
	if env := callTool(t, c, "ask", map[string]any{"action": "intentsrv.upstreams.list"}); env.OK || env.Code != "unknown_action" {
		t.Fatalf("list without the flag: %+v", env)
	}
	c = serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--allow-upstream-loading").client
	if env := callTool(t, c, "ask", map[string]any{"action": "intentsrv.upstreams.list"}); !env.OK {
		t.Fatalf("list is a read, served under --writes deny: %+v", env)
	}
	if env := callTool(t, c, "ask", map[string]any{"action": "intentsrv.upstreams.load", "params": map[string]any{"server": "later"}}); env.OK || env.Code != "writes_disabled" {
		t.Fatalf("load under --writes deny: %+v", env)
	}
	c = serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--allow-upstream-loading", "--writes", "confirm").client
	if env := callTool(t, c, "act", map[string]any{"action": "intentsrv.upstreams.load", "params": map[string]any{"server": "later"}}); env.OK || env.Code != "confirmation_required" {
		t.Fatalf("load under --writes confirm must preview: %+v", env)
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"list", "--allow-upstream-loading"}, nil, &bytes.Buffer{}, &stderr); code == 0 || !strings.Contains(stderr.String(), "upstream_loading_without_servers") {
		t.Fatalf("flag with no servers: exit %d, %s", code, stderr.String())
	}
}

// upstreamStates asks intentsrv.upstreams.list for each server's state.
func upstreamStates(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	env := callTool(t, c, "ask", map[string]any{"action": "intentsrv.upstreams.list"})
	var d struct {
		Servers []struct{ Server, State string }
	}
	if !env.OK || json.Unmarshal(env.Data, &d) != nil {
		t.Fatalf("intentsrv.upstreams.list: %+v %s", env, env.Data)
	}
	out := map[string]string{}
	for _, s := range d.Servers {
		out[s.Server] = s.State
	}
	return out
}
