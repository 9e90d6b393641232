// Package intent implements the four-tool contract of intentsrv: find,
// describe, ask and act, each taking the condensed input {action, params,
// intent} and returning one envelope shape. It owns input decoding, the
// write policy, previews and plan_refs, error codes with remedies, result
// budgets and handler isolation (timeouts, panics). The MCP adapter in this
// package exposes a Server over mcp-go; the CLI calls Server directly, so a
// human sees exactly what an agent sees.
package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
	"github.com/intentsrv/intentsrv/runs"
)

// WritePolicy decides what act may run.
type WritePolicy string

const (
	// WritesDeny hides write and destructive operations: they are neither
	// listed by find/describe nor callable, and act is not listed. The
	// default.
	WritesDeny WritePolicy = "deny"
	// WritesConfirm lets act run writes, each only after a confirmed
	// preview.
	WritesConfirm WritePolicy = "confirm"
	// WritesAllow lets act run writes directly; destructive operations still
	// need a confirmed preview.
	WritesAllow WritePolicy = "allow"
)

// ParseWritePolicy parses "deny", "confirm" or "allow".
func ParseWritePolicy(s string) (WritePolicy, error) {
	switch p := WritePolicy(strings.ToLower(strings.TrimSpace(s))); p {
	case WritesDeny, WritesConfirm, WritesAllow:
		return p, nil
	}
	return "", fmt.Errorf("writes policy %q is not deny, confirm or allow", s)
}

// Tool names, before any prefix.
const (
	ToolFind     = "find"
	ToolDescribe = "describe"
	ToolAsk      = "ask"
	ToolAct      = "act"
)

// Defaults of Options.
const (
	DefaultMaxResultTokens = 8000
	DefaultTimeout         = 30 * time.Second
	DefaultPlanTTL         = 10 * time.Minute
	DefaultWait            = 20 * time.Second
)

// ElapsedShownFrom is the shortest call whose envelope states its time
// (meta.elapsed_ms). A faster call's time tells an agent nothing it can
// act on, yet the field cost every answer about 25 bytes twice over (text
// and structured content) and ten tokens of the agent's context.
const ElapsedShownFrom = 100 * time.Millisecond

// Options configure a Server. The zero value is the safe default: read-only,
// 8,000-token results, 30-second calls.
type Options struct {
	// Writes is the write policy; empty means WritesDeny.
	Writes WritePolicy
	// ToolPrefix is prepended to every tool name (e.g. "gh_"), so one host
	// can run several servers.
	ToolPrefix string
	// MaxResultTokens caps a result's size; larger results are cut at item
	// boundaries or refused. Zero means DefaultMaxResultTokens.
	MaxResultTokens int
	// Timeout bounds one operation call. Zero means DefaultTimeout.
	Timeout time.Duration
	// Allow and Deny are globs over operation ids (path.Match syntax, where
	// "*" stops at nothing since ids contain no slash). An operation is
	// visible when it matches some Allow glob (or Allow is empty) and no Deny
	// glob. Deny wins.
	Allow, Deny []string
	// PlanKey signs plan_refs. Replicas that share it accept each other's
	// plans. Empty means a random key per process; a key shorter than
	// MinPlanKeyBytes is refused by New.
	PlanKey []byte
	// PlanStore records executed plan_refs so each runs at most once. Nil
	// means a MemoryPlanStore (at most once per process).
	PlanStore PlanStore
	// PlanTTL is how long a preview's plan_ref stays valid. Zero means
	// DefaultPlanTTL.
	PlanTTL time.Duration
	// IdempotencyTTL is how long act keeps the outcome recorded under an
	// idempotency key (in PlanStore, which must implement
	// IdempotencyStore). Zero means DefaultIdempotencyTTL.
	IdempotencyTTL time.Duration
	// CatalogHint appends the operation count and namespaces to find's
	// description. It changes the listing when the catalog changes, which
	// defeats hosts' prompt caches, so it is off by default.
	CatalogHint bool
	// Synonyms extend the router's domain synonyms for this catalog.
	Synonyms map[string][]string
	// SourceHealth reports the state of sources that can be down (upstream
	// MCP servers); describe's overview lists it and warns about each source
	// that is starting or failed. Nil means every source is always up.
	SourceHealth func() []SourceHealth
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
	// Wait is how long ask and act wait for an operation before answering
	// with a run handle (a call may ask for another wait with params._wait,
	// up to MaxWait). Zero means DefaultWait; WaitUntilDone (negative)
	// means calls block until the operation ends, as a one-shot CLI needs.
	Wait time.Duration
	// Runs keeps the runs handed out as handles, answering runs.get,
	// runs.await, runs.cancel and runs.list. Nil means an in-memory
	// runs.Manager with the server's clock and logger.
	Runs *runs.Manager
}

// SourceHealth is one operation source's state in describe's overview.
type SourceHealth struct {
	// Source is the operations' source, e.g. "mcp:github".
	Source string `json:"source"`
	// State is ready, starting, failed, disabled or stopped.
	State string `json:"state"`
	// Operations is how many of its operations are registered now.
	Operations int `json:"operations"`
	// Error says why a failed source failed.
	Error string `json:"error,omitempty"`
}

