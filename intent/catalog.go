package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

// Limits of find and describe listings.
const (
	defaultFindLimit      = 5
	maxFindLimit          = 25
	defaultDescribeLimit  = 3
	defaultNamespaceLimit = 50
	maxNamespaceLimit     = 200
	summaryClip           = 120
)

// filters are the params find and describe accept.
type filters struct {
	Namespace string
	Kind      operations.Kind
	Limit     int
	Offset    int
}

// parseFilters reads find/describe params, refusing unknown keys so a typo
// is not silently ignored.
func parseFilters(in Input, allowed []string, defLimit, maxLimit int) (filters, *Envelope) {
	f := filters{Limit: defLimit}
	m, err := in.paramsMap()
	if err != nil {
		return f, failure(CodeInvalidParams, "params must be a JSON object", nil, nil)
	}
	bad := func(msg string) (filters, *Envelope) {
		return f, failure(CodeInvalidParams, msg, nil, &Remedy{Tool: ToolDescribe, Action: "describe",
			Fix: "filters are " + strings.Join(allowed, ", ")})
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, k := range slices.Sorted(maps.Keys(m)) { // the first error is the same every time
		v := m[k]
		if !ok[k] {
			return bad(fmt.Sprintf("unknown filter %q", k))
		}
		switch k {
		case "namespace":
			s, isStr := v.(string)
			if !isStr {
				return bad("namespace must be a string")
			}
			f.Namespace = strings.TrimSpace(s)
		case "kind":
			s, _ := v.(string)
			f.Kind = operations.Kind(s)
			if !f.Kind.Valid() {
				return bad(`kind must be "read", "write" or "destructive"`)
			}
		case "limit":
			n, isNum := v.(json.Number)
			i, err := n.Int64()
			if !isNum || err != nil || i < 1 {
				return bad("limit must be a positive integer")
			}
			f.Limit = min(int(i), maxLimit)
		case "cursor":
			s, _ := v.(string)
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 {
				return bad("cursor must be a next_cursor value from a previous page")
			}
			f.Offset = i
		}
	}
	return f, nil
}

// candidateView is one find result: enough to call the operation or describe
// it, nothing the agent already sent.
type candidateView struct {
	ID       string   `json:"id"`
	Summary  string   `json:"summary"`
	Kind     string   `json:"kind"`
	Tool     string   `json:"tool"`
	Required []string `json:"required,omitempty"`
	Score    float64  `json:"score"`
	// Matched and Fields explain the rank: the request's words the
	// operation matched, and up to maxExplainFields fields they matched in,
	// the most telling first ("id, summary, params").
	Matched []string `json:"matched,omitempty"`
	Fields  string   `json:"fields,omitempty"`
	// Deprecated: the API deprecates the operation. Where the current
	// operation that took its place is among the candidates, the router
	// ranks it first; this says why the deprecated one is behind it.
	Deprecated bool `json:"deprecated,omitempty"`
}

// maxExplainFields bounds the fields a find result names: each costs
// tokens on every candidate of every find.
const maxExplainFields = 3

// explainOrder ranks the fields a match can be in, most telling first.
var explainOrder = []string{"id", "summary", "aliases", "examples", "tags", "params", "path", "returns", "description", "namespace"}

// explainFields joins the most telling of fields, at most maxExplainFields.
func explainFields(fields []string) string {
	var out []string
	for _, f := range explainOrder {
		if len(out) == maxExplainFields {
			break
		}
		if slices.Contains(fields, f) {
			out = append(out, f)
		}
	}
	return strings.Join(out, ", ")
}

func (s *Server) candidateViews(cands []router.Candidate) []candidateView {
	out := make([]candidateView, len(cands))
	for i, c := range cands {
		out[i] = candidateView{
			ID:         c.Op.ID,
			Summary:    clip(c.Op.Summary, summaryClip),
			Kind:       string(c.Op.Kind),
			Tool:       s.opts.ToolPrefix + s.verbFor(c.Op),
			Required:   s.info(c.Op).required,
			Score:      round2(c.Score),
			Matched:    c.Matched,
			Fields:     explainFields(c.Fields),
			Deprecated: c.Op.Deprecated,
		}
	}
	return out
}

// policyFilter is the router's Keep predicate for the server's policies:
// s.visible, or nil when the policies hide nothing (writes not denied, no
// allow or deny globs). The index holds the writes a read-only policy
// hides (buildIndex), so every search of the catalog's router filters by
// it, as a mask (catalogIndex.policy); where it would say yes to every
// operation there is no mask, and no filter to apply.
func (s *Server) policyFilter() func(*operations.Operation) bool {
	if s.opts.Writes != WritesDeny && len(s.opts.Allow) == 0 && len(s.opts.Deny) == 0 {
		return nil
	}
	return s.visible
}

func (s *Server) filterFor(f filters, kinds ...operations.Kind) router.Filter {
	rf := s.index().visibleFilter()
	rf.Namespace, rf.Kinds = f.Namespace, kinds
	if f.Kind != "" {
		rf.Kinds = []operations.Kind{f.Kind}
	}
	return rf
}

func (s *Server) find(ctx context.Context, in Input) *Envelope {
	if in.PlanRef != "" {
		return planRefMisplaced(ToolFind)
	}
	f, bad := parseFilters(in, []string{"namespace", "kind", "limit"}, defaultFindLimit, maxFindLimit)
	if bad != nil {
		bad.Remedy.Tool = ToolFind
		return bad
	}
	query := in.Intent
	if query == "" {
		query = in.Action
	}
	if query == "" {
		env := s.overview(filters{})
		env.NextSteps = append([]Step{{Tool: ToolFind, Why: "search by intent, e.g. {\"intent\": \"list open tickets\"}"}}, env.NextSteps...)
		return env
	}
	if f.Namespace != "" && !s.namespaceExists(f.Namespace) {
		return s.unknownNamespace(f.Namespace)
	}
	res := s.routerFor(query, f.Namespace).Search(query, s.filterFor(f), f.Limit)
	if len(res.Candidates) == 0 {
		// No word of the intent, nor any word the router relates to one,
		// meets what this search keeps: the only case find answers with
		// nothing. When an operation the read-only policy or find's kind
		// filter hides meets it, that is what the agent is told.
		if s.writesRefused(res) {
			why := "only operations that change state serve that intent, and they are hidden; browse the namespaces for reads"
			if res.Verb == operations.KindRead {
				why = "only operations this server counts as writes serve that intent (calls sent as POST, even ones named for reading), and they are hidden; browse the namespaces for reads"
			}
			env := success(map[string]any{"candidates": []candidateView{}, "confidence": confidenceNone}, Step{Tool: ToolDescribe, Why: why})
			env.Warnings = []string{readOnlyWarningFor(res)}
			return env
		}
		if st, ok := s.filteredOut(res, f); ok {
			env := success(map[string]any{"candidates": []candidateView{}, "confidence": confidenceNone}, st)
			env.Warnings = []string{"no " + string(f.Kind) + " operation matches that intent"}
			return env
		}
		env := success(map[string]any{"candidates": []candidateView{}, "confidence": confidenceNone},
			Step{Tool: ToolDescribe, Why: "nothing here serves that intent; browse the namespaces"})
		env.Warnings = []string{"no operation matches that intent"}
		return env
	}
	label := confidenceLabel(res.Decision)
	data := map[string]any{"candidates": s.candidateViews(res.Candidates), "confidence": label}
	top := res.Candidates[0].Op
	var env *Envelope
	if label == confidenceLow {
		// The closest candidates are shown, never hidden: an agent told
		// "nothing" would tell its user the API cannot do it. The
		// namespaces they come from are the next place to look.
		steps := []Step{{Tool: ToolDescribe, Action: top.ID, Why: "check that the closest candidate does what was asked before using it"}}
		for _, ns := range candidateNamespaces(res.Candidates, 3) {
			steps = append(steps, Step{Tool: ToolDescribe, Params: map[string]any{"namespace": ns}, Why: "browse " + ns + ", where the closest candidates are"})
		}
		if st, ok := s.filteredOut(res, f); ok {
			steps = append([]Step{st}, steps...)
		}
		env = success(data, steps...)
		env.Warnings = append(env.Warnings, lowConfidenceWarning)
	} else {
		env = success(data, Step{Tool: ToolDescribe, Action: top.ID, Why: "get its input schema"},
			Step{Tool: s.verbFor(top), Action: top.ID, Why: "run it"})
	}
	if s.writesRefused(res) {
		env.Warnings = append(env.Warnings, readOnlyWarningFor(res))
	}
	m := env.meta()
	m.Score = round2(res.Candidates[0].Score)
	m.Confidence = round2(res.Candidates[0].Confidence)
	return env
}

// filteredOut returns the step to an operation that serves the intent
// better than every candidate but that find's kind filter left out (the
// router's Result.Hidden, which the policy lets the agent see): "pay an
// invoice" with kind read, where the payment is a write.
func (s *Server) filteredOut(res router.Result, f filters) (Step, bool) {
	h := res.Hidden
	if h == nil || f.Kind == "" || !s.visible(h) {
		return Step{}, false
	}
	return Step{Tool: ToolDescribe, Action: h.ID, Why: fmt.Sprintf("fits that intent better than these, but is a %s operation, which the kind filter left out", h.Kind)}, true
}

// Confidence labels of a find answer.
const (
	// confidenceHigh: the leader is confident and clearly ahead; an
	// intent-only ask would run it.
	confidenceHigh = "high"
	// confidenceMedium: relevant candidates; the agent picks one.
	confidenceMedium = "medium"
	// confidenceLow: only partial matches; they are the closest the
	// catalog has, and may not serve the intent.
	confidenceLow = "low"
	// confidenceNone: nothing in the catalog meets the intent.
	confidenceNone = "none"
)

// lowConfidenceWarning goes on a low-confidence find answer.
const lowConfidenceWarning = "no candidate clearly serves that intent: these are the closest matches, best first; check one's summary and schema before using it, or browse the namespaces named in next_steps"

// confidenceLabel is the label of a router decision.
func confidenceLabel(d router.Decision) string {
	switch d {
	case router.DecisionRun:
		return confidenceHigh
	case router.DecisionNoMatch:
		return confidenceLow
	}
	return confidenceMedium
}

// candidateNamespaces returns up to n distinct namespaces of cands, in
// rank order.
func candidateNamespaces(cands []router.Candidate, n int) []string {
	var out []string
	for _, c := range cands {
		ns := c.Op.Namespace
		if ns == "" {
			ns = operations.DefaultNamespace(c.Op.ID)
		}
		if ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// describe: overview, namespace page, one descriptor, or intent lookup.
func (s *Server) describe(ctx context.Context, in Input) *Envelope {
	if in.PlanRef != "" {
		return planRefMisplaced(ToolDescribe)
	}
	if in.Action == "describe" {
		return s.describeTool(ToolDescribe)
	}
	if in.Action != "" {
		op, ok := s.lookup(in.Action)
		if !ok {
			return s.unknownAction(in.Action, ToolDescribe)
		}
		if len(in.Params) > 0 {
			return s.describeDefs(op, in)
		}
		d := s.descriptor(op)
		steps := []Step{{Tool: s.verbFor(op), Action: op.ID, Why: "run it with params that fit the input schema"}}
		if len(d.Elided) > 0 {
			steps = append(steps, Step{Tool: ToolDescribe, Action: op.ID, Params: map[string]any{"defs": d.Elided[:min(len(d.Elided), 3)]},
				Why: "fetch definitions marked x-elided (names in elided_defs) when you need to fill them in"})
		}
		return success(d, steps...)
	}
	f, bad := parseFilters(in, []string{"namespace", "limit", "cursor"}, 0, maxNamespaceLimit)
	if bad != nil {
		return bad
	}
	if in.Intent != "" {
		limit := f.Limit
		if limit == 0 {
			limit = defaultDescribeLimit
		}
		res := s.index().router().Search(in.Intent, s.filterFor(f), min(limit, maxFindLimit))
		if len(res.Candidates) == 0 {
			return failure(CodeNoMatch, "no operation matches that intent", nil,
				&Remedy{Tool: ToolDescribe, Fix: "browse the namespaces with describe {} or rephrase"})
		}
		// The best match in full, the rest as one line each: the full
		// schemas of runners-up are rarely wanted and cost hundreds of tokens.
		top := res.Candidates[0].Op
		data := map[string]any{"match": s.descriptor(top), "confidence": confidenceLabel(res.Decision)}
		if len(res.Candidates) > 1 {
			data["others"] = s.candidateViews(res.Candidates[1:])
		}
		env := success(data, Step{Tool: s.verbFor(top), Action: top.ID, Why: "run the best match"})
		if res.Decision == router.DecisionNoMatch {
			env.Warnings = []string{lowConfidenceWarning}
		}
		return env
	}
	if f.Namespace != "" {
		if f.Limit == 0 {
			f.Limit = defaultNamespaceLimit
		}
		return s.namespacePage(f)
	}
	return s.overview(f)
}

// describeDefs answers describe {action, params: {defs: [...]}}: the named
// $defs of the operation's input schema, which a long descriptor elided.
func (s *Server) describeDefs(op *operations.Operation, in Input) *Envelope {
	var p struct {
		Defs []string `json:"defs"`
	}
	dec := json.NewDecoder(bytes.NewReader(in.Params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || len(p.Defs) == 0 {
		return failure(CodeInvalidParams, "describe with an action takes only params {\"defs\": [names]}, to fetch definitions its descriptor elided", nil,
			&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "call describe with just the action, then ask for names listed in elided_defs"})
	}
	info := s.info(op)
	out := map[string]json.RawMessage{}
	var unknown []string
	size := 0
	var queue []string
	for _, name := range p.Defs {
		d, ok := info.defs[name]
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		if _, dup := out[name]; !dup {
			out[name] = d
			size += len(d)
			queue = append(queue, name)
		}
	}
	if len(unknown) > 0 {
		return failure(CodeInvalidParams, fmt.Sprintf("no elided definition %s in %s", strings.Join(unknown, ", "), op.ID),
			map[string]any{"elided_defs": orEmpty(info.elided)},
			&Remedy{Tool: ToolDescribe, Action: op.ID, Fix: "ask for names listed in the descriptor's elided_defs"})
	}
	// Definitions the requested ones refer to come along while they fit the
	// descriptor budget; the rest are named, so every reference resolves
	// or can be fetched.
	var more []string
	seen := map[string]bool{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, ref := range defRefs(out[name]) {
			if _, have := out[ref]; have || seen[ref] {
				continue
			}
			seen[ref] = true
			d, ok := info.defs[ref]
			if !ok {
				continue
			}
			if size+len(d) <= descriptorBudgetBytes {
				out[ref] = d
				size += len(d)
				queue = append(queue, ref)
			} else {
				more = append(more, ref)
			}
		}
	}
	data := map[string]any{"id": op.ID, "defs": out}
	steps := []Step{{Tool: s.verbFor(op), Action: op.ID, Why: "run it"}}
	if len(more) > 0 {
		sort.Strings(more)
		data["elided_defs"] = more
		steps = append(steps, Step{Tool: ToolDescribe, Action: op.ID, Params: map[string]any{"defs": more[:min(len(more), 3)]},
			Why: "these definitions referred to above did not fit; fetch the ones you need (names in elided_defs)"})
	}
	return success(data, steps...)
}

// defRefs lists the local $defs names a schema refers to, in order of
// first appearance.
func defRefs(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
					if name, ok := strings.CutPrefix(ref, prefix); ok && !seen[name] {
						seen[name] = true
						out = append(out, name)
					}
				}
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// readOnlyWarning goes on find results for an intent that asks to change
// state on a read-only server: the candidates can only be reads.
const readOnlyWarning = "this server is read-only: operations that change state are hidden, so only reads are offered; if the user wants a change, tell them it needs writes enabled by the operator"

// hiddenReadsWarning replaces readOnlyWarning when the intent reads and
// what serves it best is a write by its kind: a call sent as POST, as
// AWS's GetCrawlers or Google's :getIamPolicy are. The user asked for no
// change; the operator can mark such calls as reads.
const hiddenReadsWarning = "this server is read-only: the operations that serve that intent best are writes by their kind (calls sent as POST, even ones named for reading), so they are hidden and only reads are offered; tell the user the operator can mark such a call as a read (an overlay rule with kind: read) or enable writes"

// readOnlyWarningFor is the warning a find answer on a read-only server
// carries for res: hiddenReadsWarning when the intent reads, else
// readOnlyWarning.
func readOnlyWarningFor(res router.Result) string {
	if res.Verb == operations.KindRead {
		return hiddenReadsWarning
	}
	return readOnlyWarning
}

func planRefMisplaced(tool string) *Envelope {
	return failure(CodeInvalidParams, "plan_ref belongs to act; "+tool+" does not take it", map[string]string{"field": "plan_ref"},
		&Remedy{Tool: ToolAct, Fix: "confirm previews with act, passing the same action and params plus plan_ref"})
}

// toolUsage is what action "describe" returns for each tool: the inputs it
// takes, in more words than the listing can afford, with an example.
var toolUsage = map[string]struct {
	params  string
	example string
}{
	ToolFind: {
		params:  "intent: what you want in plain words. params (filters, optional): namespace (e.g. from describe {}), kind (read|write|destructive), limit (1-25, default 5). With no intent: the catalog overview.",
		example: `{"intent": "list open tickets", "params": {"kind": "read"}}`,
	},
	ToolDescribe: {
		params:  "action: an operation id for its full input schema and result shape. Or params: namespace (with limit 1-200 and cursor from next_cursor) for that namespace's operations. Or intent: the best match with its schema. Nothing: the namespaces.",
		example: `{"action": "<operation id from find>"}`,
	},
	ToolAsk: {
		params:  "action: a read operation's id; params: its arguments, as its input schema says (describe shows it). Or intent alone (plus params): runs the best read operation when the match is certain, else returns candidates.",
		example: `{"action": "<operation id>", "params": {"<name>": "<value>"}}`,
	},
	ToolAct: {
		params:  "action: an operation id; params: its arguments. Destructive operations (and every write when the server confirms writes) first return code confirmation_required with a preview and details.plan_ref; call again with the same action and params plus plan_ref to execute, once. idempotency_key (optional, any string up to 256 bytes): the first call with it executes and its outcome is kept; a retry with the same key and call returns that outcome, with meta.replayed, instead of running again; the same key with another call is a conflict. Intent alone never executes: it returns the resolved plan.",
		example: `{"action": "<operation id>", "params": {...}, "plan_ref": "<from the preview>"}`,
	},
}

// describeTool answers action "describe" on any tool: how to use that tool.
func (s *Server) describeTool(tool string) *Envelope {
	for _, t := range s.Tools() {
		if t.Verb == tool {
			u := toolUsage[tool]
			return success(map[string]any{"tool": t.Name, "description": t.Description, "inputs": u.params, "example": u.example},
				Step{Tool: ToolDescribe, Why: "see the catalog's namespaces"})
		}
	}
	return failure(CodeUnknownAction, fmt.Sprintf("tool %q is not enabled", tool), nil, nil)
}

func (s *Server) overview(f filters) *Envelope {
	ns := s.index().namespaces
	total := 0
	for _, n := range ns {
		total += n.Count
	}
	limit := f.Limit
	if limit == 0 {
		limit = maxNamespaceLimit
	}
	page, next := paginate(ns, f.Offset, limit)
	data := map[string]any{"operations": total, "namespaces": page, "writes": string(s.opts.Writes)}
	if next != "" {
		data["next_cursor"] = next
	}
	steps := []Step{}
	if len(page) > 0 {
		steps = append(steps, Step{Tool: ToolDescribe, Params: map[string]any{"namespace": page[0].Name}, Why: "list a namespace's operations"})
	}
	var warnings []string
	if idx := s.index(); idx.writesHidden > 0 {
		// What the read-only policy hides is part of what this server
		// is: an agent that saw only the reads would tell its user the
		// API cannot do the rest.
		data["hidden_writes"] = idx.writesHidden
		if idx.writesHidden > idx.visibleOps {
			warnings = append(warnings, fmt.Sprintf("%d of this catalog's %d operations are hidden as writes, because this server is read-only; calls sent as POST count as writes even when named for reading (GetX, ListX); if the user needs such a read, tell them the operator can mark it a read (an overlay rule with kind: read) or enable writes", idx.writesHidden, idx.writesHidden+idx.visibleOps))
		}
	}
	if s.opts.SourceHealth != nil {
		if hs := s.opts.SourceHealth(); len(hs) > 0 {
			data["sources"] = hs
			for _, h := range hs {
				switch h.State {
				case "failed":
					warnings = append(warnings, fmt.Sprintf("source %s failed%s; its operations answer upstream_unavailable until it restarts on a later call", h.Source, errorSuffix(h.Error)))
				case "starting":
					warnings = append(warnings, fmt.Sprintf("source %s is still starting; calls to its operations wait for it", h.Source))
				case "drifted":
					warnings = append(warnings, fmt.Sprintf("%s: %d operations differ from the lock file%s", h.Source, h.Operations, errorSuffix(h.Error)))
				}
			}
		}
	}
	env := success(data, steps...)
	env.Warnings = append(env.Warnings, warnings...)
	return env
}

func errorSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " (" + clip(e, 200) + ")"
}

type opLine struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Kind    string `json:"kind"`
}

// namespaceExists reports whether ns is a visible namespace or a prefix of
// one ("helpdesk" for "helpdesk.tickets").
func (s *Server) namespaceExists(ns string) bool { return s.index().nsPrefixes[ns] }

func (s *Server) unknownNamespace(ns string) *Envelope {
	known := s.index().namespaces
	names := make([]string, len(known))
	for i, n := range known {
		names[i] = n.Name
	}
	sugg := closest(ns, names, 3)
	fix := "list namespaces with describe {}"
	if len(sugg) > 0 {
		fix = "did you mean " + strings.Join(sugg, ", ") + "?"
	}
	return failure(CodeInvalidParams, fmt.Sprintf("no namespace %q", ns), map[string]any{"did_you_mean": sugg},
		&Remedy{Tool: ToolDescribe, Fix: fix})
}

func (s *Server) namespacePage(f filters) *Envelope {
	if !s.namespaceExists(f.Namespace) {
		return s.unknownNamespace(f.Namespace)
	}
	var lines []opLine
	for _, op := range s.builtins.orAll(f.Namespace, s.reg) {
		if (op.Namespace == f.Namespace || strings.HasPrefix(op.Namespace, f.Namespace+".")) && s.visible(op) {
			lines = append(lines, opLine{ID: op.ID, Summary: clip(op.Summary, summaryClip), Kind: string(op.Kind)})
		}
	}
	page, next := paginate(lines, f.Offset, f.Limit)
	data := map[string]any{"namespace": f.Namespace, "count": len(lines), "operations": page}
	steps := []Step{}
	if next != "" {
		data["next_cursor"] = next
		steps = append(steps, Step{Tool: ToolDescribe, Params: map[string]any{"namespace": f.Namespace, "cursor": next}, Why: "next page"})
	}
	if len(page) > 0 {
		steps = append(steps, Step{Tool: ToolDescribe, Action: page[0].ID, Why: "get an operation's schema"})
	}
	return success(data, steps...)
}

func paginate[T any](items []T, offset, limit int) ([]T, string) {
	if offset >= len(items) {
		return []T{}, ""
	}
	end := min(offset+limit, len(items))
	next := ""
	if end < len(items) {
		next = strconv.Itoa(end)
	}
	return items[offset:end], next
}

// unknownAction is the failure for an id that names no visible operation,
// with did-you-mean suggestions from the router.
func (s *Server) unknownAction(id, tool string) *Envelope {
	idx := s.index()
	sugg := s.routerFor(id, "").Suggest(id, idx.visibleFilter(), 3)
	if len(sugg) == 0 {
		// An id that is not an id at all may be an intent typed into action.
		res := idx.router().Search(id, idx.visibleFilter(), 3)
		if res.Decision != router.DecisionNoMatch {
			for _, c := range res.Candidates {
				sugg = append(sugg, c.Op.ID)
			}
		}
	}
	fix := "search with find {\"intent\": \"...\"}"
	remedy := &Remedy{Tool: ToolFind, Fix: fix}
	if len(sugg) > 0 {
		remedy = &Remedy{Tool: tool, Action: sugg[0], Fix: "did you mean " + strings.Join(sugg, ", ") + "?"}
	}
	msg := fmt.Sprintf("no operation %q", id)
	if op, ok := s.reg.Get(id); ok && !s.visible(op) {
		if op.Kind.IsWrite() && s.opts.Writes == WritesDeny && s.allowedID(op.ID) {
			return failure(CodeWritesDisabled, fmt.Sprintf("%s changes state and this server is read-only", op.ID), nil, readOnlyRemedy())
		}
		// Hidden by allow/deny: answer as if it did not exist.
	}
	return failure(CodeUnknownAction, msg, map[string]any{"did_you_mean": orEmpty(sugg)}, remedy)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// closest ranks names by edit distance to q, for did-you-mean on namespaces.
func closest(q string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var ss []scored
	for _, name := range names {
		d := editDistance(q, name)
		if strings.Contains(name, q) || d <= max(2, len(q)/3) {
			ss = append(ss, scored{name, d})
		}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].d < ss[j].d })
	var out []string
	for i := 0; i < len(ss) && i < n; i++ {
		out = append(out, ss[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	return strings.TrimRight(string(r), " ,.;:") + "…"
}

// round2 rounds a score for display. Infinite scores (an exact id match)
// and NaN have no JSON encoding; they are reported as 100 and 0.
func round2(f float64) float64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f > 100:
		return 100
	case f < -100:
		return -100
	}
	return math.Round(f*100) / 100
}
