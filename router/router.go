package router

import (
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/internal/vecfile"
	"github.com/intentsrv/intentsrv/operations"
)

// Filter narrows a search.
type Filter struct {
	// Namespace keeps operations whose namespace equals it or starts with
	// it followed by a dot. Empty keeps every namespace.
	Namespace string
	// Kinds keeps operations of these kinds. Empty keeps every kind.
	Kinds []operations.Kind
	// Keep is an extra predicate (policy: allow/deny globs, writes). Nil
	// keeps every operation.
	Keep func(*operations.Operation) bool
	// Only keeps the operations a mask holds (Router.Mask): a predicate
	// that applies to every search, such as a server's policy, evaluated
	// once per operation instead of once per candidate of each search.
	// Nil keeps every operation.
	Only *Mask
}

// A Mask is a predicate over operations with its answers for one
// router's operations computed once (Router.Mask). Searches of that router
// test a bit; any other router calls the predicate.
type Mask struct {
	r    *Router
	keep func(*operations.Operation) bool
	bits []uint64
	// out is the complement, the operations m leaves out: decide searches
	// them apart when it must know whether one outscores the rest
	// (hiddenOutscores).
	out *Mask
}

// Mask returns keep as a mask for r's searches (Filter.Only).
func (r *Router) Mask(keep func(*operations.Operation) bool) *Mask {
	return r.maskOf(keep, func(d int) bool { return keep(r.ops[d]) })
}

// maskOf is Mask with keep's answer for r's operation d given by has,
// which may read what r already knows of it.
func (r *Router) maskOf(keep func(*operations.Operation) bool, has func(d int) bool) *Mask {
	m := &Mask{r: r, keep: keep, bits: make([]uint64, (len(r.ops)+63)/64)}
	for d := range r.ops {
		if has(d) {
			m.bits[d>>6] |= 1 << (d & 63)
		}
	}
	m.out = &Mask{r: r, keep: func(op *operations.Operation) bool { return !keep(op) }, bits: make([]uint64, len(m.bits))}
	for i, w := range m.bits {
		m.out.bits[i] = ^w
	}
	if tail := len(r.ops) % 64; tail != 0 {
		m.out.bits[len(m.bits)-1] &= 1<<tail - 1
	}
	return m
}

// Options configure an index.
type Options struct {
	// Synonyms are extra domain synonyms, merged over the built-in ones
	// (overlays extend them per catalog). Keys and values may be phrases;
	// every pair is used in both directions.
	Synonyms map[string][]string

	// Ablate switches parts of the method off by name (see Ablations), to
	// measure what each is worth. Unknown names are ignored; check them
	// with CheckAblations.
	Ablate []string

	// ablation switches, for the evaluation of the method itself.
	noStem, noSynonyms, noFuzzy, flatWeights, noVerbs, noBigrams, noReturns, noExampleValues, noResultFields bool
	noClauses, noNames, noFeedback, noSemantic, noRerank                                                     bool
	noPathRanker                                                                                             bool
	// noNameScope: an operation without an HTTP path takes its scope from
	// its verb alone, as before round 53 (nameScope).
	noNameScope bool
	// noFormatSuffixes: a format at the end of an HTTP path (".json",
	// "/json") is read as a word of its last segment, as before round 57
	// (resourcePath).
	noFormatSuffixes bool
	// noRunGate: a run needs neither the re-ranker's probability nor the
	// nearer margin of the two passes (decide.go).
	noRunGate bool
	tune      *tuning
	// vectors replaces the embedded word vectors (CollectPools' routers).
	vectors *vecfile.Vectors
}

// Candidate is one ranked operation.
type Candidate struct {
	Op         *operations.Operation
	Score      float64  // fused score, higher is better
	Confidence float64  // calibrated 0..1
	Matched    []string // query terms (as the user wrote them) that matched
	Fields     []string // fields they matched in: "id", "summary", "description", "tags", "params", "path", ...
}

// Decision says what a caller that must act on one answer should do.
type Decision string

const (
	// DecisionRun: the top candidate is confident and clearly ahead.
	DecisionRun Decision = "run"
	// DecisionChoose: relevant candidates, but not sure enough to run.
	DecisionChoose Decision = "choose"
	// DecisionNoMatch: nothing relevant; say so, never a forced guess.
	DecisionNoMatch Decision = "no_match"
)

