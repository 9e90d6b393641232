package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// Long-running calls. ask and act run every operation (other than the
// runs.* ones) as a run and wait for it up to the call's wait: a call that
// finishes in time returns its result as if no run existed; one that does
// not returns a run handle (ok, with run_id, state, progress and the next
// call to make). The built-in runs.* operations read, await, cancel and
// list handles; they live in the reserved namespace "runs", outside the
// caller's registry, and are reached like any read operation.

const (
	// WaitUntilDone as Options.Wait makes ask and act block until the
	// operation ends, never handing out a run handle.
	WaitUntilDone time.Duration = -1
	// MaxWait caps the wait a call may ask for (params._wait, runs.await's
	// wait_seconds): hosts give up on tool calls that take minutes.
	MaxWait = 2 * time.Minute
	// WaitParam is the reserved field of ask's and act's params that sets
	// the call's wait, in seconds. It is taken out before the params reach
	// the operation, so no operation can declare a parameter of that name.
	WaitParam = "_wait"
	// RunsNamespace is the reserved namespace of the built-in operations.
	RunsNamespace = "runs"

	builtinSource    = "builtin"
	defaultListLimit = 20
)

type waitKey struct{}

// callWait is the wait one call asked for with params._wait.
type callWait struct {
	d       time.Duration
	clamped bool // asked for more than MaxWait
}

