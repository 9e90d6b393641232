package intent

// MCP Tasks on the wire. TaskRPC sits in front of the mcp-go server
// NewMCPServer(s, version, WithMCPTasks()) built, in every transport: it
// answers the task requests itself, from the runs, and hands every other
// message to mcp-go untouched. mcp-go's own task support is never
// reached: it keeps tasks in a map of its own (not durable, not shared by
// replicas, one map for every principal in stateless HTTP) and cancels a
// task's handler once the task is created (TestMCPGoTaskHandlerContextEnds).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/runs"
)

// ModelImmediateResponseKey is the CreateTaskResult _meta key whose text a
// host may hand the model while the task runs (MCP 2025-11-25, tasks).
const ModelImmediateResponseKey = "io.modelcontextprotocol/model-immediate-response"

type taskKey struct{}

// taskCall is what a task-augmented tools/call leaves for TaskRPC: the run
// it handed over (runOrWait), else the envelope the call answered with
// without running anything (a refusal, a preview, a runs.* operation).
type taskCall struct {
	rec    runs.Record
	handed bool
	env    *Envelope
}

func taskCallOf(ctx context.Context) *taskCall {
	t, _ := ctx.Value(taskKey{}).(*taskCall)
	return t
}

// taskVerb reports whether a tool of this verb runs as a task: ask and
// act, whose operations may take minutes. find and describe answer from
// memory at once; their taskSupport is "forbidden".
func taskVerb(verb string) bool { return verb == ToolAsk || verb == ToolAct }

// TaskRPC answers MCP task requests (protocol 2025-11-25) for one
// Server, in front of the mcp-go server NewMCPServer built for it with
// WithMCPTasks. The caller of every request is its context's (WithCaller;
// a transport binds it to the principal, stdio has one): a task is seen,
// awaited, cancelled and listed by that caller only, and another caller's
// task id is answered as unknown, word for word. It is safe for concurrent
// use.
type TaskRPC struct {
	s         *Server
	ms        *server.MCPServer
	taskTools map[string]bool // ask and act, prefixed: taskSupport optional
	tools     map[string]bool // every listed tool, prefixed
}

// NewTaskRPC returns the TaskRPC of s, passing the task-augmented calls it
// accepts to ms (which NewMCPServer built for s with WithMCPTasks) so that
// they go through ms's tool middleware, as any call does.
func NewTaskRPC(s *Server, ms *server.MCPServer) *TaskRPC {
	t := &TaskRPC{s: s, ms: ms, taskTools: map[string]bool{}, tools: map[string]bool{}}
	for _, d := range s.Tools() {
		t.tools[d.Name] = true
		if taskVerb(d.Verb) {
			t.taskTools[d.Name] = true
		}
	}
	return t
}

// TaskMethodBlocks reports whether a request of method may block until a
// task ends (tasks/result does): a transport serves such requests apart
// from the ones that answer at once.
func TaskMethodBlocks(method string) bool { return method == string(mcp.MethodTasksResult) }

