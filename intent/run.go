package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

type callerKey struct{}

// WithCaller returns a context that names the principal making calls (an
// API key's name, a session). plan_refs are bound to it, so one caller
// cannot confirm another's preview.
func WithCaller(ctx context.Context, caller string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

func callerOf(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(string); ok {
		return c
	}
	return "local"
}

func (s *Server) needsConfirmation(op *operations.Operation) bool {
	return op.Kind == operations.KindDestructive || (op.Kind == operations.KindWrite && s.opts.Writes == WritesConfirm)
}

func (s *Server) ask(ctx context.Context, in Input) *Envelope {
	if in.PlanRef != "" {
		return planRefMisplaced(ToolAsk)
	}
	if in.Action != "" {
		op, ok := s.lookup(in.Action)
		if !ok {
			return s.unknownAction(in.Action, ToolAsk)
		}
		if op.Kind.IsWrite() {
			return failure(CodeNotReadOnly, fmt.Sprintf("%s is a %s operation; ask runs only reads", op.ID, op.Kind), nil,
				&Remedy{Tool: ToolAct, Action: op.ID, Fix: "call act with the same action and params"})
		}
		return s.execute(ctx, op, in.argsJSON())
	}
	if in.Intent == "" {
		return failure(CodeInvalidParams, "ask needs an action (an operation id) or an intent", nil,
			&Remedy{Tool: ToolFind, Fix: "find the operation id by intent, then ask {\"action\": id, \"params\": {...}}"})
	}
	idx := s.index()
	res := idx.router().Search(in.Intent, idx.readsFilter(), defaultFindLimit)
	if h := res.Hidden; h != nil && h.Kind.IsWrite() && s.visible(h) {
		// The reads were searched, but the whole catalog's answer is a
		// write the agent may call: say so rather than offer the reads
		// as if one of them were meant.
		return failure(CodeNotReadOnly, fmt.Sprintf("that intent fits %s best, a %s operation; ask runs only reads", h.ID, h.Kind),
			map[string]any{"candidates": s.candidateViews(res.Candidates)},
			&Remedy{Tool: ToolAct, Action: h.ID, Fix: "call act with this action (describe it for its params); or, if a read was meant, ask again with one of the candidates as action"})
	}
	op, env := s.routed(res, ToolAsk, in)
	if env != nil {
		return env
	}
	out := s.executeValid(ctx, op, in.argsJSON())
	s.routingMeta(out, res, op)
	return out
}

// writesRefused reports whether the write policy refuses what res asks
// for: a write verb, or a write that the whole catalog ranks first
// (res.Hidden), on a read-only server that hides some write.
func (s *Server) writesRefused(res router.Result) bool {
	asksWrite := res.Verb.IsWrite() || res.Hidden != nil && res.Hidden.Kind.IsWrite()
	return s.opts.Writes == WritesDeny && asksWrite && s.index().writesHidden > 0
}

// routed turns a search into the one operation to use, or the failure that
// explains why there is none (no_match, ambiguous_intent, or params that do
// not fit the confident match). The operation it returns has validated
// in's params.
func (s *Server) routed(res router.Result, tool string, in Input) (*operations.Operation, *Envelope) {
	// res.Verb is what the intent asks for; a question about state ("is
	// issue 5 open?") asks to read, whatever verbs it holds. A write verb
	// is refused when the policy hides writes it could ask for; over a
	// catalog of reads only ("generate a preview" over a read named
	// generate_preview), the reads answer it.
	if res.Decision != router.DecisionRun && s.writesRefused(res) {
		// The closest reads go along: if a read was meant after all,
		// the agent can ask again with one of them as action.
		var details any
		if len(res.Candidates) > 0 {
			details = map[string]any{"candidates": s.candidateViews(res.Candidates)}
		}
		if res.Verb == operations.KindRead {
			// "list all crawlers" where every call is a POST
			// (AWSGlue.GetCrawlers): the request reads; what serves it
			// is a write by its kind. Saying it asks for a change would
			// have the agent tell its user the wrong thing.
			return nil, failure(CodeWritesDisabled, "that intent reads, but the operation that serves it best is a write by its kind (a call sent as POST, even one named for reading), and this server is read-only", details,
				&Remedy{Tool: ToolAsk, Fix: "tell the user the operator can let that call run as a read (an overlay rule with kind: read for it) or enable writes (intentsrv serve --writes confirm); if a listed read was meant, ask with it as action"})
		}
		return nil, failure(CodeWritesDisabled, "that intent asks to change state, and this server is read-only", details, readOnlyRemedy())
	}
	if len(res.Candidates) == 0 {
		env := failure(CodeNoMatch, "no operation matches that intent", map[string]any{"candidates": []candidateView{}},
			&Remedy{Tool: ToolDescribe, Fix: "browse namespaces with describe {}, or rephrase the intent"})
		return nil, env
	}
	if res.Decision == router.DecisionNoMatch {
		// Nothing to run, but the closest candidates are shown: one of
		// them may be what was meant.
		top := res.Candidates[0].Op
		return nil, failure(CodeNoMatch, "no operation clearly serves that intent; the closest candidates are listed, best first",
			map[string]any{"candidates": s.candidateViews(res.Candidates), "confidence": confidenceLow},
			&Remedy{Tool: ToolDescribe, Action: top.ID, Fix: "check whether a candidate does what was asked (describe it), then call again with its id as action; or rephrase the intent"})
	}
	top := res.Candidates[0].Op
	var topErr error // why in's params do not fit top, when the router runs it
	if res.Decision == router.DecisionRun {
		topErr = s.validate(top.ID, in.argsJSON())
	}
	if len(in.Params) > 0 && (res.Decision != router.DecisionRun || topErr != nil) {
		// The params the agent sent narrow the choice: when exactly one
		// candidate accepts them, that is the operation meant. They
		// outweigh the intent's words when the leader, however sure
		// the router is of it, refuses them: a provider's id and a
		// card's id are for a gift card's read, not for the provider's,
		// which takes no card id.
		var fits []router.Candidate
		for _, c := range res.Candidates {
			if len(s.info(c.Op).required) > 0 && s.validate(c.Op.ID, in.argsJSON()) == nil {
				fits = append(fits, c)
			}
		}
		if len(fits) == 1 {
			return fits[0].Op, nil
		}
		if len(fits) > 1 && topErr != nil {
			// The card's read and the list of its transactions both
			// take those ids: the agent picks among what they fit,
			// not the leader, which they do not.
			return nil, failure(CodeAmbiguousIntent, fmt.Sprintf("the params do not fit %s, which the intent names best; several other candidates take them; pick one", top.ID),
				map[string]any{"candidates": s.candidateViews(fits)},
				&Remedy{Tool: tool, Action: fits[0].Op.ID, Fix: "call again with action set to the candidate meant"})
		}
	}
	if res.Decision != router.DecisionRun && len(res.Candidates) == 1 {
		// One candidate, not sure enough to run on the intent alone
		// (a catalog where the rest are hidden, say): "several" would
		// send the agent looking for others.
		return nil, failure(CodeAmbiguousIntent, fmt.Sprintf("%s may serve that intent, but not surely enough to run it on the intent alone; check it does what was asked", top.ID),
			map[string]any{"candidates": s.candidateViews(res.Candidates)},
			&Remedy{Tool: tool, Action: top.ID, Fix: "call again with action set to it if it is the one meant (describe it for its params); or rephrase the intent"})
	}
	if res.Decision != router.DecisionRun {
		return nil, failure(CodeAmbiguousIntent, "several operations could serve that intent; pick one",
			map[string]any{"candidates": s.candidateViews(res.Candidates)},
			&Remedy{Tool: tool, Action: top.ID, Fix: "call again with action set to the right candidate's id"})
	}
	if topErr != nil {
		env := s.invalidParams(top, topErr)
		env.Error = fmt.Sprintf("the intent resolves to %s, but params do not fit it: %s", top.ID, env.Error)
		s.routingMeta(env, res, top)
		return nil, env
	}
	return top, nil
}

// routingMeta records on env that the intent was routed to op, one of
// res's candidates (not always the first: the params may have picked
// another), with its score and confidence, and the other candidates as
// alternatives.
func (s *Server) routingMeta(env *Envelope, res router.Result, op *operations.Operation) {
	if len(res.Candidates) == 0 {
		return
	}
	m := env.meta()
	m.RoutedTo = op.ID
	for _, c := range res.Candidates {
		if c.Op == op {
			m.Score = round2(c.Score)
			m.Confidence = round2(c.Confidence)
			continue
		}
		m.Alternatives = append(m.Alternatives, c.Op.ID)
	}
}

func (s *Server) act(ctx context.Context, in Input) *Envelope {
	if in.Action == "" && in.Intent == "" {
		return failure(CodeInvalidParams, "act needs an action (an operation id) or an intent", nil,
			&Remedy{Tool: ToolFind, Fix: "find the operation id by intent, then act {\"action\": id, \"params\": {...}}"})
	}
	if in.Action == "" {
		if in.PlanRef != "" {
			return failure(CodeInvalidParams, "a plan_ref must come with the action and params it was issued for", nil,
				&Remedy{Tool: ToolAct, Fix: "repeat the preview's action and params together with plan_ref"})
		}
		// act with only an intent never executes: it resolves the plan.
		idx := s.index()
		res := idx.router().Search(in.Intent, idx.visibleFilter(), defaultFindLimit)
		op, env := s.routed(res, ToolAct, in)
		if env != nil {
			return env
		}
		out := s.preview(ctx, op, in.argsJSON(), "the intent resolved to this plan; nothing ran")
		s.routingMeta(out, res, op)
		return out
	}
	op, ok := s.lookup(in.Action)
	if !ok {
		return s.unknownAction(in.Action, ToolAct)
	}
	args := in.argsJSON()
	if err := s.validate(op.ID, args); err != nil {
		return s.invalidParams(op, err)
	}
	if in.PlanRef == "" && s.needsConfirmation(op) {
		// A preview runs nothing, so it neither uses nor checks an
		// idempotency key; the confirming call does.
		return s.preview(ctx, op, args, "nothing ran yet")
	}
	if in.PlanRef != "" {
		switch err := s.plans.verify(in.PlanRef, op.ID, args, callerOf(ctx)); {
		case errors.Is(err, errPlanExpired):
			return failure(CodePlanExpired, "plan_ref has expired; nothing ran", nil,
				&Remedy{Tool: ToolAct, Action: op.ID, Fix: "call act again without plan_ref for a fresh preview"})
		case err != nil:
			return failure(CodePlanInvalid, err.Error()+"; nothing ran", nil,
				&Remedy{Tool: ToolAct, Action: op.ID, Fix: "call act without plan_ref for a fresh preview, then confirm with the plan_ref it returns and the same params"})
		}
	}
	if probing(ctx) {
		// The gate's probe stops where the call would run: a plan_ref is
		// verified, never consumed.
		return probeAnswer(op.ID)
	}
	run := func() (*Envelope, bool) {
		if in.PlanRef != "" {
			if err := s.plans.consume(ctx, in.PlanRef); err != nil {
				if errors.Is(err, ErrPlanUsed) {
					return failure(CodePlanInvalid, err.Error()+"; it ran once and will not run again", nil,
						&Remedy{Tool: ToolAct, Action: op.ID, Fix: "to run it again, ask for a fresh preview"}), false
				}
				return s.storeFailure(op.ID, err), false
			}
		}
		return s.executeValid(ctx, op, args), true
	}
	key, bad := idempotencyKeyOf(ctx, in)
	if bad != nil {
		return bad
	}
	if key != "" {
		return s.idempotent(ctx, key, op.ID, args, run)
	}
	env, _ := run()
	return env
}

// preview describes a call without running it and issues the plan_ref that
// confirms it, as a confirmation_required failure: nothing has happened yet,
// and hosts that show isError make that plain.
func (s *Server) preview(ctx context.Context, op *operations.Operation, args json.RawMessage, note string) *Envelope {
	var would any = map[string]any{"action": op.ID, "params": json.RawMessage(args)}
	if op.Preview != nil {
		v, err := s.guard(ctx, func(ctx context.Context) (any, error) { return op.Preview(ctx, args) })
		if err != nil {
			return s.operationFailure(op, err)
		}
		would = v
	}
	ref, expiry, err := s.plans.issue(op.ID, args, callerOf(ctx))
	if err != nil {
		return failure(CodeInternalError, "could not issue a plan_ref: "+err.Error(), nil, nil)
	}
	details := map[string]any{
		"kind":       string(op.Kind),
		"preview":    would,
		"plan_ref":   ref,
		"expires_at": expiry.UTC().Format(time.RFC3339),
	}
	return failure(CodeConfirmationRequired, fmt.Sprintf("%s is %s and needs confirmation; %s", op.ID, kindPhrase(op.Kind), note), details,
		&Remedy{Tool: ToolAct, Action: op.ID, Fix: "check the preview, then call act again with the same action and params plus plan_ref from details"})
}

func kindPhrase(k operations.Kind) string {
	if k == operations.KindDestructive {
		return "destructive"
	}
	return "a write"
}

func (s *Server) invalidParams(op *operations.Operation, err error) *Envelope {
	details := map[string]any{"required": orEmpty(s.info(op).required)}
	var ve *operations.ValidationError
	if errors.As(err, &ve) {
		details["problems"] = ve.Problems
	}
	return failure(CodeInvalidParams, err.Error(), details,
		&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "read the input schema and send params that fit it"})
}