// Result of a search.
type Result struct {
	Candidates []Candidate // best first, at most limit
	Decision   Decision
	Exact      bool // the query was an operation id or alias (it wins, Decision run)
	// Verb is the kind of operation the query's action verb implies:
	// KindWrite for create, add, update, close, send, ...; KindDestructive
	// for delete, remove, kill, ...; KindRead for show, list, get, find,
	// ...; "" when the query has no recognisable verb (or is an exact id).
	// A caller can tell a write intent that met a read-only filter.
	Verb operations.Kind
	// Hidden is an operation the search's filter hid that the request
	// asks for: the whole catalog's leader when it would not run the
	// filtered one (a write, for a read-only search); a write named for a
	// verb the lexicon does not know that outscores what the filter
	// keeps ("pay an invoice": POST /invoices/{id}/pay); a write named
	// for reading that serves a read better (POST .../{id}:getIamPolicy);
	// or the hidden write that leads when what the filter keeps meets the
	// request weakly or not at all. Nil otherwise. It may name an
	// operation the caller's policy hides: say what it is, not its id.
	Hidden *operations.Operation
}

// Router is an immutable search index over a fixed set of operations. It is
// safe for concurrent use by multiple goroutines after New returns.
type Router struct {
	ops   []*operations.Operation
	exact map[string]int32 // id or alias → doc
	// exactLen is the length of exact's longest key: a longer query
	// (most requests in prose) is no id or alias (lookupExact).
	exactLen int

	idx   *index
	syn   synonymTable
	opts  Options
	verbs []verbClass // per doc
	// readCallMask holds the operations that are writes by their kind but
	// named for reading (POST /ListImports); nil when there is none. See
	// hiddenRead.
	readCallMask *Mask
	// changes[d] is the change operation d makes, for the words of a
	// request that name a past change (group.event; events.go).
	changes []change
	tu      tuning
	sem     *semantic // nil when switched off
	weights *model    // the re-ranker's; nil when switched off
	// pathWeights order pools of operations with HTTP paths (see
	// ranker_paths.json); nil when switched off.
	pathWeights *model
	// How the catalog names the caller (see findCaller).
	callerPhrase bool
	callerTerm   uint32
	// caps holds the words the catalog writes in capitals ("CSR",
	// "QoS"): the acronyms a request may spell out.
	caps capitalSet
	// methodTerms are the terms of the HTTP methods that do what each
	// verb class asks (classMethods), those the catalog has.
	methodTerms [verbRun + 1][]uint32
	paths       pathIndex // the HTTP paths' segments: the address stage's, the caller's paths, and which path extends which (under)
	// heads: some operation is an HTTP HEAD (methodsFirst reads the
	// pool for one only then).
	heads bool

	pool sync.Pool // *scratch
	// probes holds the scratches of hiddenOutscores apart from pool's, so
	// that neither kind swaps its premask's marks at every search;
	// readProbes those of hiddenRead, whose mask is readCallMask.
	probes, readProbes sync.Pool // *scratch

	namesOnce sync.Once
	names     []idName // ids and aliases, for Suggest

	resultsOnce sync.Once
	results     resultIndex // what operations return, the last resort (results.go)
}

// New builds a router over ops. The operations must not be modified
// afterwards. Operations are ranked in the given order when their scores tie.
func New(ops []*operations.Operation, opts Options) *Router {
	r := &Router{
		ops:   make([]*operations.Operation, 0, len(ops)),
		exact: make(map[string]int32, len(ops)),
	}
	tu := opts.tuning()
	opts.ablate(&tu)
	opts.tune = &tu // the index reads the ablated tuning too
	r.opts = opts
	for _, op := range ops {
		if op == nil {
			continue
		}
		if _, dup := r.exact[op.ID]; dup {
			continue
		}
		r.exact[op.ID] = int32(len(r.ops))
		r.ops = append(r.ops, op)
		r.heads = r.heads || op.HTTP != nil && strings.EqualFold(op.HTTP.Method, "HEAD")
	}
	for i, op := range r.ops {
		for _, a := range op.Aliases {
			a = strings.TrimSpace(a)
			if _, taken := r.exact[a]; !taken && a != "" {
				r.exact[a] = int32(i)
			}
			if la := strings.ToLower(a); la != a {
				if _, taken := r.exact[la]; !taken {
					r.exact[la] = int32(i)
				}
			}
		}
	}
	for k := range r.exact {
		r.exactLen = max(r.exactLen, len(k))
	}
	if opts.noSynonyms {
		r.syn = synonymTable{entries: map[string][]string{}}
	} else {
		r.syn = buildSynonyms(opts.Synonyms)
	}
	r.verbs = make([]verbClass, len(r.ops))
	classify := verbClassifier{reversals: tu.reversals, calls: tu.rpcCalls, subCollections: tu.subCollections, fittedNames: tu.fittedNames, formats: !opts.noFormatSuffixes}
	for i, op := range r.ops {
		r.verbs[i] = classify.of(op)
	}
	if tu.addresses || tu.callerPaths || tu.objectHead {
		r.paths = buildPathIndex(r.ops)
	}
	r.idx = buildIndex(r.ops, r.verbs, r.paths, opts)
	r.tu = tu
	r.changes = make([]change, len(r.ops))
	for i, op := range r.ops {
		r.changes[i] = r.changeOf(op, r.verbs[i])
	}
	r.findCaller()
	r.findMethods()
	if tu.acronyms {
		r.caps = catalogCapitals(r.ops, r.idx)
	}
	if !opts.noSemantic {
		r.sem = newSemantic(r.idx, opts.vectors)
	}
	if !opts.noRerank {
		if m, err := loadWeights(); err == nil {
			r.weights = m
			if p, err := loadPathWeights(); err == nil && !opts.noPathRanker && p.w[featLogScore] > 0 {
				r.pathWeights = p
			}
		}
	}
	n, nns, vocab := len(r.ops), r.idx.nsUnits, len(r.idx.post.start)-1
	r.pool.New = func() any { return newScratch(n, nns, vocab) }
	r.probes.New = r.pool.New
	r.readProbes.New = r.pool.New
	readCall := func(d int) bool { return r.ops[d].Kind.IsWrite() && r.verbs[d].reads() }
	for d := range r.ops {
		if readCall(d) {
			// Another router's searches ask the predicate; this one's
			// read the bits, from the verbs classified above.
			r.readCallMask = r.maskOf(func(op *operations.Operation) bool { return op.Kind.IsWrite() && classify.of(op).reads() }, readCall)
			break
		}
	}
	return r
}