// takeWait removes params._wait from an ask or act input and carries it
// on the context. A value that is not a number of seconds, 0 or more, is
// refused with invalid_params.
func takeWait(ctx context.Context, tool string, in Input) (Input, context.Context, *Envelope) {
	if !bytes.Contains(in.Params, []byte(`"`+WaitParam+`"`)) {
		return in, ctx, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(in.Params, &m) != nil {
		return in, ctx, nil // the params' own validation reports it
	}
	raw, ok := m[WaitParam]
	if !ok {
		return in, ctx, nil // the name appeared inside a value
	}
	var secs float64
	isNull := bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
	if err := json.Unmarshal(raw, &secs); !isNull && (err != nil || secs < 0 || math.IsNaN(secs)) {
		return in, ctx, failure(CodeInvalidParams, "params._wait must be a number of seconds, 0 or more", map[string]string{"field": "params/" + WaitParam},
			&Remedy{Tool: tool, Action: in.Action, Fix: fmt.Sprintf("send _wait as seconds (e.g. 5; at most %d), or leave it out for the server's default", int(MaxWait.Seconds()))})
	}
	delete(m, WaitParam)
	in.Params = nil
	if len(m) > 0 {
		b, err := encodeJSON(m)
		if err != nil {
			return in, ctx, failure(CodeInvalidParams, "params could not be re-encoded: "+err.Error(), nil, nil)
		}
		in.Params = b
	}
	if isNull {
		return in, ctx, nil // null means absent, as for the input's fields
	}
	w := callWait{d: MaxWait, clamped: true}
	if secs < MaxWait.Seconds() {
		w = callWait{d: time.Duration(secs * float64(time.Second))}
	}
	return in, context.WithValue(ctx, waitKey{}, w), nil
}

// waitOf is the wait of the call ctx carries: params._wait, else the
// server's. A server that waits until done ignores params._wait: its runs
// could not outlive the call (a one-shot CLI).
func (s *Server) waitOf(ctx context.Context) callWait {
	if w, ok := ctx.Value(waitKey{}).(callWait); ok && s.opts.Wait >= 0 {
		return w
	}
	return callWait{d: s.opts.Wait}
}

// ErrShutdown is the cause a transport gives when it cancels the calls in
// flight because the server stops (context.WithCancelCause): a call cut
// that way answers a failure, not the handle of a run that keeps going,
// since its run ends with the process.
var ErrShutdown = errors.New("the server is shutting down")

// runOrWait runs op as a run and waits for it; see the comment at the top
// of this file.
func (s *Server) runOrWait(ctx context.Context, op *operations.Operation, args json.RawMessage) *Envelope {
	w := s.waitOf(ctx)
	if w.d < 0 {
		return s.complete(ctx, op, args)
	}
	// A task-augmented MCP call (taskrpc.go) hands its run over at once.
	task := taskCallOf(ctx)
	run, err := s.startRun(ctx, op, args, task != nil) // runstart.go
	if err != nil {
		return runsFull(op, err)
	}
	if task != nil {
		// The task is the run: it is handed over at once, whatever the wait.
		rec := run.Record()
		task.rec, task.handed = rec, true
		if notify := progressOf(ctx); notify != nil {
			// A task's progressToken stays valid for the task's life: its
			// reports are forwarded until the run ends.
			go run.Wait(context.WithoutCancel(ctx), math.MaxInt64, notify)
		}
		return s.runStatus(rec, op.ID+" runs on the server as MCP task "+rec.ID+"; its result is kept "+s.retentionPhrase()+" after it ends")
	}
	var env *Envelope
	var rec runs.Record
	out, done := run.Wait(ctx, w.d, progressOf(ctx))
	if !done {
		rec, out, done = run.Detach()
	}
	if done && ctx.Err() != nil {
		// The call ended as its run finished: the answer is the call's
		// end, never an ok that races it (nobody reads it as this call's
		// result, and a caller that did would take a cancelled call for a
		// done one).
		return s.operationFailure(op, doneError(ctx))
	}
	if !done && errors.Is(context.Cause(ctx), ErrShutdown) {
		// The call was cut because the server stops: its run dies with
		// the process, so it is no handle to come back to.
		return s.operationFailure(op, context.Canceled)
	}
	if done {
		env = envelopeOf(op, out)
	} else {
		note := fmt.Sprintf("%s is still running after %s", op.ID, shortDuration(w.d))
		if ctx.Err() != nil {
			note = op.ID + " is still running; the call that started it ended"
		}
		env = s.runStatus(rec, note+progressPhrase(rec)+"; it keeps running on the server, and its result is kept "+s.retentionPhrase()+" after it ends")
	}
	if w.clamped {
		env.Warnings = append(env.Warnings, fmt.Sprintf("params._wait was cut to %d seconds, the most a call waits", int(MaxWait.Seconds())))
	}
	return env
}

// runsFull refuses a call that would start a run past the server's bound
// on runs under way (runs.Options.MaxRuns); nothing ran.
func runsFull(op *operations.Operation, err error) *Envelope {
	var full *runs.FullError
	if !errors.As(err, &full) {
		return failure(CodeInternalError, "the run could not start: "+err.Error(), nil, nil)
	}
	return failure(CodeRateLimited, fmt.Sprintf("%s did not run: the server already has %d operations under way, its most (--max-runs)", op.ID, full.Max),
		map[string]any{"max_runs": full.Max},
		&Remedy{Tool: ToolAsk, Action: "runs.list", Fix: "list your runs still running (runs.list with state running); await them with runs.await or stop those no longer wanted with runs.cancel, then retry this call"})
}

// envelopeOf is the envelope a run's work returned; work that died
// without one (a panic outside the handler's guard) is an internal error.
func envelopeOf(op *operations.Operation, out runs.Outcome) *Envelope {
	if env, ok := out.Value.(*Envelope); ok && env != nil {
		return env
	}
	return failure(CodeInternalError, op.ID+" failed with an internal error; nothing is known about its effects", nil,
		&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "check the state with a read operation before retrying"})
}

func progressPhrase(rec runs.Record) string {
	if rec.State == runs.StatePending {
		return " (waiting for a free slot; it has not started)"
	}
	if rec.Progress == nil {
		return ""
	}
	if p := rec.Progress.String(); p != "" {
		return " (" + p + ")"
	}
	return ""
}

func (s *Server) retentionPhrase() string {
	return "for " + shortDuration(s.runs.Retention())
}

// shortDuration writes d for a reader: "1h", "1m30s", "20s", "250ms".
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	t := d.Round(time.Second).String()
	if strings.HasSuffix(t, "m0s") {
		t = strings.TrimSuffix(t, "0s")
	}
	if strings.HasSuffix(t, "h0m") {
		t = strings.TrimSuffix(t, "0m")
	}
	return t
}

// runView is a run as the runs.* operations and run handles show it.
type runView struct {
	RunID      string         `json:"run_id"`
	Operation  string         `json:"operation"`
	State      runs.State     `json:"state"`
	Progress   *runs.Progress `json:"progress,omitempty"`
	StartedAt  string         `json:"started_at"`
	FinishedAt string         `json:"finished_at,omitempty"`
	// ExpiresAt is when a finished run is forgotten.
	ExpiresAt string `json:"expires_at,omitempty"`
	Note      string `json:"note,omitempty"`
}