// guard runs fn with the call timeout, turning a panic or an overrun into an
// error instead of taking the server down. A handler that ignores its
// context keeps running in the background after a timeout; its result is
// dropped.
func (s *Server) guard(ctx context.Context, fn func(context.Context) (any, error)) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	return s.guardWithin(ctx, fn)
}

// guardWithin is guard for a ctx that already carries the call's deadline:
// one timer per call, not one per layer.
func (s *Server) guardWithin(ctx context.Context, fn func(context.Context) (any, error)) (any, error) {
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	s.workers.run(func() {
		v, err := recovered(ctx, fn)
		done <- result{v, err}
	})
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return nil, doneError(ctx)
	}
}

// recovered calls fn, turning a panic into a *panicError.
func recovered(ctx context.Context, fn func(context.Context) (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, &panicError{value: r}
		}
	}()
	return fn(ctx)
}

// doneError is why a call whose ctx ended has no result: errTimeout past
// its deadline, else the cancellation.
func doneError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errTimeout
	}
	return ctx.Err()
}

type panicError struct{ value any }

func (p *panicError) Error() string { return fmt.Sprintf("operation panicked: %v", p.value) }

var errTimeout = errors.New("operation timed out")

// execute validates args and runs op (see executeValid).
func (s *Server) execute(ctx context.Context, op *operations.Operation, args json.RawMessage) *Envelope {
	if err := s.validate(op.ID, args); err != nil {
		return s.invalidParams(op, err)
	}
	return s.executeValid(ctx, op, args)
}

