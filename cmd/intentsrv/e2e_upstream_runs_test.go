package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// progressLog collects the notifications/progress a client receives, by
// progress token.
type progressLog struct {
	mu   sync.Mutex
	seen map[string][]map[string]any
}

func listenProgress(c *client.Client) *progressLog {
	l := &progressLog{seen: map[string][]map[string]any{}}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		token, _ := n.Params.AdditionalFields["progressToken"].(string)
		l.mu.Lock()
		l.seen[token] = append(l.seen[token], n.Params.AdditionalFields)
		l.mu.Unlock()
	})
	return l
}

func (l *progressLog) of(token string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.seen[token]...)
}

// callWithProgress is callTool with a progress token in the request's
// _meta.
func callWithProgress(t *testing.T, c *client.Client, name, token string, args map[string]any) e2eEnvelope {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	return callToolRequest(t, c, req)
}

type e2eRunView struct {
	RunID    string `json:"run_id"`
	State    string `json:"state"`
	Progress *struct {
		Done    float64 `json:"done"`
		Total   float64 `json:"total"`
		Message string  `json:"message"`
	} `json:"progress"`
}

// TestE2EUpstreamToolRuns drives the real binary in front of the Go test
// upstream, through a real MCP client: a slow upstream tool called with a
// small _wait answers with a run handle; the upstream's progress is
// forwarded to the client under the token it sent (on ask, then on
// runs.await) and recorded on the run (runs.get); runs.cancel stops the
// upstream tool itself.
func TestE2EUpstreamToolRuns(t *testing.T) {
	witness := filepath.Join(t.TempDir(), "cancelled")
	cfg := writeMCPConfig(t, map[string]any{"notes": testUpstreamEntry(t, false, map[string]string{testupstream.EnvCancelFile: witness})})
	// serveProcess's client, unlike startClient's, delivers notifications.
	c := serveProcess(t, "--mcp-config", cfg, "--mcp-cache", "off").client
	log := listenProgress(c)

	// 40 steps of 100 ms: well past a 0.5 s wait, and done within a minute.
	env := callWithProgress(t, c, "ask", "on-ask", map[string]any{"action": "notes.steps", "params": map[string]any{"count": 40, "step_ms": 100, "_wait": 0.5}})
	var h e2eRunView
	if err := json.Unmarshal(env.Data, &h); err != nil || !env.OK || h.RunID == "" || h.State != "running" {
		t.Fatalf("a slow upstream call past its _wait: %+v", env)
	}
	onAsk := log.of("on-ask")
	if len(onAsk) == 0 || onAsk[0]["total"] != float64(40) || !strings.HasPrefix(onAsk[0]["message"].(string), "working on step") {
		t.Fatalf("progress forwarded while ask waited: %v", onAsk)
	}

	got := callTool(t, c, "ask", map[string]any{"action": "runs.get", "params": map[string]any{"run_id": h.RunID}})
	var v e2eRunView
	if err := json.Unmarshal(got.Data, &v); err != nil || v.State != "running" || v.Progress == nil || v.Progress.Total != 40 || v.Progress.Done < onAsk[len(onAsk)-1]["progress"].(float64) {
		t.Fatalf("runs.get: %s", got.Data)
	}

	awaited := callWithProgress(t, c, "ask", "on-await", map[string]any{"action": "runs.await", "params": map[string]any{"run_id": h.RunID, "wait_seconds": 0.5}})
	if !awaited.OK || !strings.Contains(string(awaited.Data), "call runs.await again") {
		t.Fatalf("runs.await of a running run: %+v", awaited)
	}
	onAwait := log.of("on-await")
	if len(onAwait) == 0 || onAwait[len(onAwait)-1]["progress"].(float64) < v.Progress.Done {
		t.Fatalf("progress forwarded while runs.await waited: %v (runs.get said %v)", onAwait, v.Progress)
	}
	if n := len(log.of("on-ask")); n != len(onAsk) {
		t.Fatalf("progress went to the ask's token after the ask answered: %d, then %d", len(onAsk), n)
	}

	cancelled := callTool(t, c, "ask", map[string]any{"action": "runs.cancel", "params": map[string]any{"run_id": h.RunID}})
	if !cancelled.OK || !strings.Contains(string(cancelled.Data), `"state":"cancelled"`) {
		t.Fatalf("runs.cancel: %+v", cancelled)
	}
	deadline := time.Now().Add(20 * time.Second) // a liveness bound, not a speed claim
	for {
		if b, _ := os.ReadFile(witness); strings.Contains(string(b), "cancelled after") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("runs.cancel never reached the upstream tool (no notifications/cancelled)")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
