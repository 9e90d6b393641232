package intent

// The built-in runs.* operations: their argument types, their own registry
// and router, and their handlers. See runs.go for the run path itself.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
	"github.com/intentsrv/intentsrv/runs"
)

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
	return s.index().router()
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
	data, cut, tooLarge := s.budget(ctx, op, env.Data)
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