// executeValid runs op with args already validated against its input
// schema (routed and act validate before they pick or confirm; a second
// validation would only repeat the first): a built-in runs.* operation at
// once, any other as a run that answers within the call's wait or hands
// back a run handle (runs.go). Under the gate's probe it stops where the
// operation would run.
func (s *Server) executeValid(ctx context.Context, op *operations.Operation, args json.RawMessage) *Envelope {
	if probing(ctx) {
		return probeAnswer(op.ID)
	}
	if h := s.builtins.handler(op); h != nil {
		return h(s, ctx, args)
	}
	return s.runOrWait(ctx, op, args)
}

// complete runs op under guard, checks and budgets its result, all within
// the call's timeout: a result still being cut when the time is up is a
// timeout, not a late success.
func (s *Server) complete(ctx context.Context, op *operations.Operation, args json.RawMessage) *Envelope {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	v, err := s.guardWithin(ctx, func(ctx context.Context) (any, error) { return op.Handler(ctx, args) })
	return s.result(ctx, op, args, v, err)
}

// result is the envelope of op's handler having returned v and err: a
// coded failure, or the checked and budgeted result with its next steps.
// ctx carries the call's deadline, which bounds the budget's work.
func (s *Server) result(ctx context.Context, op *operations.Operation, args json.RawMessage, v any, err error) *Envelope {
	if err != nil {
		if ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
			err = doneError(ctx) // the handler gave up because the call's time did
		}
		return s.operationFailure(op, err)
	}
	raw, _ := v.(json.RawMessage)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	if !json.Valid(raw) {
		s.log.Error("operation returned invalid JSON", "operation", op.ID, "bytes", len(raw))
		return failure(CodeInternalError, op.ID+" returned a result that is not JSON", nil,
			&Remedy{Tool: ToolDescribe, Fix: "the operation is broken; try another one or report it"})
	}
	data, cut, env := s.budget(ctx, op, raw)
	if env != nil {
		return env
	}
	out := &Envelope{OK: true, Data: data}
	if len(data) == len(raw) && &data[0] == &raw[0] {
		out.setData(raw) // validated above; a cut is checked when encoded
	}
	if op.Deprecated {
		out.Warnings = append(out.Warnings, op.ID+" is deprecated")
	}
	paging := s.info(op).paging
	switch {
	case cut != nil:
		out.meta().Truncated = true
		of := ""
		if cut.path != "" {
			of = fmt.Sprintf(" of %q", cut.path)
		}
		warning := fmt.Sprintf("result cut from %d to %d items%s to fit %d tokens", cut.total, cut.kept, of, s.opts.MaxResultTokens)
		if cut.droppedCursor {
			warning += "; its cursor was dropped because it would skip the cut items"
		}
		out.Warnings = append(out.Warnings, warning)
		step := Step{Tool: s.verbFor(op), Action: op.ID, Why: "the result was cut; " + s.pagingHint(op) + " to get it in parts"}
		if containsString(paging, "limit") {
			limit := max(cut.kept, 1)
			if m := s.info(op).limitMax; m > 0 {
				limit = min(limit, m)
			}
			step.Params = withParam(args, "limit", limit)
			step.Why = "repeat with this limit to get a page that fits"
			if hasCursor(paging) {
				step.Why += ", then page on from the cursor it returns"
			}
		}
		out.NextSteps = append(out.NextSteps, step)
	case containsString(paging, "cursor"):
		if next := nextCursor(data); next != "" {
			out.NextSteps = append(out.NextSteps, Step{Tool: s.verbFor(op), Action: op.ID, Params: withParam(args, "cursor", next), Why: "next page"})
		}
	}
	if op.Kind.IsWrite() {
		if step, ok := s.readBack(op, data); ok {
			out.NextSteps = append(out.NextSteps, step)
		}
	}
	return out
}

