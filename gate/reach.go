package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/buger/jsonparser"

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

func pathReport(ctx context.Context, pf *pathFinder, listing int, encoding string, paths []pathCost) (*PathReport, error) {
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
	var picked []int
	for i := range paths {
		if pick[i] {
			picked = append(picked, i)
		}
	}
	// Each count is a describe, a find and two tokenizations: spread them
	// over the cores, each result in its own slot.
	all := make([]counted, len(picked))
	errs := make([]error, len(picked))
	if err := forEach(ctx, len(picked), func(k int) {
		op := paths[picked[k]].op
		n, err := pf.tokens(ctx, op, encoding)
		all[k], errs[k] = counted{op.ID, n}, err
	}); err != nil {
		return nil, fmt.Errorf("path sizes: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
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

// pathFinder answers the two calls on the path to an operation: describe
// with its id, and find with its summary, as an agent would look for it.
// Find's answer depends on nothing but the intent's text, and catalogs
// repeat summaries (generated and versioned APIs widely: "List invoices"
// in every service), so each distinct summary is searched once and its
// answer shared; at 100,000 generated operations that is a fifth of the
// searches. It is safe for concurrent use.
type pathFinder struct {
	srv     *intent.Server
	mu      sync.Mutex
	answers map[string]*findAnswer
}

// findAnswer is the size of find's answer to one summary, computed once.
// Only the size is kept (the few paths counted exactly ask again): at
// 100,000 operations the answers would hold 27 MB.
type findAnswer struct {
	once  sync.Once
	bytes int
}

func newPathFinder(srv *intent.Server) *pathFinder {
	return &pathFinder{srv: srv, answers: map[string]*findAnswer{}}
}

// find returns the JSON of find's answer to op's summary.
func (p *pathFinder) find(ctx context.Context, op *operations.Operation) []byte {
	q, _ := json.Marshal(map[string]string{"intent": op.Summary})
	return p.srv.Call(ctx, intent.ToolFind, q).JSON()
}

// findBytes returns the size of find's answer to op's summary, searching
// each distinct summary once.
func (p *pathFinder) findBytes(ctx context.Context, op *operations.Operation) int {
	p.mu.Lock()
	a := p.answers[op.Summary]
	if a == nil {
		a = &findAnswer{}
		p.answers[op.Summary] = a
	}
	p.mu.Unlock()
	a.once.Do(func() { a.bytes = len(p.find(ctx, op)) })
	return a.bytes
}

// describe returns describe's answer for op's id.
func (p *pathFinder) describe(ctx context.Context, op *operations.Operation) *intent.Envelope {
	return p.srv.Do(ctx, intent.ToolDescribe, intent.Input{Action: op.ID})
}

func (p *pathFinder) tokens(ctx context.Context, op *operations.Operation, encoding string) (int, error) {
	n, err := count(string(p.describe(ctx, op).JSON()) + string(p.find(ctx, op)))
	if err != nil {
		return 0, err
	}
	return n.In(encoding), nil
}

// reachability checks every visible operation of srv and returns how many
// were checked, those that failed (sorted by id then check), and each
// operation's path size in bytes.
func reachability(ctx context.Context, srv *intent.Server, pf *pathFinder) (checked int, bad []Unreachable, paths []pathCost, err error) {
	var ops []*operations.Operation
	for _, op := range srv.Registry().All() {
		if srv.Visible(op) {
			ops = append(ops, op)
		}
	}
	// Each operation's checks are independent: run them on every core,
	// each result in the operation's own slot, so the answer does not
	// depend on the order the workers finish in. They are handed out in
	// probeOrder, so that operations sharing an input schema are probed
	// one after the other.
	type result struct {
		fails []Unreachable
		size  int
	}
	results := make([]result, len(ops))
	order := probeOrder(ops)
	if err := forEach(ctx, len(ops), func(k int) {
		i := order[k]
		fails, size := reachOne(ctx, srv, pf, ops[i])
		results[i] = result{fails, size}
	}); err != nil {
		return 0, nil, nil, fmt.Errorf("reachability: %w", err)
	}
	for i, res := range results {
		bad = append(bad, res.fails...)
		if res.size > 0 {
			paths = append(paths, pathCost{ops[i], res.size})
		}
	}
	slices.SortFunc(bad, func(a, b Unreachable) int {
		if a.ID != b.ID {
			return compare(a.ID, b.ID)
		}
		return compare(a.Check, b.Check)
	})
	return len(ops), bad, paths, nil
}

// probeOrder returns the indexes of ops sorted by input schema, then id.
// The probes validate params against each operation's schema, and a
// registry that keeps only its recently used compiled schemas (as the gate
// command's does, see operations.Registry.LimitCompiledSchemas) then
// compiles each distinct schema once, where in id order it compiled many
// of them again: at 100,000 generated operations, 60,379 compilations in
// the probes instead of 91,734.
func probeOrder(ops []*operations.Operation) []int {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := bytes.Compare(ops[a].Input, ops[b].Input); c != 0 {
			return c
		}
		return compare(ops[a].ID, ops[b].ID)
	})
	return order
}

// forEach calls fn(i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns when all calls have returned. It stops handing out indexes
// once ctx is done and then returns ctx's error; fn must be safe for
// concurrent use and write only to its own index's results.
func forEach(ctx context.Context, n int, fn func(i int)) error {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
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

// findFirst is find's params for the reachability check: the first
// candidate only.
var findFirst = json.RawMessage(`{"limit":1}`)

// reachOne runs describe, find and ask or act (under intent.WithProbe) for
// op, and returns each check op fails and the size of op's path.
func reachOne(ctx context.Context, srv *intent.Server, pf *pathFinder, op *operations.Operation) ([]Unreachable, int) {
	var bad []Unreachable
	fail := func(check, reason string) { bad = append(bad, Unreachable{ID: op.ID, Check: check, Reason: reason}) }

	env := pf.describe(ctx, op)
	size := 0
	if env.OK {
		size = len(env.JSON()) + pf.findBytes(ctx, op)
	}
	// The answers are read for the fields the checks need, after one
	// validity scan, rather than decoded: at 100,000 operations decoding
	// them was a twentieth of the run's allocations.
	switch {
	case !env.OK:
		fail(CheckDescribe, envelopeReason(env))
	case !json.Valid(env.Data):
		fail(CheckDescribe, "returned a descriptor that is not valid JSON")
	default:
		id, _ := jsonparser.GetString(env.Data, "id")
		_, typ, _, err := jsonparser.Get(env.Data, "input")
		switch {
		case id != op.ID:
			fail(CheckDescribe, fmt.Sprintf("returned a descriptor for %q", id))
		case err != nil || typ != jsonparser.Object:
			fail(CheckDescribe, "returned no input schema")
		}
	}

	env = srv.Do(ctx, intent.ToolFind, intent.Input{Intent: op.ID, Params: findFirst})
	switch {
	case !env.OK:
		fail(CheckFind, envelopeReason(env))
	case !json.Valid(env.Data):
		fail(CheckFind, "answered with data that is not valid JSON")
	default:
		first, err := jsonparser.GetString(env.Data, "candidates", "[0]", "id")
		switch {
		case err != nil:
			fail(CheckFind, "no candidates for its exact id")
		case first != op.ID:
			fail(CheckFind, fmt.Sprintf("ranked %q first", first))
		}
	}

	verb := intent.ToolAsk
	if op.Kind.IsWrite() {
		verb = intent.ToolAct
	}
	if reason := resolves(ctx, srv, verb, op); reason != "" {
		fail(verb, reason)
	}
	return bad, size
}

// resolves calls verb with op's id under intent.WithProbe, with the params
// of op's first example (or none), and reports "" when the call reached op:
// it got as far as op's handler (which a probe does not run), its preview
// came back, or its input schema judged the params (listing what it found
// wrong with them). Anything else is the reason it did not.
func resolves(ctx context.Context, srv *intent.Server, verb string, op *operations.Operation) string {
	params := json.RawMessage(`{}`)
	if len(op.Examples) > 0 && op.Examples[0].Params != nil {
		if b, err := json.Marshal(op.Examples[0].Params); err == nil {
			params = b
		}
	}
	env := srv.Do(intent.WithProbe(ctx), verb, intent.Input{Action: op.ID, Params: params})
	if env.OK {
		if id, ok := intent.Probed(env); ok && id == op.ID {
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
		// Reached only if op's schema judged the params: its problems are
		// listed. A schema that does not compile (registered deferred)
		// answers invalid_params too, with none, and no params can call op.
		details, _ := env.Details.(map[string]any)
		if _, judged := details["problems"]; judged && env.Remedy != nil && env.Remedy.Action == op.ID {
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
