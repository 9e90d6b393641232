package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// Reachability check names, as they appear in Unreachable.Check.
const (
	CheckDescribe = "describe"
	CheckFind     = "find"
	CheckAsk      = "ask"
	CheckAct      = "act"
)

// Unreachable is one operation that an intent tool failed to reach.
type Unreachable struct {
	// ID is the operation id.
	ID string `json:"id"`
	// Check is the tool that failed: describe, find, ask or act.
	Check string `json:"check"`
	// Reason says what the tool answered instead.
	Reason string `json:"reason"`
}

// PathReport is what reaching an operation costs an agent: the listing, one
// find (for the operation's summary) and one describe, in the enforced
// encoding.
type PathReport struct {
	// WorstTokens is the costliest path, to WorstID.
	WorstTokens int    `json:"worst_tokens"`
	WorstID     string `json:"worst_id"`
	// MedianTokens is the median path; over large catalogs it is the
	// median of an evenly spaced sample (Sampled operations).
	MedianTokens int `json:"median_tokens"`
	Sampled      int `json:"sampled"`
}

// pathCost is one operation's find + describe size.
type pathCost struct {
	op    *operations.Operation
	bytes int
}

// Path measurement counts tokens exactly for the pathExact largest paths by
// bytes (the worst is among them: token counts follow byte counts closely
// for JSON) and for at most pathSample evenly spaced others, for the
// median. Tokenizing every path of a 10,000-operation catalog in two
// encodings would dominate the gate's time.
const (
	pathExact  = 32
	pathSample = 400
)

func pathReport(ctx context.Context, srv *intent.Server, listing int, encoding string, paths []pathCost) (*PathReport, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	slices.SortFunc(paths, func(a, b pathCost) int {
		if a.bytes != b.bytes {
			return a.bytes - b.bytes
		}
		return compare(a.op.ID, b.op.ID)
	})
	pick := map[int]bool{}
	for i := max(0, len(paths)-pathExact); i < len(paths); i++ {
		pick[i] = true
	}
	step := max(1, len(paths)/pathSample)
	for i := 0; i < len(paths); i += step {
		pick[i] = true
	}
	type counted struct {
		id     string
		tokens int
	}
	var all []counted
	for i := range paths {
		if !pick[i] {
			continue
		}
		n, err := pathTokens(ctx, srv, paths[i].op, encoding)
		if err != nil {
			return nil, err
		}
		all = append(all, counted{paths[i].op.ID, n})
	}
	worst := slices.MaxFunc(all, func(a, b counted) int {
		if a.tokens != b.tokens {
			return a.tokens - b.tokens
		}
		return compare(b.id, a.id)
	})
	tks := make([]int, len(all))
	for i, c := range all {
		tks[i] = c.tokens
	}
	slices.Sort(tks)
	return &PathReport{WorstTokens: listing + worst.tokens, WorstID: worst.id, MedianTokens: listing + tks[len(tks)/2], Sampled: len(all)}, nil
}

// pathEnvelopes are the describe and find answers on op's path.
func pathEnvelopes(ctx context.Context, srv *intent.Server, op *operations.Operation) (describe, find *intent.Envelope) {
	describe = srv.Do(ctx, intent.ToolDescribe, intent.Input{Action: op.ID})
	q, _ := json.Marshal(map[string]string{"intent": op.Summary})
	find = srv.Call(ctx, intent.ToolFind, q)
	return describe, find
}

func pathTokens(ctx context.Context, srv *intent.Server, op *operations.Operation, encoding string) (int, error) {
	d, f := pathEnvelopes(ctx, srv, op)
	n, err := count(string(d.JSON()) + string(f.JSON()))
	if err != nil {
		return 0, err
	}
	return n.In(encoding), nil
}

// reachability checks every visible operation of srv and returns how many
// were checked, those that failed (sorted by id then check), and each
// operation's path size in bytes.
func reachability(ctx context.Context, srv *intent.Server) (checked int, bad []Unreachable, paths []pathCost, err error) {
	var ops []*operations.Operation
	for _, op := range srv.Registry().All() {
		if srv.Visible(op) {
			ops = append(ops, op)
		}
	}
	shadow, err := shadowServer(srv)
	if err != nil {
		return 0, nil, nil, err
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan *operations.Operation)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for op := range next {
				fails, size := reachOne(ctx, srv, shadow, op)
				mu.Lock()
				bad = append(bad, fails...)
				if size > 0 {
					paths = append(paths, pathCost{op, size})
				}
				mu.Unlock()
			}
		})
	}
	for _, op := range ops {
		if ctx.Err() != nil {
			break
		}
		next <- op
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, nil, nil, fmt.Errorf("reachability: %w", err)
	}
	slices.SortFunc(bad, func(a, b Unreachable) int {
		if a.ID != b.ID {
			return compare(a.ID, b.ID)
		}
		return compare(a.Check, b.Check)
	})
	return len(ops), bad, paths, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// probeKey is the field a shadow handler answers with, naming its operation.
