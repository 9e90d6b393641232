package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// deafServer serves deaf.wait, whose handler ignores its context: it
// returns only when the test closes release. Such a handler must not hold
// a call or a run past its deadline, nor past runs.cancel.
func deafServer(t *testing.T, opts Options) (*Server, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	r := operations.NewRegistry()
	err := r.Register(operations.Operation{ID: "deaf.wait", Summary: "Wait without listening", Kind: operations.KindRead,
		Input: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			<-release
			return json.RawMessage(`{"late":true}`), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, release
}

// TestDeadlineEndsACallWhoseHandlerIgnoresIt: waiting longer than the
// call's timeout, ask answers timeout at the deadline.
func TestDeadlineEndsACallWhoseHandlerIgnoresIt(t *testing.T) {
	s, _ := deafServer(t, Options{Timeout: 50 * time.Millisecond, Wait: time.Hour})
	start := time.Now()
	env := call(t, s, ToolAsk, `{"action":"deaf.wait"}`)
	if env.OK || env.Code != CodeTimeout || (env.Meta != nil && env.Meta.RunID != "") {
		t.Fatalf("want a timeout, not a handle: %s", env.JSON())
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Fatalf("the call waited %s for a handler that ignores its context", waited)
	}
}

// TestDeadlineEndsAHandedOverRun: a run handed over before its deadline
// still ends at the deadline, as a timeout, while its handler is stuck.
func TestDeadlineEndsAHandedOverRun(t *testing.T) {
	s, _ := deafServer(t, Options{Timeout: 50 * time.Millisecond, Wait: time.Millisecond})
	id := runID(t, call(t, s, ToolAsk, `{"action":"deaf.wait"}`))
	res := askRuns(t, context.Background(), s, "runs.await", id, `,"wait_seconds":60`)
	if res.OK || res.Code != CodeTimeout || res.Meta.RunID != id {
		t.Fatalf("await = %s", res.JSON())
	}
	if st := data(t, askRuns(t, context.Background(), s, "runs.get", id, "")); st["state"] != "failed" {
		t.Fatalf("run state = %v, want failed", st["state"])
	}
}

// TestCancelEndsARunWhoseHandlerIgnoresIt: runs.cancel ends the run at
// once, cancelled, although its handler never looks at its context.
func TestCancelEndsARunWhoseHandlerIgnoresIt(t *testing.T) {
	s, _ := deafServer(t, Options{Timeout: time.Hour, Wait: time.Millisecond})
	id := runID(t, call(t, s, ToolAsk, `{"action":"deaf.wait"}`))
	got := askRuns(t, context.Background(), s, "runs.cancel", id, "")
	if d := data(t, got); d["state"] != "cancelled" || !strings.Contains(d["note"].(string), "stopped") {
		t.Fatalf("cancel = %s", got.JSON())
	}
	res := askRuns(t, context.Background(), s, "runs.await", id, "")
	if res.OK || res.Code != CodeTimeout || !strings.Contains(res.Error, "cancelled") {
		t.Fatalf("await after cancel = %s", res.JSON())
	}
}

// TestLateResultIsDropped: once the deadline ended a call, the handler's
// late answer changes nothing, and the worker it held serves again.
func TestLateResultIsDropped(t *testing.T) {
	s, release := deafServer(t, Options{Timeout: 20 * time.Millisecond, Wait: time.Millisecond})
	id := runID(t, call(t, s, ToolAsk, `{"action":"deaf.wait"}`))
	res := askRuns(t, context.Background(), s, "runs.await", id, `,"wait_seconds":60`)
	if res.Code != CodeTimeout {
		t.Fatalf("await = %s", res.JSON())
	}
	release <- struct{}{} // the stuck handler returns now
	again := askRuns(t, context.Background(), s, "runs.await", id, "")
	if again.Code != CodeTimeout || strings.Contains(string(again.JSON()), `"late":true`) {
		t.Fatalf("a late result replaced the timeout: %s", again.JSON())
	}
	if env := call(t, s, ToolAsk, `{"action":"runs.list"}`); !env.OK {
		t.Fatalf("server broken after a late result: %s", env.JSON())
	}
}

// TestHandlerGivingUpIsATimeout: a handler that returns its context's
// error once the call's time is up reports a timeout (or a cancellation),
// whichever of it and the deadline is seen first.
func TestHandlerGivingUpIsATimeout(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	op, _ := s.Registry().Get("notes.get")
	expired, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if env := s.result(expired, op, nil, nil, expired.Err()); env.Code != CodeTimeout || !strings.Contains(env.Error, "did not finish") {
		t.Fatalf("deadline: %s", env.JSON())
	}
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if env := s.result(stopped, op, nil, nil, fmt.Errorf("read: %w", stopped.Err())); env.Code != CodeTimeout || !strings.Contains(env.Error, "cancelled") {
		t.Fatalf("cancel: %s", env.JSON())
	}
	// While the call's time lasts, a handler's own deadline is its error.
	if env := s.result(context.Background(), op, nil, nil, context.DeadlineExceeded); env.Code != CodeUpstreamError {
		t.Fatalf("the handler's own deadline: %s", env.JSON())
	}
}
