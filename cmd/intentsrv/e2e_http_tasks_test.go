package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestE2EHTTPTasksTwoPrincipals drives MCP Tasks over the real binary's
// /mcp with two API keys, as raw JSON-RPC: a task belongs to the key that
// created it, another key gets the same error as for a task that does not
// exist and lists none, and a task param that is not an object is refused
// without starting a run.
func TestE2EHTTPTasksTwoPrincipals(t *testing.T) {
	const bobKey = "e2e-http-key-bob-0123456789abcdef"
	base, _, stderr := startHTTPServerKeys(t, []string{"INTENTSRV_API_KEY_ALICE=" + e2eKey, "INTENTSRV_API_KEY_BOB=" + bobKey}, "--stateless")
	rpc := func(key, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		// A streamed answer carries the message on its data line.
		if i := bytes.Index(raw, []byte("data: ")); i >= 0 {
			raw = raw[i+len("data: "):]
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(raw), &m); err != nil {
			t.Fatalf("%s: not JSON-RPC (%v): %s\n%s", body, err, raw, stderr.String())
		}
		return m
	}
	result := func(m map[string]any) map[string]any {
		t.Helper()
		r, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("want a result: %v", m)
		}
		return r
	}
	errCode := func(m map[string]any) float64 {
		if e, ok := m["error"].(map[string]any); ok {
			code, _ := e["code"].(float64)
			return code
		}
		return 0
	}

	init := result(rpc(e2eKey, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	if caps, _ := init["capabilities"].(map[string]any); caps["tasks"] == nil {
		t.Fatalf("tasks capability not advertised: %v", init)
	}
	created := result(rpc(e2eKey, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"action":"helpdesk.tickets.list","params":{}},"task":{}}}`))
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("a task-augmented ask answered no task: %v", created)
	}
	done := result(rpc(e2eKey, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`))
	if done["isError"] == true || !strings.Contains(toJSON(t, done["structuredContent"]), `"ok":true`) {
		t.Fatalf("tasks/result of alice's task: %v", done)
	}

	// Bob cannot see, read or cancel it: the answer is the unknown-task
	// error, word for word the one for an id nobody issued.
	unknown := rpc(bobKey, `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"run_nobody_issued_this"}}`)
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		got := rpc(bobKey, `{"jsonrpc":"2.0","id":4,"method":"`+method+`","params":{"taskId":"`+id+`"}}`)
		if errCode(got) != -32602 {
			t.Fatalf("bob's %s of alice's task = %v", method, got)
		}
		gotMsg := got["error"].(map[string]any)["message"].(string)
		wantMsg := strings.ReplaceAll(unknown["error"].(map[string]any)["message"].(string), "run_nobody_issued_this", id)
		if gotMsg != wantMsg {
			t.Errorf("bob's %s tells an existing task apart:\n got %s\nwant %s", method, gotMsg, wantMsg)
		}
	}
	if tasks, _ := result(rpc(bobKey, `{"jsonrpc":"2.0","id":5,"method":"tasks/list"}`))["tasks"].([]any); len(tasks) != 0 {
		t.Fatalf("bob lists alice's tasks: %v", tasks)
	}
	mine, _ := result(rpc(e2eKey, `{"jsonrpc":"2.0","id":6,"method":"tasks/list"}`))["tasks"].([]any)
	if len(mine) != 1 || mine[0].(map[string]any)["taskId"] != id || mine[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("alice's tasks/list = %v", mine)
	}

	bad := rpc(bobKey, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"action":"helpdesk.tickets.list"},"task":"x"}}`)
	if errCode(bad) != -32602 || !strings.Contains(toJSON(t, bad), "must be an object") {
		t.Fatalf("task param that is not an object = %v", bad)
	}
	if tasks, _ := result(rpc(bobKey, `{"jsonrpc":"2.0","id":8,"method":"tasks/list"}`))["tasks"].([]any); len(tasks) != 0 {
		t.Fatalf("a refused task param started a run: %v", tasks)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