const probeKey = "intentsrv_gate_probe"

// shadowServer returns a server over copies of srv's operations, with the
// same options, whose handlers run nothing: each answers with its own id.
// Previews are kept, since they are side-effect free by contract.
func shadowServer(srv *intent.Server) (*intent.Server, error) {
	reg := operations.NewRegistry()
	all := srv.Registry().All()
	ops := make([]operations.Operation, len(all))
	for i, op := range all {
		cp := *op
		cp.Aliases = slices.Clone(op.Aliases)
		answer, _ := json.Marshal(map[string]string{probeKey: op.ID})
		cp.Handler = func(context.Context, json.RawMessage) (json.RawMessage, error) { return answer, nil }
		ops[i] = cp
	}
	// The schemas already registered once in srv's registry; compiling them
	// again up front would double the gate's time for nothing.
	if err := reg.RegisterAll(ops, operations.RegisterOptions{DeferCompile: true}); err != nil {
		return nil, fmt.Errorf("shadow registry: %w", err)
	}
	opts := srv.Options()
	opts.Logger = slog.New(slog.DiscardHandler)
	shadow, err := intent.New(reg, opts)
	if err != nil {
		return nil, fmt.Errorf("shadow server: %w", err)
	}
	return shadow, nil
}

// reachOne runs describe and find on the real server and ask or act on the
// shadow, and returns each check op fails.
func reachOne(ctx context.Context, srv, shadow *intent.Server, op *operations.Operation) ([]Unreachable, int) {
	var bad []Unreachable
	fail := func(check, reason string) { bad = append(bad, Unreachable{ID: op.ID, Check: check, Reason: reason}) }

	env, found := pathEnvelopes(ctx, srv, op)
	size := 0
	if env.OK {
		size = len(env.JSON()) + len(found.JSON())
	}
	var d struct {
		ID    string          `json:"id"`
		Input json.RawMessage `json:"input"`
	}
	switch {
	case !env.OK:
		fail(CheckDescribe, envelopeReason(env))
	case json.Unmarshal(env.Data, &d) != nil || d.ID != op.ID:
		fail(CheckDescribe, fmt.Sprintf("returned a descriptor for %q", d.ID))
	case len(d.Input) == 0 || !json.Valid(d.Input):
		fail(CheckDescribe, "returned no input schema")
	}

	env = srv.Do(ctx, intent.ToolFind, intent.Input{Intent: op.ID, Params: json.RawMessage(`{"limit":1}`)})
	var f struct {
		Candidates []struct {
			ID string `json:"id"`
		} `json:"candidates"`
	}
	switch {
	case !env.OK:
		fail(CheckFind, envelopeReason(env))
	case json.Unmarshal(env.Data, &f) != nil || len(f.Candidates) == 0:
		fail(CheckFind, "no candidates for its exact id")
	case f.Candidates[0].ID != op.ID:
		fail(CheckFind, fmt.Sprintf("ranked %q first", f.Candidates[0].ID))
	}

	verb := intent.ToolAsk
	if op.Kind.IsWrite() {
		verb = intent.ToolAct
	}
	if reason := resolves(ctx, shadow, verb, op); reason != "" {
		fail(verb, reason)
	}
	return bad, size
}

// resolves calls verb with op's id on the shadow server, with the params of
// op's first example (or none), and reports "" when the call reached op: its
// handler ran, its preview came back, or its input schema judged the
// params. Anything else is the reason it did not.
func resolves(ctx context.Context, shadow *intent.Server, verb string, op *operations.Operation) string {
	params := json.RawMessage(`{}`)
	if len(op.Examples) > 0 && op.Examples[0].Params != nil {
		if b, err := json.Marshal(op.Examples[0].Params); err == nil {
			params = b
		}
	}
	env := shadow.Do(ctx, verb, intent.Input{Action: op.ID, Params: params})
	if env.OK {
		var probe map[string]string
		if json.Unmarshal(env.Data, &probe) == nil && probe[probeKey] == op.ID {
			return ""
		}
		return fmt.Sprintf("ran something other than %s", op.ID)
	}
	switch env.Code {
	case intent.CodeConfirmationRequired:
		details, _ := env.Details.(map[string]any)
		if ref, _ := details["plan_ref"].(string); ref != "" && env.Remedy != nil && env.Remedy.Action == op.ID {
			return ""
		}
		return "previewed something other than " + op.ID
	case intent.CodeInvalidParams:
		if env.Remedy != nil && env.Remedy.Action == op.ID {
			return ""
		}
	}
	return envelopeReason(env)
}

func envelopeReason(env *intent.Envelope) string {
	if env.Code == "" {
		return env.Error
	}
	return string(env.Code) + ": " + env.Error
}