// Server serves the four intent tools over one registry. It is safe for
// concurrent use. The router index is built from the registry by New, in
// the background: the listing and every call by operation id are served
// at once, and a call that needs the router (an intent, a did-you-mean)
// waits for the index. After the registry changes (an upstream's tools
// changed), Reindex rebuilds it the same way.
type Server struct {
	reg  *operations.Registry
	opts Options

	plans   *planSigner
	workers *handlerWorkers
	log     *slog.Logger
	infos   sync.Map // *operations.Operation -> *opInfo, derived once per operation

	// countTokens counts a text's o200k tokens for the result budget;
	// tests wrap it to measure how much text the budget tokenizes.
	countTokens func(text string) (int, error)

	// runs keeps handed-over runs; builtins holds the runs.* operations,
	// outside the caller's registry (see runsops.go).
	runs     *runs.Manager
	builtins *builtins

	// idx is the router and namespace index over the visible operations,
	// built at New and replaced whole by Reindex.
	idx       atomic.Pointer[catalogIndex]
	reindexMu sync.Mutex // one rebuild at a time, so the last change wins
}

// New builds a Server over reg. It validates the options and indexes every
// visible operation.
func New(reg *operations.Registry, opts Options) (*Server, error) {
	if opts.Writes == "" {
		opts.Writes = WritesDeny
	}
	if _, err := ParseWritePolicy(string(opts.Writes)); err != nil {
		return nil, err
	}
	if opts.MaxResultTokens <= 0 {
		opts.MaxResultTokens = DefaultMaxResultTokens
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.PlanTTL <= 0 {
		opts.PlanTTL = DefaultPlanTTL
	}
	if opts.IdempotencyTTL <= 0 {
		opts.IdempotencyTTL = DefaultIdempotencyTTL
	}
	if n := len(opts.PlanKey); n > 0 && n < MinPlanKeyBytes {
		return nil, fmt.Errorf("the plan key (INTENTSRV_PLAN_KEY) is %d bytes; it needs at least %d, e.g. the output of: openssl rand -base64 48", n, MinPlanKeyBytes)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	if opts.Runs == nil {
		opts.Runs = runs.NewManager(runs.Options{Now: opts.Now, Logger: opts.Logger})
	}
	for _, g := range append(append([]string{}, opts.Allow...), opts.Deny...) {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("bad allow/deny glob %q: %w", g, err)
		}
	}
	if err := checkToolPrefix(opts.ToolPrefix); err != nil {
		return nil, err
	}
	s := &Server{reg: reg, opts: opts, log: opts.Logger, countTokens: countO200K, runs: opts.Runs, builtins: newBuiltins(), workers: newHandlerWorkers()}
	if opts.Writes != WritesDeny && len(opts.PlanKey) == 0 {
		s.log.Warn("writes are enabled and plan_refs are signed with a random key: previews die with this process and replicas refuse each other's; set INTENTSRV_PLAN_KEY (at least 32 bytes) to keep them",
			"writes", opts.Writes)
	}
	s.plans = newPlanSigner(opts.PlanKey, opts.PlanTTL, opts.Now, opts.PlanStore)
	for _, op := range reg.All() {
		if isReservedID(op.ID) {
			return nil, reservedError(op)
		}
	}
	s.idx.Store(s.buildIndex())
	return s, nil
}

// Registry returns the registry the server serves.
func (s *Server) Registry() *operations.Registry { return s.reg }

// Router returns the server's router, waiting for its build to finish.
// Its index holds the visible operations and the writes that only the
// write policy hides (so that a search among reads can tell a request for
// a write): search it with Keep set to Visible to see what the server's
// tools see.
func (s *Server) Router() *router.Router { return s.index().router() }

// Len returns the number of visible operations without waiting for the
// index.
func (s *Server) Len() int { return s.index().visibleOps }

// Options returns the effective options (defaults filled in).
func (s *Server) Options() Options { return s.opts }

// visible reports whether op may be listed and called under the policies.
func (s *Server) visible(op *operations.Operation) bool {
	if op.Source == builtinSource && s.builtins.has(op) {
		return true // the runs.* operations answer under every policy
	}
	if op.Kind.IsWrite() && s.opts.Writes == WritesDeny {
		return false
	}
	return s.allowedID(op.ID)
}

func (s *Server) allowedID(id string) bool {
	for _, g := range s.opts.Deny {
		if ok, _ := path.Match(g, id); ok {
			return false
		}
	}
	if len(s.opts.Allow) == 0 {
		return true
	}
	for _, g := range s.opts.Allow {
		if ok, _ := path.Match(g, id); ok {
			return true
		}
	}
	return false
}

// lookup finds a visible operation by id or alias. Ids are lowercase;
// an id sent in another case is accepted, since its meaning is plain.
func (s *Server) lookup(id string) (*operations.Operation, bool) {
	if op, ok := s.builtins.get(id); ok {
		return op, true
	}
	op, ok := s.reg.Get(id)
	if !ok {
		op, ok = s.reg.Get(strings.ToLower(id))
	}
	if !ok || !s.visible(op) {
		return nil, false
	}
	return op, true
}

// verbFor names the tool that runs op under the current policy.
func (s *Server) verbFor(op *operations.Operation) string {
	if op.Kind.IsWrite() {
		return ToolAct
	}
	return ToolAsk
}

// Call runs one intent tool with raw JSON arguments, as an MCP host sends
// them. tool is the bare name (find, describe, ask, act), without prefix.
// It never panics and always returns an envelope.
func (s *Server) Call(ctx context.Context, tool string, raw []byte) *Envelope {
	in, err := DecodeInput(raw)
	if err != nil {
		remedy := &Remedy{Tool: tool, Fix: `send {"action": "<operation id>", "params": {...}} or {"intent": "<what you want>"}`}
		if fixed, action, ok := moveStrayFields(raw); ok {
			remedy = &Remedy{Tool: tool, Action: action, Fix: "put operation arguments inside params: " + fixed}
		}
		return s.finish(failure(CodeInvalidParams, "bad input: "+err.Error(), inputErrorDetails(err), remedy))
	}
	return s.Do(ctx, tool, in)
}

// Do runs one intent tool with decoded input. It never panics and always
// returns an envelope.
func (s *Server) Do(ctx context.Context, tool string, in Input) (env *Envelope) {
	start := s.opts.Now()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("intent tool panicked", "tool", tool, "panic", r)
			env = failure(CodeInternalError, "the server hit an internal error; the call did not complete", nil,
				&Remedy{Tool: ToolDescribe, Fix: "retry once; if it persists, report it with the action and params"})
		}
		if took := s.opts.Now().Sub(start); took >= ElapsedShownFrom {
			env.meta().ElapsedMS = float64(took.Microseconds()) / 1000
		}
		env = s.finish(env)
	}()
	if in.Action == "describe" && tool != ToolDescribe {
		return s.describeTool(tool)
	}
	if in.IdempotencyKey != "" && tool != ToolAct {
		return failure(CodeInvalidParams, "idempotency_key belongs to act; "+tool+" does not take it (it never changes state)", map[string]string{"field": "idempotency_key"},
			&Remedy{Tool: tool, Fix: "call again without idempotency_key"})
	}
	switch tool {
	case ToolFind:
		return s.find(ctx, in)
	case ToolDescribe:
		return s.describe(ctx, in)
	case ToolAsk, ToolAct:
		var bad *Envelope
		if in, ctx, bad = takeWait(ctx, tool, in); bad != nil {
			return bad
		}
	}
	switch tool {
	case ToolAsk:
		return s.ask(ctx, in)
	case ToolAct:
		if s.opts.Writes == WritesDeny {
			return failure(CodeWritesDisabled, "this server is read-only: act is disabled", nil, readOnlyRemedy())
		}
		return s.act(ctx, in)
	}
	return failure(CodeUnknownAction, fmt.Sprintf("no tool %q; the tools are find, describe, ask and act", tool), nil, nil)
}