// Handle answers msg, one JSON-RPC message, when it is a task request: a
// tools/call of ask or act whose params carry task (answered with a
// CreateTaskResult; -32602 when task is not an object), a tools/call of
// another tool with task (-32601: its taskSupport is forbidden), or
// tasks/get, tasks/result (which blocks
// until the task ends or ctx is done), tasks/cancel or tasks/list. For
// anything else, handled is false and msg is for mcp-go.
func (t *TaskRPC) Handle(ctx context.Context, msg []byte) (resp mcp.JSONRPCMessage, handled bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '{' {
		return nil, false // batches and garbage are mcp-go's to answer
	}
	if !bytes.Contains(msg, []byte("task")) {
		return nil, false // every task request names a task method or field: most messages are passed on unparsed
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" {
		return nil, false // notifications, responses and malformed requests
	}
	var id mcp.RequestId
	if id.UnmarshalJSON(req.ID) != nil {
		return nil, false
	}
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodToolsCall:
		var p struct {
			Name string          `json:"name"`
			Task json.RawMessage `json:"task"`
		}
		if json.Unmarshal(req.Params, &p) != nil || len(p.Task) == 0 || string(p.Task) == "null" {
			return nil, false
		}
		if !t.taskTools[p.Name] {
			if !t.tools[p.Name] {
				return nil, false // mcp-go says the tool does not exist
			}
			return rpcError(id, mcp.METHOD_NOT_FOUND, fmt.Sprintf("%s does not run as a task (its execution.taskSupport is forbidden: it answers at once); call it without params.task", p.Name)), true
		}
		if p.Task[0] != '{' {
			return rpcError(id, mcp.INVALID_PARAMS, `params.task must be an object: {} (or {"ttl": milliseconds}) to run the call as a task, or leave it out to call at once`), true
		}
		return t.create(ctx, id, msg, p.Name), true
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel:
		var p struct {
			TaskID string `json:"taskId"`
		}
		if json.Unmarshal(req.Params, &p) != nil || p.TaskID == "" {
			return rpcError(id, mcp.INVALID_PARAMS, req.Method+" needs params.taskId, the id a task-augmented tools/call returned"), true
		}
		return t.onTask(ctx, id, mcp.MCPMethod(req.Method), p.TaskID), true
	case mcp.MethodTasksList:
		var p struct {
			Cursor string `json:"cursor"`
		}
		if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) != nil {
			return rpcError(id, mcp.INVALID_PARAMS, "tasks/list params must be an object"), true
		}
		tasks, next, err := t.s.Tasks().ListPage(ctx, p.Cursor, TaskListPage)
		if errors.Is(err, ErrBadCursor) {
			return rpcError(id, mcp.INVALID_PARAMS, "unknown cursor: send the nextCursor of an earlier tasks/list as it came, or no cursor for the first page"), true
		}
		if err != nil {
			return t.taskError(id, "", err), true
		}
		out := mcp.NewListTasksResult(tasks)
		out.NextCursor = mcp.Cursor(next)
		return mcp.NewJSONRPCResultResponse(id, out), true
	}
	return nil, false
}

// create runs a task-augmented call: the call goes to mcp-go without its
// task field, as a plain call through the same handler and middleware, and
// its operation is handed over as a run at once (runOrWait). The answer is
// the run as a task. A call answered without running anything becomes a
// task already holding that answer, so tasks/result returns what the call
// would have.
func (t *TaskRPC) create(ctx context.Context, id mcp.RequestId, msg []byte, tool string) mcp.JSONRPCMessage {
	plain, err := withoutTask(msg)
	if err != nil {
		return rpcError(id, mcp.INVALID_PARAMS, "tools/call params could not be read: "+err.Error())
	}
	task := &taskCall{}
	resp := t.ms.HandleMessage(context.WithValue(ctx, taskKey{}, task), plain)
	rec, handed := task.rec, task.handed
	if !handed {
		env := task.env
		if env == nil {
			// The handler did not run: mcp-go refused the call (an error
			// to pass on as it is) or a middleware answered for it.
			res, ok := callResult(resp)
			if !ok {
				return resp
			}
			env = envelopeOfResult(res)
		}
		rec, err = t.s.keepAnswer(ctx, taskOperation(msg, tool), env)
		if err != nil {
			return rpcError(id, mcp.INTERNAL_ERROR, "the task could not be created: "+err.Error())
		}
	}
	out := mcp.NewCreateTaskResult(taskOf(rec))
	out.Meta = &mcp.Meta{AdditionalFields: map[string]any{
		ModelImmediateResponseKey: fmt.Sprintf("%s runs on the server as task %s; its result comes when it ends (also through %s%s with action runs.await and run_id %s).",
			rec.Operation, rec.ID, t.s.opts.ToolPrefix, ToolAsk, rec.ID),
	}}
	return mcp.NewJSONRPCResultResponse(id, out)
}

// onTask answers tasks/get, tasks/result and tasks/cancel.
func (t *TaskRPC) onTask(ctx context.Context, id mcp.RequestId, method mcp.MCPMethod, taskID string) mcp.JSONRPCMessage {
	tasks := t.s.Tasks()
	switch method {
	case mcp.MethodTasksGet:
		task, err := tasks.Get(ctx, taskID)
		if err != nil {
			return t.taskError(id, taskID, err)
		}
		return mcp.NewJSONRPCResultResponse(id, mcp.NewGetTaskResult(task))
	case mcp.MethodTasksCancel:
		task, err := tasks.Cancel(ctx, taskID)
		if err != nil {
			return t.taskError(id, taskID, err)
		}
		return mcp.NewJSONRPCResultResponse(id, mcp.NewCancelTaskResult(task))
	default:
		res, err := tasks.Result(ctx, taskID)
		if err != nil {
			return t.taskError(id, taskID, err)
		}
		res.Meta = mcp.WithRelatedTask(taskID)
		return mcp.NewJSONRPCResultResponse(id, res)
	}
}