// Len returns the number of operations in the index.
func (r *Router) Len() int { return len(r.ops) }

// hides reports whether f removes operations for a reason other than
// the namespace the caller asked for: a kind or a predicate.
func (f *Filter) hides() bool { return len(f.Kinds) > 0 || f.Keep != nil || f.Only != nil }

// keepsAll reports whether f passes every operation, so that a loop over
// many candidates can skip calling allowed on each.
func (f *Filter) keepsAll() bool {
	return f.Namespace == "" && len(f.Kinds) == 0 && f.Keep == nil && f.Only == nil
}

// has reports whether m holds its router's operation d.
func (m *Mask) has(d uint32) bool { return m.bits[d>>6]&(1<<(d&63)) != 0 }

// markOut sets mask[d] to v for each operation d that m leaves out.
func (m *Mask) markOut(mask []uint64, v uint64) {
	for i, w := range m.bits {
		out := ^w
		if rest := len(mask) - i*64; rest < 64 {
			out &= 1<<rest - 1
		}
		for ; out != 0; out &= out - 1 {
			mask[i*64+bits.TrailingZeros64(out)] = v
		}
	}
}

// allowed reports whether r's operation d passes f. A mask of r's is
// answered by its bit, its predicate never called.
func (r *Router) allowed(f *Filter, d uint32) bool {
	only := f.Only
	if only != nil && only.r == r {
		if !only.has(d) {
			return false
		}
		only = nil
	}
	if f.Namespace == "" && len(f.Kinds) == 0 && f.Keep == nil && only == nil {
		return true
	}
	return f.passes(r.ops[d], only)
}

// complement keeps the operations of f's namespace that f does not.
func (f *Filter) complement() Filter {
	if f.Only != nil && len(f.Kinds) == 0 && f.Keep == nil {
		return Filter{Namespace: f.Namespace, Only: f.Only.out}
	}
	rest := *f
	rest.Namespace = ""
	return Filter{Namespace: f.Namespace, Keep: func(op *operations.Operation) bool { return !rest.allowed(op) }}
}

// allowed reports whether op passes f.
func (f *Filter) allowed(op *operations.Operation) bool { return f.passes(op, f.Only) }

// passes reports whether op passes f, with only in place of f.Only.
func (f *Filter) passes(op *operations.Operation, only *Mask) bool {
	if only != nil && !only.keep(op) {
		return false
	}
	if f.Namespace != "" {
		ns := op.Namespace
		if ns == "" {
			ns = operations.DefaultNamespace(op.ID)
		}
		if ns != f.Namespace && !(strings.HasPrefix(ns, f.Namespace) && len(ns) > len(f.Namespace) && ns[len(f.Namespace)] == '.') {
			return false
		}
	}
	if len(f.Kinds) > 0 {
		k := op.Kind
		if k == "" {
			k = operations.KindRead
		}
		ok := false
		for _, want := range f.Kinds {
			if want == k {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return f.Keep == nil || f.Keep(op)
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lookupExact resolves an id or alias, trying the trimmed query as written
// and lower-cased.
func (r *Router) lookupExact(q string) (int32, bool) {
	q = strings.TrimSpace(q)
	if q == "" || len(q) > r.exactLen && isASCII(q) {
		// Lower-casing keeps the length of ASCII text (not of all
		// text: "K", the Kelvin sign, is three bytes, "k" one), so an
		// ASCII query longer than every key matches none, as written
		// or lower-cased: no need to hash it twice and lower-case it.
		return 0, false
	}
	if d, ok := r.exact[q]; ok {
		return d, true
	}
	if l := strings.ToLower(q); l != q {
		if d, ok := r.exact[l]; ok {
			return d, true
		}
	}
	return 0, false
}