// finish applies the tool prefix to every tool name the envelope mentions.
func (s *Server) finish(env *Envelope) *Envelope {
	if env.Meta != nil && env.Meta.empty() {
		env.Meta = nil
	}
	if s.opts.ToolPrefix == "" {
		return env
	}
	for i := range env.NextSteps {
		env.NextSteps[i].Tool = s.opts.ToolPrefix + env.NextSteps[i].Tool
	}
	if env.Remedy != nil {
		env.Remedy.Tool = s.opts.ToolPrefix + env.Remedy.Tool
	}
	return env
}

// readOnlyRemedy is the way forward when a write is refused by the deny
// policy: the agent cannot change the policy, so it should say so.
func readOnlyRemedy() *Remedy {
	return &Remedy{Tool: ToolAsk, Fix: "this server only runs reads: tell the user the change needs writes enabled by the operator (intentsrv serve --writes confirm); reads still work with ask"}
}

// moveStrayFields rewrites an input that put operation arguments at the top
// level into the corrected call, for the remedy. ok is false when raw is not
// such an input.
func moveStrayFields(raw []byte) (fixed, action string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "", "", false
	}
	params := map[string]json.RawMessage{}
	if p, has := m["params"]; has {
		if json.Unmarshal(p, &params) != nil {
			return "", "", false
		}
	}
	moved := false
	for k, v := range m {
		if !knownFields[k] {
			params[k] = v
			delete(m, k)
			moved = true
		}
	}
	if !moved {
		return "", "", false
	}
	p, _ := json.Marshal(params)
	m["params"] = p
	b, err := encodeJSON(m)
	if err != nil || len(b) > 600 {
		return "", "", false
	}
	_ = json.Unmarshal(m["action"], &action)
	return string(b), action, true
}

func inputErrorDetails(err error) any {
	if ie, ok := err.(*InputError); ok && ie.Field != "" {
		return map[string]string{"field": ie.Field}
	}
	return nil
}

// Visible reports whether op is listed and callable under the server's
// policies (write policy, allow/deny globs).
func (s *Server) Visible(op *operations.Operation) bool { return s.visible(op) }
