package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// findMCPServer locates a reference MCP server's entry script (name is
// everything, filesystem or memory): $INTENTSRV_SERVER_<NAME>, or the copy
// .ci/install-mcp-server.sh installs under .cache. Without INTENTSRV_E2E=1
// the test is skipped; with it, a missing server fails it (CI installs
// every peer).
func findMCPServer(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("INTENTSRV_E2E") != "1" {
		t.Skipf("set INTENTSRV_E2E=1 (and install the peer with .ci/install-mcp-server.sh %s) to run", name)
	}
	env := "INTENTSRV_SERVER_" + strings.ToUpper(name)
	p := os.Getenv(env)
	if p == "" {
		p = mcpServerCachePath(name)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("INTENTSRV_E2E=1 but server-%s is not installed (%v): run .ci/install-mcp-server.sh %s or set %s", name, err, name, env)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// mcpServerCachePath is where .ci/install-mcp-server.sh installs server-name.
func mcpServerCachePath(name string) string {
	return filepath.Join("..", "..", ".cache", "npm", "server-"+name, "node_modules", "@modelcontextprotocol", "server-"+name, "dist", "index.js")
}

// childPIDs lists the direct children of pid (Linux).
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// intentsrv in front of the reference server over stdio, through a real
// MCP client: find, describe, ask and act reach its tools; every content
// type arrives; a killed upstream recovers on a later call.
func TestE2EServerEverything(t *testing.T) {
	entry := findMCPServer(t, "everything")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{entry, "stdio"}},
	}})
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	p := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "confirm")
	c := p.client

	env := callTool(t, c, "find", map[string]any{"intent": "add two numbers"})
	if !env.OK || !strings.Contains(string(env.Data), `"id":"everything.get_sum"`) {
		t.Fatalf("find: %s", env.Data)
	}
	env = callTool(t, c, "describe", map[string]any{"action": "everything.get_structured_content"})
	if !env.OK || !strings.Contains(string(env.Data), `"New York"`) {
		t.Fatalf("describe: %s", env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.get_sum", "params": map[string]any{"a": 2, "b": 3}})
	if !env.OK || !strings.Contains(string(env.Data), "5") {
		t.Fatalf("get_sum: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.get_sum", "params": map[string]any{"a": "two"}})
	if env.OK || env.Code != "invalid_params" {
		t.Fatalf("bad params must stop before the upstream: %+v", env)
	}
	var res struct {
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Data     string          `json:"data"`
			MIMEType string          `json:"mimeType"`
			URI      string          `json:"uri"`
			Resource json.RawMessage `json:"resource"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.get_tiny_image"})
	if !env.OK || json.Unmarshal(env.Data, &res) != nil {
		t.Fatalf("get_tiny_image: %+v", env)
	}
	var image bool
	for _, b := range res.Content {
		if b.Type == "image" && b.MIMEType == "image/png" && len(b.Data) > 100 {
			image = true
		}
		if b.Type == "text" && strings.Contains(b.Text, b.Data) && b.Data != "" {
			t.Fatal("binary data folded into a text block")
		}
	}
	if !image {
		t.Fatalf("no image block: %s", env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.get_resource_links", "params": map[string]any{"count": 2}})
	if !env.OK || !strings.Contains(string(env.Data), `"type":"resource_link"`) {
		t.Fatalf("resource links: %s", env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.get_structured_content", "params": map[string]any{"location": "Chicago"}})
	if !env.OK || !strings.Contains(string(env.Data), `"structuredContent":{`) || !strings.Contains(string(env.Data), "temperature") {
		t.Fatalf("structured content: %s", env.Data)
	}
	// A write, under --writes confirm: a preview first, then the plan_ref.
	env = callTool(t, c, "act", map[string]any{"action": "everything.toggle_simulated_logging"})
	if env.OK || env.Code != "confirmation_required" {
		t.Fatalf("act preview: %+v", env)
	}
	var details struct {
		PlanRef string `json:"plan_ref"`
	}
	json.Unmarshal(env.Details, &details)
	env = callTool(t, c, "act", map[string]any{"action": "everything.toggle_simulated_logging", "plan_ref": details.PlanRef})
	if !env.OK {
		t.Fatalf("act confirmed: %+v", env)
	}

	// Kill the upstream mid-session: the next call reports it unavailable,
	// the one after restarts it.
	kids := childPIDs(t, p.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("intentsrv children %v, want the one node process", kids)
	}
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	processGone(t, kids[0])
	time.Sleep(100 * time.Millisecond)
	env = callTool(t, c, "ask", map[string]any{"action": "everything.echo", "params": map[string]any{"message": "still there?"}})
	if env.OK || env.Code != "upstream_unavailable" {
		t.Fatalf("call to the killed upstream: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "everything.echo", "params": map[string]any{"message": "back"}})
	if !env.OK || !strings.Contains(string(env.Data), "back") {
		t.Fatalf("after restart: %+v", env)
	}
}

// loopbackPreload makes every Node HTTP server listen on 127.0.0.1 only:
// server-everything's HTTP mode listens on all interfaces, and test servers
// here stay on loopback.
const loopbackPreload = `import http from "node:http";
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (port, ...rest) {
  if (typeof port === "number" || (typeof port === "string" && /^[0-9]+$/.test(port))) {
    return listen.call(this, Number(port), "127.0.0.1", ...rest.filter((x) => typeof x === "function"));
  }
  return listen.call(this, port, ...rest);
};
`

// intentsrv in front of server-everything as a remote upstream over
// streamable HTTP.
func TestE2EServerEverythingStreamableHTTP(t *testing.T) {
	entry := findMCPServer(t, "everything")
	dir := t.TempDir()
	preload := filepath.Join(dir, "loopback.mjs")
	if err := os.WriteFile(preload, []byte(loopbackPreload), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	node := exec.Command("node", "--import", preload, entry, "streamableHttp")
	node.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		node.Process.Kill()
		node.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s: %v", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"url": url}}})
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	p := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off")
	env := callTool(t, p.client, "find", map[string]any{"intent": "sum of two numbers"})
	if !env.OK || !strings.Contains(string(env.Data), `"id":"remote.get_sum"`) {
		t.Fatalf("find: %s", env.Data)
	}
	env = callTool(t, p.client, "ask", map[string]any{"action": "remote.get_sum", "params": map[string]any{"a": 40, "b": 2}})
	if !env.OK || !strings.Contains(string(env.Data), "42") {
		t.Fatalf("get_sum over streamable HTTP: %+v", env)
	}
	env = callTool(t, p.client, "ask", map[string]any{"action": "remote.get_tiny_image"})
	if !env.OK || !strings.Contains(string(env.Data), `"type":"image"`) {
		t.Fatalf("image over streamable HTTP: %s", env.Data)
	}
}
