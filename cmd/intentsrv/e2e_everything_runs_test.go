package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EServerEverythingLongRunning: intentsrv in front of the reference
// server, through a real MCP client. Its long-running tool, called with a
// small _wait and a progress token, answers with a run handle; the
// upstream's progress is forwarded to the client and kept on the run;
// runs.await returns the tool's result. A second call is cancelled: the
// run ends cancelled at once, whatever the upstream does with the
// notifications/cancelled it gets.
func TestE2EServerEverythingLongRunning(t *testing.T) {
	entry := findMCPServer(t, "everything")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{entry, "stdio"}},
	}})
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off").client
	log := listenProgress(c)
	const op = "everything.trigger_long_running_operation"

	env := callWithProgress(t, c, "ask", "slow", map[string]any{"action": op, "params": map[string]any{"duration": 6, "steps": 6, "_wait": 2.5}})
	var h e2eRunView
	if err := json.Unmarshal(env.Data, &h); err != nil || !env.OK || h.RunID == "" || h.State != "running" {
		t.Fatalf("the long-running tool past its _wait: %+v", env)
	}
	seen := log.of("slow")
	if len(seen) == 0 || seen[0]["total"] != float64(6) || seen[0]["progress"] != float64(1) {
		t.Fatalf("progress forwarded while ask waited: %v", seen)
	}
	got := callTool(t, c, "ask", map[string]any{"action": "runs.get", "params": map[string]any{"run_id": h.RunID}})
	var v e2eRunView
	if err := json.Unmarshal(got.Data, &v); err != nil || v.Progress == nil || v.Progress.Total != 6 || v.Progress.Done < 1 {
		t.Fatalf("runs.get: %s", got.Data)
	}
	res := callTool(t, c, "ask", map[string]any{"action": "runs.await", "params": map[string]any{"run_id": h.RunID, "wait_seconds": 60}})
	if !res.OK || !strings.Contains(string(res.Data), "Long running operation completed") {
		t.Fatalf("runs.await: %+v", res)
	}

	env = callTool(t, c, "ask", map[string]any{"action": op, "params": map[string]any{"duration": 60, "steps": 60, "_wait": 0.5}})
	if err := json.Unmarshal(env.Data, &h); err != nil || !env.OK || h.State != "running" {
		t.Fatalf("a second long call: %+v", env)
	}
	cancelled := callTool(t, c, "ask", map[string]any{"action": "runs.cancel", "params": map[string]any{"run_id": h.RunID}})
	if !cancelled.OK || !strings.Contains(string(cancelled.Data), `"state":"cancelled"`) {
		t.Fatalf("runs.cancel: %+v", cancelled)
	}
	// The upstream still answers other calls.
	if env := callTool(t, c, "ask", map[string]any{"action": "everything.echo", "params": map[string]any{"message": "still here"}}); !env.OK {
		t.Fatalf("echo after the cancel: %+v", env)
	}
}
