package intent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/runs"
)

// The Tasks seam answers the four task requests from the runs: a call
// handed over is a working task with its progress as status message;
// tasks/result waits for the envelope the call would have returned;
// tasks/cancel cancels the run, and refuses a task already terminal;
// another caller's task is unknown; an interrupted run is a failed task.
func TestTasksOverRuns(t *testing.T) {
	alice := WithCaller(context.Background(), "alice")
	bob := WithCaller(context.Background(), "bob")
	m := runs.NewManager(runs.Options{})
	s, so := newSlowServer(t, Options{Runs: m})
	tasks := s.Tasks()

	id := runID(t, s.Call(alice, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":2,"site":"a","_wait":0}}`)))
	<-so.reported
	<-so.reported
	task, err := tasks.Get(alice, id)
	if err != nil || task.TaskId != id || task.Status != mcp.TaskStatusWorking || task.StatusMessage != "step 2 of 2: crawled page 2" ||
		task.TTL == nil || *task.TTL <= 0 || task.PollInterval == nil || task.CreatedAt == "" {
		t.Fatalf("tasks/get of a working run = %+v, %v", task, err)
	}
	if _, err := tasks.Get(bob, id); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("bob's tasks/get of alice's task: %v", err)
	}
	if l, _ := tasks.List(bob); len(l) != 0 {
		t.Fatalf("bob's tasks/list = %+v", l)
	}
	if l, err := tasks.List(alice); err != nil || len(l) != 1 || l[0].TaskId != id {
		t.Fatalf("alice's tasks/list = %+v, %v", l, err)
	}

	got := make(chan *mcp.CallToolResult)
	go func() {
		res, err := tasks.Result(alice, id)
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	close(so.release)
	res := <-got
	if res.IsError || !strings.Contains(string(res.StructuredContent.(json.RawMessage)), `"data":{"site":"a","pages":2}`) {
		t.Fatalf("tasks/result = %+v", res)
	}
	if task, _ := tasks.Get(alice, id); task.Status != mcp.TaskStatusCompleted {
		t.Fatalf("after the result: %+v", task)
	}
	if _, err := tasks.Cancel(alice, id); !errors.Is(err, ErrTaskFinished) {
		t.Fatalf("tasks/cancel of a completed task: %v", err)
	}

	// A second run, cancelled through the seam; a third, cut by shutdown.
	s2, so2 := newSlowServer(t, Options{Runs: m})
	id2 := runID(t, s2.Call(alice, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":1,"_wait":0}}`)))
	<-so2.reported
	if task, err := s2.Tasks().Cancel(alice, id2); err != nil || task.Status != mcp.TaskStatusCancelled {
		t.Fatalf("tasks/cancel = %+v, %v", task, err)
	}
	id3 := runID(t, s2.Call(alice, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":1,"_wait":0}}`)))
	<-so2.reported
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m.Close(ctx)
	if task, _ := s2.Tasks().Get(alice, id3); task.Status != mcp.TaskStatusFailed || !strings.Contains(task.StatusMessage, "interrupted") {
		t.Fatalf("a run cut by shutdown as a task = %+v", task)
	}
}

func TestTaskStatus(t *testing.T) {
	for st, want := range map[runs.State]mcp.TaskStatus{
		runs.StatePending: mcp.TaskStatusWorking, runs.StateRunning: mcp.TaskStatusWorking,
		runs.StateSucceeded: mcp.TaskStatusCompleted, runs.StateFailed: mcp.TaskStatusFailed,
		runs.StateCancelled: mcp.TaskStatusCancelled, runs.StateInterrupted: mcp.TaskStatusFailed,
	} {
		if got := TaskStatus(st); got != want {
			t.Errorf("%s: %s, want %s", st, got, want)
		}
	}
	if len(runs.States) != 6 {
		t.Fatalf("runs has %d states; map the new one onto a task status", len(runs.States))
	}
}

// TestMCPGoTaskHandlerContextEnds pins why TaskRPC answers task requests
// in front of mcp-go instead of leaving them to mcp-go's own task support:
// in v1.2.1, a task-augmented tools/call runs the tool's handler on a
// context derived from the request's, which mcp-go cancels as soon as it
// has answered with the task, so a handler that honours its context stops
// at once (and mcp-go's tasks live in its own in-memory map). When this
// test fails, mcp-go changed: revisit whether TaskRPC is still needed.
func TestMCPGoTaskHandlerContextEnds(t *testing.T) {
	ms := server.NewMCPServer("probe", "1", server.WithTaskCapabilities(true, true, true))
	ended := make(chan bool, 1)
	ms.AddTool(mcp.NewTool("slow", mcp.WithTaskSupport(mcp.TaskSupportOptional)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			ended <- true
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			ended <- false
			return mcp.NewToolResultText("done"), nil
		}
	})
	ctx := context.Background()
	ms.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	resp := ms.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"task":{"ttl":60000}}}`))
	b, _ := json.Marshal(resp)
	if !strings.Contains(string(b), `"taskId"`) {
		t.Fatalf("a task-augmented call did not create a task: %s", b)
	}
	if !<-ended {
		t.Fatal("mcp-go now keeps a task's handler context alive after creating the task: revisit whether intent.TaskRPC is still needed (README, MCP Tasks)")
	}
}
