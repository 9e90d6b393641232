package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
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

// runOrWait runs op as a run and waits for it; see the comment at the top
// of this file.
func (s *Server) runOrWait(ctx context.Context, op *operations.Operation, args json.RawMessage) *Envelope {
	w := s.waitOf(ctx)
	if w.d < 0 {
		return s.complete(ctx, op, args)
	}
	run := s.runs.Start(ctx, callerOf(ctx), op.ID, func(ctx context.Context) runs.Outcome {
		env := s.complete(ctx, op, args)
		return runs.Outcome{Failed: !env.OK, Value: env}
	})
	var env *Envelope
	if out, done := run.Wait(ctx, w.d, progressOf(ctx)); done {
		env = envelopeOf(op, out)
	} else if rec, out, finished := run.Detach(); finished {
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
	case rec.Result != nil:
		env = &Envelope{}
		if err := json.Unmarshal(rec.Result, env); err != nil {
			env = failure(CodeInternalError, "the result of run "+rec.ID+" could not be read back: "+err.Error(), nil, again)
		}
	case rec.ResultDropped:
		env = failure(CodeResultTooLarge, fmt.Sprintf("run %s ended (%s), but its result was dropped to keep the results this server retains under their size cap", rec.ID, rec.State), nil, again)
	case rec.State == runs.StateCancelled:
		env = failure(CodeTimeout, fmt.Sprintf("run %s was cancelled before %s started; nothing ran", rec.ID, rec.Operation), nil, again)
	case rec.State == runs.StateInterrupted:
		env = failure(CodeInternalError, fmt.Sprintf("run %s was interrupted: the server stopped while %s ran, so nothing is known about its effects", rec.ID, rec.Operation), nil,
			&Remedy{Tool: ToolDescribe, Action: rec.Operation, Fix: "check the state with a read operation before running it again"})
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

// The runs.* operations' arguments.
type runRef struct {
	RunID string `json:"run_id" jsonschema:"description=from a run handle,minLength=1,maxLength=64"`
}

type awaitArgs struct {
	RunID       string   `json:"run_id" jsonschema:"description=from a run handle,minLength=1,maxLength=64"`
	WaitSeconds *float64 `json:"wait_seconds,omitempty" jsonschema:"description=seconds; default: the server's --wait,minimum=0,maximum=120"`
}

type listArgs struct {
	State string `json:"state,omitempty" jsonschema:"description=run state,enum=pending,enum=running,enum=succeeded,enum=failed,enum=cancelled,enum=interrupted"`
	Limit int    `json:"limit,omitempty" jsonschema:"description=most runs (default 20),minimum=1,maximum=100"`
}

// builtinHandler serves one runs.* operation.
type builtinHandler func(s *Server, ctx context.Context, args json.RawMessage) *Envelope

// builtins are the runs.* operations: their own registry (so they are
// validated and described like any operation without entering the
// caller's), their router entries and their handlers.
type builtins struct {
	reg      *operations.Registry
	router   *router.Router // over ops alone; see routerFor
	ops      []*operations.Operation
	handlers map[*operations.Operation]builtinHandler
}

// newBuiltins returns the built-in operations. They are immutable, so one
// set serves every Server.
var newBuiltins = sync.OnceValue(func() *builtins {
	reg := operations.NewRegistry()
	reg.SetNamespaceBlurb(RunsNamespace, "Run handles of operations that outlived their call's wait (built in)")
	b := &builtins{reg: reg, handlers: map[*operations.Operation]builtinHandler{}}
	add := func(op operations.Operation, h builtinHandler, register func(operations.Operation) error) {
		op.Namespace, op.Kind, op.Idempotent, op.Source = RunsNamespace, operations.KindRead, true, builtinSource
		if err := register(op); err != nil {
			panic("intent: built-in operation: " + err.Error())
		}
		got, _ := reg.Get(op.ID)
		b.ops = append(b.ops, got)
		b.handlers[got] = h
	}
	// Their words are few and their own ("run handle", "run_id"), so find
	// within their namespace ranks them by what they do.
	add(operations.Operation{ID: "runs.get", Summary: "Run handle status: state and progress of a run_id, without waiting",
		Description: "States: pending, running, succeeded, failed, cancelled, interrupted. runs.await returns the outcome."},
		(*Server).runsGet, registerOutside[runRef](reg))
	add(operations.Operation{ID: "runs.await", Summary: "Await a run handle: the run_id's outcome once it ends, else its progress",
		Description: "Blocks up to wait_seconds. An ended run returns the envelope its original ask or act would have returned."},
		(*Server).runsAwait, registerOutside[awaitArgs](reg))
	add(operations.Operation{ID: "runs.cancel", Summary: "Cancel a run handle: stop the run_id's operation",
		Description: "A pending run never starts; a running one has its context cancelled. A read: it stops only the caller's own run."},
		(*Server).runsCancel, registerOutside[runRef](reg))
	add(operations.Operation{ID: "runs.list", Summary: "List run handles, newest first, optionally by state",
		Description: "The caller's runs: running ones, and ended ones until their retention passes."},
		(*Server).runsList, registerOutside[listArgs](reg))
	b.router = router.New(b.ops, router.Options{})
	return b
})

// routerFor is the router that answers query within namespace: the
// built-ins' own for their namespace and for a query that starts with
// their prefix ("runs.await"), the catalog's for everything else. The
// built-ins stay out of the catalog's index on purpose: measured on the
// help desk and GitHub intent sets, their words (and "run", which the
// semantic tier relates to deploy, restart, call) put them among the
// candidates of unrelated intents, and cost one helpdesk top-1. An agent
// meets them through a run handle's next_steps, find with their id, and
// describe's overview.
func (s *Server) routerFor(query, namespace string) *router.Router {
	if namespace == RunsNamespace || isReservedID(strings.ToLower(strings.TrimSpace(query))) {
		return s.builtins.router
	}
	return s.router
}

// registerOutside registers a built-in with its input schema reflected
// from In. The server answers runs.* itself (Server.execute); the
// registry's handler only refuses a call made around it.
func registerOutside[In any](reg *operations.Registry) func(operations.Operation) error {
	return func(op operations.Operation) error {
		return operations.Add(reg, op, func(context.Context, In) (any, error) {
			return nil, &operations.Error{Code: "internal_error", Message: op.ID + " is answered by an intent server, not by its registry", Fix: "call it through ask"}
		})
	}
}

func (b *builtins) has(op *operations.Operation) bool { return b.handlers[op] != nil }

func (b *builtins) handler(op *operations.Operation) builtinHandler { return b.handlers[op] }

// get finds a built-in operation by id or alias, in any case.
func (b *builtins) get(id string) (*operations.Operation, bool) {
	if !strings.HasPrefix(strings.ToLower(id), RunsNamespace+".") {
		return nil, false
	}
	return b.reg.Get(strings.ToLower(id))
}

// addNamespace adds the runs namespace to a sorted namespace list.
func (b *builtins) addNamespace(ns []operations.Namespace) []operations.Namespace {
	own := b.reg.Namespaces(nil)
	out := append(slices.Clone(ns), own...)
	slices.SortFunc(out, func(a, b operations.Namespace) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// orAll returns the built-in operations for the runs namespace, else every
// operation of reg.
func (b *builtins) orAll(namespace string, reg *operations.Registry) []*operations.Operation {
	if namespace == RunsNamespace {
		return b.ops
	}
	return reg.All()
}

// validate checks args against the schema of operation id, built-in or
// the caller's.
func (s *Server) validate(id string, args json.RawMessage) error {
	if _, ok := s.builtins.get(id); ok {
		return s.builtins.reg.Validate(strings.ToLower(id), args)
	}
	return s.reg.Validate(id, args)
}

// isReservedID reports whether id lies in the reserved runs namespace.
func isReservedID(id string) bool { return strings.HasPrefix(id, RunsNamespace+".") }

func reservedError(op *operations.Operation) error {
	return fmt.Errorf("operation %q (source %s) is in the namespace %q, which intentsrv reserves for its run operations; rename it (an overlay, or another source name such as --openapi jobs=SPEC)",
		op.ID, op.Source, RunsNamespace)
}

func decodeBuiltinArgs(args json.RawMessage, dst any) *Envelope {
	if err := json.Unmarshal(args, dst); err != nil {
		return failure(CodeInvalidParams, "params do not decode: "+err.Error(), nil, nil)
	}
	return nil
}

func (s *Server) runsGet(ctx context.Context, args json.RawMessage) *Envelope {
	var a runRef
	if env := decodeBuiltinArgs(args, &a); env != nil {
		return env
	}
	rec, err := s.runs.Get(ctx, callerOf(ctx), a.RunID)
	if err != nil {
		return s.runError(err, a.RunID)
	}
	note := ""
	if !rec.State.Finished() {
		note = "still running" + progressPhrase(rec)
	}
	return s.runStatus(rec, note)
}

func (s *Server) runsAwait(ctx context.Context, args json.RawMessage) *Envelope {
	var a awaitArgs
	if env := decodeBuiltinArgs(args, &a); env != nil {
		return env
	}
	wait := s.awaitDefault()
	if a.WaitSeconds != nil {
		wait = min(time.Duration(*a.WaitSeconds*float64(time.Second)), MaxWait)
	}
	rec, err := s.runs.Await(ctx, callerOf(ctx), a.RunID, wait, progressOf(ctx))
	if err != nil {
		return s.runError(err, a.RunID)
	}
	if rec.State.Finished() {
		return s.runResult(rec)
	}
	return s.runStatus(rec, fmt.Sprintf("still running after waiting %s%s; call runs.await again", shortDuration(wait), progressPhrase(rec)))
}

func (s *Server) runsCancel(ctx context.Context, args json.RawMessage) *Envelope {
	var a runRef
	if env := decodeBuiltinArgs(args, &a); env != nil {
		return env
	}
	rec, err := s.runs.Cancel(ctx, callerOf(ctx), a.RunID)
	if err != nil {
		return s.runError(err, a.RunID)
	}
	var note string
	switch {
	case rec.State == runs.StateCancelled:
		note = "cancelled; " + rec.Operation + " stopped"
		if op, ok := s.lookup(rec.Operation); ok && op.Kind.IsWrite() {
			note += "; a write may have partly taken effect, so check the state with a read"
		}
	case rec.State.Finished():
		note = fmt.Sprintf("the run had already ended (%s); nothing was cancelled", rec.State)
	default:
		note = "cancellation requested, but " + rec.Operation + " has not stopped yet; runs.await shows when it does"
	}
	return s.runStatus(rec, note)
}

func (s *Server) runsList(ctx context.Context, args json.RawMessage) *Envelope {
	var a listArgs
	if env := decodeBuiltinArgs(args, &a); env != nil {
		return env
	}
	var states []runs.State
	if a.State != "" {
		st, err := runs.ParseState(a.State)
		if err != nil {
			return failure(CodeInvalidParams, err.Error(), nil, &Remedy{Tool: ToolDescribe, Action: "runs.list", Fix: "use one of the states the schema lists"})
		}
		states = []runs.State{st}
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	recs, err := s.runs.List(ctx, callerOf(ctx), states, limit)
	if err != nil {
		return s.runError(err, "")
	}
	views := make([]runView, len(recs))
	var steps []Step
	for i, rec := range recs {
		views[i] = viewOf(rec, "")
		if len(steps) == 0 && !rec.State.Finished() {
			steps = append(steps, Step{Tool: ToolAsk, Action: "runs.await", Params: map[string]any{"run_id": rec.ID}, Why: "wait for the newest unfinished run"})
		}
	}
	env := success(map[string]any{"count": len(views), "runs": views}, steps...)
	if !env.OK {
		return env
	}
	// Like any result, the list obeys the result budget.
	op, _ := s.builtins.get("runs.list")
	data, cut, tooLarge := s.budget(op, env.Data)
	if tooLarge != nil {
		return tooLarge
	}
	env.Data = data
	if cut != nil {
		env.meta().Truncated = true
		env.Warnings = append(env.Warnings, fmt.Sprintf("%d of %d runs listed to fit %d tokens; filter by state or lower limit", cut.kept, cut.total, s.opts.MaxResultTokens))
	}
	return env
}

type progressKey struct{}

// WithProgress returns a context under which an ask or act call, and
// runs.await, hand the progress of the operation they wait for to notify,
// as it is reported, for as long as they wait and never after they
// answered. notify must not block (drop what cannot be sent at once). A
// transport sets it for a request that asked for progress (MCP: a
// progressToken). A server that waits until done (WaitUntilDone) reports
// no progress.
func WithProgress(ctx context.Context, notify func(runs.Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, notify)
}

func progressOf(ctx context.Context) func(runs.Progress) {
	fn, _ := ctx.Value(progressKey{}).(func(runs.Progress))
	return fn
}

// withMCPProgress forwards progress as MCP notifications/progress to the
// client of a request that sent a progressToken. Notifications the
// session cannot take (closed, or its queue full) are dropped: progress is
// advisory, and the run keeps the latest.
func withMCPProgress(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || meta.ProgressToken == nil {
		return ctx
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return ctx
	}
	token := meta.ProgressToken
	return WithProgress(ctx, func(p runs.Progress) {
		params := map[string]any{"progressToken": token, "progress": p.Done}
		if p.Total > 0 {
			params["total"] = p.Total
		}
		if p.Message != "" {
			params["message"] = p.Message
		}
		_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
	})
}
