package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/tokens"
)

// taskWire is a TaskRPC in front of the mcp-go server of a slow server,
// driven with raw JSON-RPC as a transport would.
type taskWire struct {
	t   *testing.T
	rpc *TaskRPC
	ms  interface {
		HandleMessage(context.Context, json.RawMessage) mcp.JSONRPCMessage
	}
	next int
}

func newTaskWire(t *testing.T, s *Server) *taskWire {
	ms := NewMCPServer(s, "test", WithMCPTasks())
	return &taskWire{t: t, rpc: NewTaskRPC(s, ms), ms: ms}
}

// send answers one request the way a transport does: TaskRPC first, then
// mcp-go. It returns the response decoded, and whether TaskRPC answered.
func (w *taskWire) send(ctx context.Context, method, params string) (map[string]any, bool) {
	w.t.Helper()
	w.next++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, w.next, method, params)
	resp, handled := w.rpc.Handle(ctx, []byte(msg))
	if !handled {
		resp = w.ms.HandleMessage(ctx, []byte(msg))
	}
	b, err := json.Marshal(resp)
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatalf("%s: %s", err, b)
	}
	if m["id"] != float64(w.next) {
		w.t.Fatalf("%s answered with another id: %s", method, b)
	}
	return m, handled
}

// result is a request's result, failing on an error.
func (w *taskWire) result(ctx context.Context, method, params string) map[string]any {
	w.t.Helper()
	m, _ := w.send(ctx, method, params)
	r, ok := m["result"].(map[string]any)
	if !ok {
		w.t.Fatalf("%s %s: no result: %v", method, params, m)
	}
	return r
}

// rpcErr is a request's JSON-RPC error code and message, failing on a
// result.
func (w *taskWire) rpcErr(ctx context.Context, method, params string) (int, string) {
	w.t.Helper()
	m, _ := w.send(ctx, method, params)
	e, ok := m["error"].(map[string]any)
	if !ok {
		w.t.Fatalf("%s %s: want an error, got %v", method, params, m)
	}
	return int(e["code"].(float64)), e["message"].(string)
}

