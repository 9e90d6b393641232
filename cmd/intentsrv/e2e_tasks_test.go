package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// awaitReply returns the reply to id, keeping the replies to other ids
// that arrive first in seen (requests answered out of order), and the
// notifications under their line.
func awaitReply(s *rawServer, seen map[any]rawReply, id string) rawReply {
	s.t.Helper()
	for {
		if r, ok := seen[id]; ok {
			delete(seen, id)
			return r
		}
		keep(seen, s.next())
	}
}

func keep(seen map[any]rawReply, r rawReply) {
	if r.ID == nil {
		seen[r.line] = r
		return
	}
	seen[r.ID] = r
}

// awaitProgress returns the first notifications/progress line for token,
// keeping the replies that arrive first in seen.
func awaitProgress(s *rawServer, seen map[any]rawReply, token string) string {
	s.t.Helper()
	for {
		for k, r := range seen {
			if r.ID == nil && strings.Contains(r.line, `"method":"notifications/progress"`) && strings.Contains(r.line, `"progressToken":"`+token+`"`) {
				delete(seen, k)
				return r.line
			}
		}
		keep(seen, s.next())
	}
}

// taskRequest is a JSON-RPC line of a tasks/* method on taskID.
func taskRequest(id, method, taskID string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{"taskId":%q}}`, id, method, taskID)
}

// taskOf decodes the task of a CreateTaskResult (under "task") or of a
// tasks/get or tasks/cancel result (the result itself).
func taskOf(t *testing.T, r rawReply) (id, status string) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%v: %s", r.ID, r.line)
	}
	var created struct {
		Task *mcp.Task `json:"task"`
	}
	var got mcp.Task
	if err := json.Unmarshal(r.Result, &created); err != nil {
		t.Fatalf("%v: %s", r.ID, r.line)
	}
	if created.Task != nil {
		return created.Task.TaskId, string(created.Task.Status)
	}
	if err := json.Unmarshal(r.Result, &got); err != nil {
		t.Fatalf("%v: %s", r.ID, r.line)
	}
	return got.TaskId, string(got.Status)
}

// TestE2EStdioTasks drives MCP Tasks over the real binary's stdio with raw
// JSON-RPC against a slow HTTP API: initialize advertises tasks, ask lists
// taskSupport optional, a task-augmented ask answers with a task at once,
// tasks/get reads it working, tasks/result blocks (while other requests
// are served) until the API answers and returns the export, tasks/cancel
// of another task aborts its HTTP request, and tasks/list lists both.
func TestE2EStdioTasks(t *testing.T) {
	api := newSlowExports(t)
	s := startRaw(t, "--openapi", "exports="+api.spec, "--base-url", api.url, "--openapi-cache", "off",
		"--run-store", filepath.Join(t.TempDir(), "runs.db"))
	seen := map[any]rawReply{}

	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	init := awaitReply(s, seen, "init")
	var caps struct {
		Capabilities struct {
			Tasks json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init.Result, &caps); err != nil || !jsonEqual(t, caps.Capabilities.Tasks, []byte(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)) {
		t.Fatalf("initialize does not advertise tasks: %s", init.line)
	}
	s.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	var listing struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if r := awaitReply(s, seen, "list"); json.Unmarshal(r.Result, &listing) != nil || len(listing.Tools) == 0 {
		t.Fatalf("tools/list: %s", r.line)
	}
	for _, tl := range listing.Tools {
		want := ""
		if tl.Name == "ask" || tl.Name == "act" {
			want = `{"taskSupport":"optional"}`
		}
		if string(tl.Execution) != want {
			t.Errorf("%s lists execution %s, want %q", tl.Name, tl.Execution, want)
		}
	}

	export := func(reqID string, export int) string {
		t.Helper()
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"ask","arguments":{"action":"exports.exports.get_export","params":{"id":%d}},"task":{"ttl":600000},"_meta":{"progressToken":%q}}}`, reqID, export, reqID))
		id, status := taskOf(t, awaitReply(s, seen, reqID))
		if id == "" || status != "working" {
			t.Fatalf("a task-augmented ask: task %q status %q", id, status)
		}
		return id
	}
	first := export("call1", 1)
	second := export("call2", 2)
	// The progress token of a task-augmented call stays valid after the
	// call answered: the HTTP call's phases arrive, naming the task.
	if n := awaitProgress(s, seen, "call1"); !strings.Contains(n, `"io.modelcontextprotocol/related-task":{"taskId":"`+first+`"}`) {
		t.Fatalf("a task's progress does not name it: %s", n)
	}
	s.send(taskRequest("get1", "tasks/get", first))
	if id, status := taskOf(t, awaitReply(s, seen, "get1")); id != first || status != "working" {
		t.Fatalf("tasks/get of a running export: %s %s", id, status)
	}

	s.send(taskRequest("result1", "tasks/result", first))
	// Cancel export 2 once its request is in flight: cancelled earlier, it
	// would never reach the API, and nothing would be aborted there.
	api.waitArrived(t, "2")
	s.send(taskRequest("cancel2", "tasks/cancel", second))
	if id, status := taskOf(t, awaitReply(s, seen, "cancel2")); id != second || status != "cancelled" {
		t.Fatalf("tasks/cancel: %s %s", id, status)
	}
	select {
	case id := <-api.aborted:
		if id != "2" {
			t.Fatalf("export %s was aborted, want 2", id)
		}
	case <-time.After(e2eHangGuard):
		t.Fatal("tasks/cancel never reached the HTTP request")
	}
	s.send(`{"jsonrpc":"2.0","id":"tasks","method":"tasks/list"}`)
	r := awaitReply(s, seen, "tasks")
	if !strings.Contains(string(r.Result), first) || !strings.Contains(string(r.Result), second) {
		t.Fatalf("tasks/list: %s", r.line)
	}
	if _, early := seen["result1"]; early {
		t.Fatalf("tasks/result answered before the export was released: %s", seen["result1"].line)
	}

	api.release("1")
	res := awaitReply(s, seen, "result1")
	var out struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			OK   bool            `json:"ok"`
			Data json.RawMessage `json:"data"`
		} `json:"structuredContent"`
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil || out.IsError || !out.StructuredContent.OK ||
		!strings.Contains(string(out.StructuredContent.Data), `"rows":42`) || out.Meta["io.modelcontextprotocol/related-task"].TaskID != first {
		t.Fatalf("tasks/result: %s", res.line)
	}
	s.send(taskRequest("get2", "tasks/get", second), taskRequest("getnone", "tasks/get", "run_nothing"))
	if _, status := taskOf(t, awaitReply(s, seen, "get2")); status != "cancelled" {
		t.Fatalf("tasks/get of the cancelled export: %s", status)
	}
	if r := awaitReply(s, seen, "getnone"); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("tasks/get of an unknown task: %s", r.line)
	}
	s.finish()
}