func viewOf(rec runs.Record, note string) runView {
	v := runView{RunID: rec.ID, Operation: rec.Operation, State: rec.State, Progress: rec.Progress,
		StartedAt: rec.StartedAt.UTC().Format(time.RFC3339), Note: note}
	if rec.State.Finished() {
		v.FinishedAt = rec.FinishedAt.UTC().Format(time.RFC3339)
		v.ExpiresAt = rec.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return v
}

// runStatus is an envelope that shows a run, with the next call to make:
// await it (and maybe cancel it) while it runs; await it for its result
// once it finished.
func (s *Server) runStatus(rec runs.Record, note string) *Envelope {
	ref := map[string]any{"run_id": rec.ID}
	var env *Envelope
	if rec.State.Finished() {
		env = success(viewOf(rec, note), Step{Tool: ToolAsk, Action: "runs.await", Params: ref, Why: "get its result"})
	} else {
		env = success(viewOf(rec, note),
			Step{Tool: ToolAsk, Action: "runs.await", Params: ref, Why: fmt.Sprintf("wait up to %s for the result; call again while it runs", shortDuration(s.awaitDefault()))},
			Step{Tool: ToolAsk, Action: "runs.cancel", Params: ref, Why: "stop it if the result is no longer wanted"})
	}
	env.meta().RunID = rec.ID
	return env
}

// awaitDefault is how long runs.await waits when not told.
func (s *Server) awaitDefault() time.Duration {
	if s.opts.Wait < 0 {
		return MaxWait
	}
	return s.opts.Wait
}

// runResult is the envelope of a finished run: the one its call would have
// returned, or a failure that says why there is none.
func (s *Server) runResult(rec runs.Record) *Envelope {
	var env *Envelope
	again := &Remedy{Tool: ToolDescribe, Action: rec.Operation, Fix: "call the operation again if its result is still wanted"}
	switch {
	case rec.State == runs.StateInterrupted:
		// Whatever the work answered as it was cut (a cancelled call) says
		// less than this.
		env = failure(CodeInternalError, fmt.Sprintf("run %s was interrupted: the server stopped while %s ran, so nothing is known about its effects", rec.ID, rec.Operation), nil,
			&Remedy{Tool: ToolDescribe, Action: rec.Operation, Fix: "check the state with a read operation before running it again"})
	case rec.Result != nil:
		env = &Envelope{}
		if err := json.Unmarshal(rec.Result, env); err != nil {
			env = failure(CodeInternalError, "the result of run "+rec.ID+" could not be read back: "+err.Error(), nil, again)
		}
	case rec.ResultDropped:
		env = failure(CodeResultTooLarge, fmt.Sprintf("run %s ended (%s), but its result was dropped to keep the results this server retains under their size cap", rec.ID, rec.State), nil, again)
	case rec.State == runs.StateCancelled:
		env = failure(CodeTimeout, fmt.Sprintf("run %s was cancelled before %s started; nothing ran", rec.ID, rec.Operation), nil, again)
	default:
		env = failure(CodeInternalError, fmt.Sprintf("run %s ended (%s) without a result", rec.ID, rec.State), nil, again)
	}
	env.meta().RunID = rec.ID
	return env
}

// runError maps a runs.Manager error to an envelope. An unknown run and
// another principal's run read alike.
func (s *Server) runError(err error, id string) *Envelope {
	switch {
	case errors.Is(err, runs.ErrUnknownRun):
		return failure(CodeNotFound, fmt.Sprintf("no run %q: runs are kept %s after they end, and only for the caller that started them", id, s.retentionPhrase()), nil,
			&Remedy{Tool: ToolAsk, Action: "runs.list", Fix: "list your runs with runs.list, or call the operation again"})
	case errors.Is(err, runs.ErrElsewhere):
		return failure(CodeConflict, fmt.Sprintf("run %s is executing in another server process; it cannot be cancelled from this one", id), nil,
			&Remedy{Tool: ToolAsk, Action: "runs.await", Fix: "await it instead, or retry the cancel later"})
	}
	s.log.Error("run store failed", "run", id, "err", err)
	return failure(CodeInternalError, "the run store failed: "+err.Error(), nil,
		&Remedy{Tool: ToolAsk, Action: "runs.get", Fix: "retry in a moment"})
}
