package intent

// MCP Tasks over runs: the seam. The 2025-11-25 protocol's tasks (a
// tools/call with params.task answers with a task; tasks/get, tasks/result,
// tasks/cancel and tasks/list follow it) are runs under another name: a
// task is the run a call hands over, its id the run id. Tasks answers
// those four requests from the runs, with the runs' principal isolation,
// durability and sharing across replicas.
//
// TaskRPC (taskrpc.go) puts these methods on the wire, in front of
// mcp-go, which implements tasks too but from an in-memory map of its own
// (not durable nor shared, and in stateless HTTP one map for every
// principal) and runs a task-augmented call's handler on the request's
// context, which ends as soon as the task is created
// (TestMCPGoTaskHandlerContextEnds). See README, "MCP Tasks".

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/runs"
)

// TaskPollInterval is the poll interval Tasks suggests to clients.
const TaskPollInterval = time.Second

// ErrTaskFinished is Tasks.Cancel's answer for a task already in a
// terminal status, which the protocol says cannot be cancelled.
var ErrTaskFinished = errors.New("the task already finished")

// Tasks answers MCP task requests from a Server's runs. The caller is the
// context's, as for every call (WithCaller); another caller's task is
// unknown (runs.ErrUnknownRun).
type Tasks struct{ s *Server }

// Tasks returns the server's MCP Tasks seam.
func (s *Server) Tasks() Tasks { return Tasks{s: s} }

// TaskStatus is the task status of a run state: pending and running runs
// are working; an interrupted run failed (the server stopped under it).
func TaskStatus(st runs.State) mcp.TaskStatus {
	switch st {
	case runs.StateSucceeded:
		return mcp.TaskStatusCompleted
	case runs.StateFailed, runs.StateInterrupted:
		return mcp.TaskStatusFailed
	case runs.StateCancelled:
		return mcp.TaskStatusCancelled
	default:
		return mcp.TaskStatusWorking
	}
}

// taskOf shows rec as a task. Its status message is the run's progress
// while it works, and says why it failed when it was interrupted. The TTL
// runs from creation to when the record may be forgotten.
func taskOf(rec runs.Record) mcp.Task {
	ttl := rec.ExpiresAt.Sub(rec.StartedAt).Milliseconds()
	poll := TaskPollInterval.Milliseconds()
	updated := rec.StartedAt
	if rec.State.Finished() {
		updated = rec.FinishedAt
	}
	t := mcp.Task{TaskId: rec.ID, Status: TaskStatus(rec.State), CreatedAt: rec.StartedAt.UTC().Format(time.RFC3339),
		LastUpdatedAt: updated.UTC().Format(time.RFC3339), TTL: &ttl, PollInterval: &poll}
	switch {
	case rec.State == runs.StateInterrupted:
		t.StatusMessage = "interrupted: the server stopped while " + rec.Operation + " ran"
	case rec.State == runs.StatePending:
		t.StatusMessage = "waiting for a free slot"
	case rec.Progress != nil:
		t.StatusMessage = rec.Progress.String()
	}
	return t
}

// Get answers tasks/get.
func (t Tasks) Get(ctx context.Context, taskID string) (mcp.Task, error) {
	rec, err := t.s.runs.Get(ctx, callerOf(ctx), taskID)
	if err != nil {
		return mcp.Task{}, err
	}
	return taskOf(rec), nil
}

// Result answers tasks/result: it blocks until the task is in a terminal
// status (or ctx is done) and returns the tool result its call would have
// returned, the same envelope runs.await gives.
func (t Tasks) Result(ctx context.Context, taskID string) (*mcp.CallToolResult, error) {
	for {
		rec, err := t.s.runs.Await(ctx, callerOf(ctx), taskID, MaxWait, nil)
		if err != nil {
			return nil, err
		}
		if rec.State.Finished() {
			return ToolResult(t.s.runResult(rec)), nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// Cancel answers tasks/cancel: the run is cancelled as runs.cancel does,
// and its task returned. A task already terminal is ErrTaskFinished.
func (t Tasks) Cancel(ctx context.Context, taskID string) (mcp.Task, error) {
	rec, err := t.s.runs.Get(ctx, callerOf(ctx), taskID)
	if err != nil {
		return mcp.Task{}, err
	}
	if rec.State.Finished() {
		return taskOf(rec), fmt.Errorf("task %s: %w (%s)", taskID, ErrTaskFinished, TaskStatus(rec.State))
	}
	rec, err = t.s.runs.Cancel(ctx, callerOf(ctx), taskID)
	if err != nil {
		return mcp.Task{}, err
	}
	return taskOf(rec), nil
}

// List answers tasks/list: the caller's tasks, newest first.
func (t Tasks) List(ctx context.Context) ([]mcp.Task, error) {
	tasks, _, err := t.ListPage(ctx, "", 0)
	return tasks, err
}

// TaskListPage is how many tasks one tasks/list answer holds.
const TaskListPage = 100

// ErrBadCursor is ListPage's answer to a cursor it did not issue.
var ErrBadCursor = errors.New("unknown cursor")

// ListPage answers tasks/list a page at a time: at most limit of the
// caller's tasks (all when limit is 0), newest first, from where cursor
// (a next of an earlier page; "" for the first) left off, and the cursor
// of the page after it ("" when there is none). A cursor names the last
// task a page showed, so tasks created meanwhile do not shift the pages.
func (t Tasks) ListPage(ctx context.Context, cursor string, limit int) (tasks []mcp.Task, next string, err error) {
	recs, err := t.s.runs.List(ctx, callerOf(ctx), nil, 0)
	if err != nil {
		return nil, "", err
	}
	if cursor != "" {
		at, id, ok := parseTaskCursor(cursor)
		if !ok {
			return nil, "", ErrBadCursor
		}
		// recs are newest first (started_at, then id, descending): the
		// page goes on with the first task that sorts after the cursor's.
		i := 0
		for i < len(recs) && (recs[i].StartedAt.After(at) || (recs[i].StartedAt.Equal(at) && recs[i].ID >= id)) {
			i++
		}
		recs = recs[i:]
	}
	if limit > 0 && len(recs) > limit {
		recs = recs[:limit]
		last := recs[len(recs)-1]
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(last.StartedAt.UnixNano(), 10) + " " + last.ID))
	}
	tasks = make([]mcp.Task, len(recs))
	for i, rec := range recs {
		tasks[i] = taskOf(rec)
	}
	return tasks, next, nil
}

func parseTaskCursor(cursor string) (at time.Time, id string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return time.Time{}, "", false
	}
	ns, id, found := strings.Cut(string(b), " ")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !found || err != nil || id == "" {
		return time.Time{}, "", false
	}
	return time.Unix(0, n), id, true
}