// withParam returns args as a map with key set to v: a next step repeats
// the caller's filters, not just the cursor.
func withParam(args json.RawMessage, key string, v any) map[string]any {
	m := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	_ = d.Decode(&m)
	m[key] = v
	return m
}

// readBack suggests reading what a write returned: the namespace's "get"
// operation when it takes exactly one required parameter and the result
// carries an id.
func (s *Server) readBack(op *operations.Operation, data json.RawMessage) (Step, bool) {
	get, ok := s.lookup(op.Namespace + ".get")
	if !ok || get.ID == op.ID {
		return Step{}, false
	}
	req := s.info(get).required
	if len(req) != 1 || len(data) == 0 || data[0] != '{' {
		return Step{}, false
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(data, &res) != nil {
		return Step{}, false
	}
	id, ok := res["id"]
	if !ok {
		id, ok = res[req[0]]
	}
	if !ok {
		return Step{}, false
	}
	return Step{Tool: s.verbFor(get), Action: get.ID, Params: map[string]any{req[0]: id}, Why: "read it back"}, true
}

// hasCursor reports whether paging includes a cursor-like parameter.
func hasCursor(paging []string) bool {
	for _, p := range paging {
		switch p {
		case "cursor", "page_token", "pagetoken", "starting_after", "after", "before", "page", "offset":
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func nextCursor(data json.RawMessage) string {
	if len(data) == 0 || data[0] != '{' {
		return ""
	}
	var v struct {
		Next string `json:"next_cursor"`
	}
	_ = json.Unmarshal(data, &v)
	return v.Next
}

// operationFailure maps what a handler returned to a coded envelope.
func (s *Server) operationFailure(op *operations.Operation, err error) *Envelope {
	var oe *operations.Error
	var ve *operations.ValidationError
	var pe *panicError
	switch {
	case errors.As(err, &ve):
		return s.invalidParams(op, err)
	case errors.As(err, &pe):
		s.log.Error("operation panicked", "operation", op.ID, "panic", fmt.Sprint(pe.value))
		return failure(CodeInternalError, op.ID+" failed with an internal error; nothing is known about its effects", nil,
			&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "check the state with a read operation before retrying"})
	case errors.Is(err, errTimeout):
		if op.Kind.IsWrite() && !op.Idempotent {
			return failure(CodeTimeout, fmt.Sprintf("%s did not finish within %s; it may still have taken effect", op.ID, s.opts.Timeout), nil,
				&Remedy{Tool: ToolAsk, Fix: "check the current state with a read operation before retrying, or the write may happen twice"})
		}
		return failure(CodeTimeout, fmt.Sprintf("%s did not finish within %s", op.ID, s.opts.Timeout), nil,
			&Remedy{Tool: s.verbFor(op), Action: op.ID, Fix: "narrow the request (filters, smaller limit) or retry later"})
	case errors.Is(err, context.Canceled):
		// No code of the contract fits a cancelled call; timeout is the
		// nearest, and the message says what happened. Runs outlive their
		// callers, so this is runs.cancel, a server shutting down, or a
		// call that blocks until done (Options.Wait < 0) abandoned by
		// its client.
		return failure(CodeTimeout, "the call was cancelled before it finished (runs.cancel, the server shutting down, or its client going away)", nil,
			&Remedy{Tool: s.verbFor(op), Action: op.ID, Fix: "retry if the answer is still wanted; a write may or may not have taken effect"})
	case errors.As(err, &oe):
		code := Code(oe.Code)
		if !knownCode(code) {
			code = CodeUpstreamError
		}
		fix := oe.Fix
		if fix == "" {
			fix = "check the params against describe and retry"
		}
		tool := ToolDescribe
		if code == CodeRateLimited || code == CodeUpstreamUnavailable || code == CodeTimeout {
			tool = s.verbFor(op)
		}
		return failure(code, oe.Message, oe.Details, &Remedy{Tool: tool, Action: op.ID, Fix: fix})
	}
	return failure(CodeUpstreamError, op.ID+" failed: "+err.Error(), nil,
		&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "check the params against the schema and retry"})
}

func knownCode(c Code) bool {
	switch c {
	case CodeUnknownAction, CodeInvalidParams, CodeAmbiguousIntent, CodeNoMatch, CodeNotReadOnly, CodeWritesDisabled,
		CodeConfirmationRequired, CodePlanInvalid, CodePlanExpired, CodeUpstreamError, CodeUpstreamUnavailable,
		CodeTimeout, CodeResultTooLarge, CodeRateLimited, CodeUnauthorized, CodeInternalError, CodeNotFound, CodeConflict,
		CodeLockDrift:
		return true
	}
	return false
}

// pagingHint names op's paging parameters for a next step.
func (s *Server) pagingHint(op *operations.Operation) string {
	p := s.info(op).paging
	if len(p) == 0 {
		return "narrow the request with the operation's filters"
	}
	return "page with " + strings.Join(p, ", ")
}