// taskError is the JSON-RPC error of a failed task request: an unknown
// task (another caller's included) and a cancel of a finished one are
// invalid params, per the protocol.
func (t *TaskRPC) taskError(id mcp.RequestId, taskID string, err error) mcp.JSONRPCMessage {
	switch {
	case errors.Is(err, runs.ErrUnknownRun):
		return rpcError(id, mcp.INVALID_PARAMS, fmt.Sprintf("task not found: %q (tasks are kept %s after they end, and only for the caller that created them; tasks/list lists yours)", taskID, t.s.retentionPhrase()))
	case errors.Is(err, ErrTaskFinished):
		return rpcError(id, mcp.INVALID_PARAMS, err.Error()+": a finished task cannot be cancelled; tasks/result returns its result")
	case errors.Is(err, runs.ErrElsewhere):
		return rpcError(id, mcp.INTERNAL_ERROR, fmt.Sprintf("task %s is executing in another server process; it cannot be cancelled from this one: retry later, or await it with tasks/result", taskID))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return rpcError(id, mcp.REQUEST_INTERRUPTED, "the request ended before the task did; the task keeps running: send tasks/result again")
	}
	t.s.log.Error("run store failed", "task", taskID, "err", err)
	return rpcError(id, mcp.INTERNAL_ERROR, "the run store failed: "+err.Error()+"; retry in a moment")
}

// keepAnswer records env, the answer of a call that ran nothing, as a run
// already finished, handed over so its id names it: the task of a
// task-augmented call that needed none.
func (s *Server) keepAnswer(ctx context.Context, operation string, env *Envelope) (runs.Record, error) {
	// Start, not TryStart: the answer is in already, so keeping it is not
	// one more operation under way (--max-runs).
	run, err := handedOverFirst(func(w runs.Work) (*runs.Run, error) {
		return s.runs.Start(ctx, callerOf(ctx), operation, w), nil
	}, func(context.Context) runs.Outcome { return outcomeOf(env) })
	if err != nil {
		return runs.Record{}, err
	}
	return run.Record(), nil
}

// withoutTask returns a tools/call message without params.task.
func withoutTask(msg []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(m["params"], &p); err != nil {
		return nil, err
	}
	delete(p, "task")
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	m["params"] = b
	return json.Marshal(m)
}

// taskOperation names a task that ran nothing: the action it asked for,
// else the tool.
func taskOperation(msg []byte, tool string) string {
	var m struct {
		Params struct {
			Arguments struct {
				Action string `json:"action"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Params.Arguments.Action != "" && len(m.Params.Arguments.Action) <= 200 {
		return m.Params.Arguments.Action
	}
	return tool
}

// callResult is the tool result of an mcp-go response, if it is one.
func callResult(resp mcp.JSONRPCMessage) (*mcp.CallToolResult, bool) {
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok {
		return nil, false
	}
	switch v := r.Result.(type) {
	case *mcp.CallToolResult:
		return v, v != nil
	case mcp.CallToolResult:
		return &v, true
	}
	return nil, false
}

// envelopeOfResult recovers the envelope of a tool result an intent tool
// or a middleware returned; a result that carries none is an internal
// error.
func envelopeOfResult(res *mcp.CallToolResult) *Envelope {
	env, ok := ResultEnvelope(res)
	if !ok {
		return failure(CodeInternalError, "the call answered without an envelope", nil, nil)
	}
	return env
}

// ResultEnvelope decodes the envelope an intent tool returned as a tool
// result's structured content (ToolResult's, or a client's decoding of
// it); ok is false when res carries none.
func ResultEnvelope(res *mcp.CallToolResult) (env *Envelope, ok bool) {
	if res == nil {
		return nil, false
	}
	var raw []byte
	switch v := res.StructuredContent.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case nil:
	default:
		raw, _ = json.Marshal(v)
	}
	env = &Envelope{}
	if len(raw) == 0 || json.Unmarshal(raw, env) != nil {
		return nil, false
	}
	return env, true
}

func rpcError(id mcp.RequestId, code int, message string) mcp.JSONRPCMessage {
	return mcp.NewJSONRPCError(id, code, message, nil)
}