// createTask sends a task-augmented tools/call and returns the task.
func (w *taskWire) createTask(ctx context.Context, tool, args string) map[string]any {
	w.t.Helper()
	m, handled := w.send(ctx, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s,"task":{"ttl":60000}}`, tool, args))
	if !handled {
		w.t.Fatal("a task-augmented call went to mcp-go")
	}
	r, _ := m["result"].(map[string]any)
	task, ok := r["task"].(map[string]any)
	if !ok {
		w.t.Fatalf("tools/call with task: not a CreateTaskResult: %v", m)
	}
	return task
}

func structured(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent: %v", res)
	}
	return sc
}

// A task-augmented ask is a run from the start: tasks/get sees it working
// with its progress, tasks/result waits for the envelope the call would
// have returned and names the task, and the run is the task (runs.get
// reads it by the same id).
func TestTaskRPCLifecycle(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	w := newTaskWire(t, s)
	ctx := context.Background()

	task := w.createTask(ctx, "ask", `{"action":"slow.crawl","params":{"pages":2,"site":"a"}}`)
	id, _ := task["taskId"].(string)
	if !strings.HasPrefix(id, "run_") || task["status"] != "working" || task["createdAt"] == "" || task["lastUpdatedAt"] == "" ||
		task["ttl"] == nil || task["pollInterval"] == nil {
		t.Fatalf("created task = %v", task)
	}
	<-so.reported
	<-so.reported
	got := w.result(ctx, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id))
	if got["taskId"] != id || got["status"] != "working" || got["statusMessage"] != "step 2 of 2: crawled page 2" {
		t.Fatalf("tasks/get while it runs = %v", got)
	}
	if env := askRuns(t, ctx, s, "runs.get", id, ""); data(t, env)["state"] != "running" {
		t.Fatalf("the task's run = %s", env.JSON())
	}

	done := make(chan map[string]any)
	go func() {
		m, _ := w.send(ctx, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
		done <- m
	}()
	close(so.release)
	m := <-done
	res, _ := m["result"].(map[string]any)
	if res == nil || res["isError"] == true || !strings.Contains(fmt.Sprint(structured(t, res)["data"]), "site:a") {
		t.Fatalf("tasks/result = %v", m)
	}
	if rel := res["_meta"].(map[string]any)[mcp.RelatedTaskMetaKey].(map[string]any); rel["taskId"] != id {
		t.Fatalf("tasks/result does not name its task: %v", res["_meta"])
	}
	if got := w.result(ctx, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id)); got["status"] != "completed" {
		t.Fatalf("tasks/get after the result = %v", got)
	}
	code, msg := w.rpcErr(ctx, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id))
	if code != mcp.INVALID_PARAMS || !strings.Contains(msg, "finished") {
		t.Fatalf("tasks/cancel of a completed task = %d %s", code, msg)
	}
}

// tasks/cancel cancels the handler's context and answers the task
// cancelled; tasks/result then returns the cancelled call's answer.
func TestTaskRPCCancelReachesHandler(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	w := newTaskWire(t, s)
	ctx := context.Background()
	id := w.createTask(ctx, "ask", `{"action":"slow.crawl","params":{"pages":1}}`)["taskId"].(string)
	<-so.reported
	got := w.result(ctx, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id))
	if got["taskId"] != id || got["status"] != "cancelled" {
		t.Fatalf("tasks/cancel = %v", got)
	}
	if err := <-so.sawCancel; err != context.Canceled {
		t.Fatalf("the handler's context ended with %v, want context.Canceled", err)
	}
	res := w.result(ctx, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
	if res["isError"] != true {
		t.Fatalf("tasks/result of a cancelled task = %v", res)
	}
}

// Tasks belong to the caller that created them: tasks/list shows only
// the caller's, and another caller's task id is answered exactly as an id
// that never existed, by every task request.
func TestTaskRPCPrincipals(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	defer close(so.release)
	w := newTaskWire(t, s)
	alice := WithCaller(context.Background(), "alice")
	bob := WithCaller(context.Background(), "bob")
	a1 := w.createTask(alice, "ask", `{"action":"slow.crawl","params":{"pages":1,"site":"a1"}}`)["taskId"].(string)
	a2 := w.createTask(alice, "ask", `{"action":"slow.crawl","params":{"pages":1,"site":"a2"}}`)["taskId"].(string)
	b1 := w.createTask(bob, "ask", `{"action":"slow.crawl","params":{"pages":1,"site":"b1"}}`)["taskId"].(string)

	ids := func(ctx context.Context) map[string]bool {
		out := map[string]bool{}
		for _, x := range w.result(ctx, "tasks/list", `{}`)["tasks"].([]any) {
			out[x.(map[string]any)["taskId"].(string)] = true
		}
		return out
	}
	if l := ids(alice); len(l) != 2 || !l[a1] || !l[a2] {
		t.Fatalf("alice's tasks/list = %v, want %s and %s", l, a1, a2)
	}
	if l := ids(bob); len(l) != 1 || !l[b1] {
		t.Fatalf("bob's tasks/list = %v, want %s", l, b1)
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		code, msg := w.rpcErr(bob, method, fmt.Sprintf(`{"taskId":%q}`, a1))
		codeNone, msgNone := w.rpcErr(bob, method, `{"taskId":"run_doesnotexist"}`)
		if code != mcp.INVALID_PARAMS || code != codeNone || msg != strings.Replace(msgNone, "run_doesnotexist", a1, 1) {
			t.Fatalf("bob's %s of alice's task = %d %q; of no task = %d %q", method, code, msg, codeNone, msgNone)
		}
	}
	if got := w.result(alice, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a1)); got["status"] != "working" {
		t.Fatalf("bob's cancel touched alice's task: %v", got)
	}
}

// A call that fails is a failed task whose result is the call's error
// envelope: an operation whose handler fails, and a call refused before
// anything ran (params that do not fit), which still gets a task.
func TestTaskRPCFailedCalls(t *testing.T) {
	s, _ := newSlowServer(t, Options{})
	if err := operations.Add(s.Registry(), operations.Operation{ID: "flaky.fail", Summary: "Fail upstream", Kind: operations.KindRead},
		func(context.Context, crawlArgs) (crawlResult, error) {
			return crawlResult{}, errors.New("the upstream broke")
		}); err != nil {
		t.Fatal(err)
	}
	s.Reindex()
	w := newTaskWire(t, s)
	ctx := context.Background()
	for _, c := range []struct{ name, args, code string }{
		{"handler fails", `{"action":"flaky.fail","params":{"pages":1}}`, string(CodeUpstreamError)},
		{"bad params", `{"action":"slow.crawl","params":{"pages":"many"}}`, string(CodeInvalidParams)},
		{"unknown action", `{"action":"slow.nothing"}`, string(CodeUnknownAction)},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := w.createTask(ctx, "ask", c.args)["taskId"].(string)
			res := w.result(ctx, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
			if res["isError"] != true || structured(t, res)["code"] != c.code {
				t.Fatalf("tasks/result = %v, want isError with code %s", res, c.code)
			}
			if got := w.result(ctx, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id)); got["status"] != "failed" {
				t.Fatalf("tasks/get of a failed call = %v", got)
			}
		})
	}
}

// find and describe answer at once and list no taskSupport: a call of
// either with task is refused with -32601, as the protocol says, and one
// without task is served by mcp-go as before. The initialize result
// advertises tasks; ask lists taskSupport optional.
func TestTaskRPCAdvertisingAndForbiddenTools(t *testing.T) {
	s, _ := newSlowServer(t, Options{})
	w := newTaskWire(t, s)
	ctx := context.Background()
	init := w.result(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	caps, _ := json.Marshal(init["capabilities"].(map[string]any)["tasks"])
	if string(caps) != `{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}` {
		t.Fatalf("tasks capability = %s", caps)
	}
	for _, tool := range w.result(ctx, "tools/list", `{}`)["tools"].([]any) {
		tl := tool.(map[string]any)
		ex, _ := json.Marshal(tl["execution"])
		want := "null"
		if tl["name"] == "ask" {
			want = `{"taskSupport":"optional"}`
		}
		if string(ex) != want {
			t.Errorf("%s lists execution %s, want %s", tl["name"], ex, want)
		}
	}
	code, msg := w.rpcErr(ctx, "tools/call", `{"name":"find","arguments":{"intent":"crawl"},"task":{}}`)
	if code != mcp.METHOD_NOT_FOUND || !strings.Contains(msg, "without params.task") {
		t.Fatalf("find with task = %d %s", code, msg)
	}
	if m, handled := w.send(ctx, "tools/call", `{"name":"find","arguments":{"intent":"crawl"}}`); handled || m["result"] == nil {
		t.Fatalf("a plain find = %v (handled by TaskRPC: %v)", m, handled)
	}
	if code, _ := w.rpcErr(ctx, "tasks/list", `{"cursor":"x"}`); code != mcp.INVALID_PARAMS {
		t.Fatalf("tasks/list with a cursor never issued: %d", code)
	}
	if code, _ := w.rpcErr(ctx, "tasks/get", `{}`); code != mcp.INVALID_PARAMS {
		t.Fatalf("tasks/get without taskId: %d", code)
	}
	// params.task is an object; anything else is refused, and no run
	// starts for it.
	for _, task := range []string{`"x"`, `1`, `true`, `[]`} {
		code, msg := w.rpcErr(ctx, "tools/call", `{"name":"ask","arguments":{"intent":"crawl"},"task":`+task+`}`)
		if code != mcp.INVALID_PARAMS || !strings.Contains(msg, "must be an object") {
			t.Errorf("ask with task %s = %d %s", task, code, msg)
		}
	}
	if tasks := w.result(ctx, "tasks/list", `{}`)["tasks"]; tasks != nil && len(tasks.([]any)) != 0 {
		t.Errorf("refused task params started runs: %v", tasks)
	}
}

// A task's run is a run like any other: shutdown interrupts it, and the
// task reads failed.
func TestTaskRPCInterrupted(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	s, so := newSlowServer(t, Options{Runs: m})
	w := newTaskWire(t, s)
	ctx := context.Background()
	id := w.createTask(ctx, "ask", `{"action":"slow.crawl","params":{"pages":1}}`)["taskId"].(string)
	<-so.reported
	m.Close(ctx)
	got := w.result(ctx, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, id))
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(got["statusMessage"]), "interrupted") {
		t.Fatalf("a task cut by shutdown = %v", got)
	}
}

// tasks/list pages through the caller's tasks, TaskListPage at a time,
// each once: a task created between pages does not shift them, the last
// page has no nextCursor, and a cursor never issued is invalid params.
func TestTaskRPCListPages(t *testing.T) {
	s, _ := newSlowServer(t, Options{})
	w := newTaskWire(t, s)
	ctx := context.Background()
	const n = 2*TaskListPage + 5
	want := map[string]bool{}
	for range n {
		want[w.createTask(ctx, "ask", `{"action":"slow.nothing"}`)["taskId"].(string)] = true
	}
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		page := w.result(ctx, "tasks/list", params)
		pages++
		for _, x := range page["tasks"].([]any) {
			id := x.(map[string]any)["taskId"].(string)
			if seen[id] || !want[id] {
				t.Fatalf("page %d lists %s again or a task created after the first page", pages, id)
			}
			seen[id] = true
		}
		if pages == 1 {
			w.createTask(ctx, "ask", `{"action":"slow.nothing"}`) // newer than every listed task
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != 3 || len(seen) != n {
		t.Fatalf("%d pages listed %d of %d tasks", pages, len(seen), n)
	}
}

// WithMCPTasks changes the listing by ask's and act's execution field
// alone; the test logs what that costs in tokens
// (go test ./intent -run TestTasksListingCost -v).
func TestTasksListingCost(t *testing.T) {
	for _, w := range []WritePolicy{WritesDeny, WritesConfirm} {
		s, _ := newTestServer(t, Options{Writes: w})
		list := func(opts ...MCPOption) (string, []map[string]any) {
			ms := NewMCPServer(s, "t", opts...)
			ms.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			b, _ := json.Marshal(ms.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))
			var m struct {
				Result struct {
					Tools []map[string]any `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(m.Result)
			return string(raw), m.Result.Tools
		}
		plainRaw, plain := list()
		tasksRaw, tasks := list(WithMCPTasks())
		for i, tl := range tasks {
			ex, _ := json.Marshal(tl["execution"])
			if v := tl["name"]; (v == "ask" || v == "act") != (string(ex) == `{"taskSupport":"optional"}`) {
				t.Errorf("%s lists execution %s", v, ex)
			}
			delete(tl, "execution")
			a, _ := json.Marshal(tl)
			b, _ := json.Marshal(plain[i])
			if string(a) != string(b) {
				t.Errorf("WithMCPTasks changed more than execution:\n%s\n%s", a, b)
			}
		}
		n0, _ := tokens.Max(plainRaw)
		n1, _ := tokens.Max(tasksRaw)
		t.Logf("writes=%s: tools/list %d tokens, %d with tasks (+%d)", w, n0, n1, n1-n0)
	}
}
