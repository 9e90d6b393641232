package router

import (
	"math"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// Query-side weights: how much a variant of a query word counts next to the
// word itself (weight 1).
const (
	// weightSynonym scales a domain synonym ("ticket" for "issue").
	weightSynonym = 0.8
	// weightVerb scales an operation verb reached through the verb lexicon
	// ("delete" for "kill").
	weightVerb = 0.7
	// weightCorrection scales a spelling correction ("tickte" → "ticket").
	weightCorrection = 0.7
	// weightAlphaPrefix scales the letters of a letter+digit word
	// ("covid" for "covid19").
	weightAlphaPrefix = 0.5
	// weightBigram scales a match of two adjacent query words adjacent in
	// a name-like field of the operation.
	weightBigram = 0.5
	// idWordsBoost multiplies the score of an operation by 1 + idWordsBoost
	// × the share of its id words (resource and name: "tickets", "list")
	// that the query says: "list all open tickets" is tickets.list.
	idWordsBoost = 0.5
	// weightStem scales a match on the stem only ("nursing" for "nurses").
	weightStem = 0.5
	// verbBoost multiplies the score of an operation whose own verb class
	// (list, create, delete, ...) is the one the query asks for.
	verbBoost = 0.10
	// verbGroupWeight scales the coverage weight of verb words: "show" or
	// "delete" alone says little about which operation is meant.
	verbGroupWeight = 0.35
	// weightNamespaceMatch adds this share of the namespace's own BM25F
	// score (all its operations as one document) to each of its
	// operations: a query about a service lifts the service's endpoints.
	weightNamespaceMatch = 0.2
	// resourceMismatch discounts a query word that names a resource of
	// the catalog ("tickets": the resource of tickets.list) on an
	// operation whose id and path name another resource: orgs.list, whose
	// summary mentions open tickets, is not about tickets.
	resourceMismatch = 0.3
	// weightCompound scales a match of two adjacent query words written
	// as one word in the catalog ("zip code" → zipcode, "whats app" →
	// whatsapp, "live score" → livescore).
	weightCompound = 0.5
	// minCompoundPart is the shortest query word that joins a compound:
	// shorter ones ("a", "of") glue into accidental words.
	minCompoundPart = 2
	// resourceMiss multiplies by 1 - resourceMiss the score of an
	// operation that agrees with none of the resources the query names.
	resourceMiss = 0.2
	// summaryBoost multiplies an operation's score by 1 + summaryBoost·c²,
	// where c is the share of its summary's content words the query says.
	// A short summary the query states in full ("Get a repository") is
	// the operation meant, over longer ones that merely contain the words.
	summaryBoost = 0.3
	// selfWeight scales the coverage of the "authenticated user" group a
	// first-person word ("my", "me", "I") adds: it names whose things,
	// rarely what.
	selfWeight = 0.5
	// itemBoost multiplies by 1 + itemBoost the score of an operation on
	// one item ("GET /issues/{issue_number}", tickets.get) of a resource the
	// query names with an identifier ("issue 1347", "commit 6dcb09b").
	itemBoost = 0.3
	// slugBoost multiplies by 1 + slugBoost (doubles) the score of an operation
	// whose HTTP path has two parameters in a row ("/{owner}/{repo}") when
	// the query gives a two-part name ("golang/go", "acme/web-app"): the
	// value fits that path and not a sibling's ("/gists/{gist_id}").
	slugBoost = 1.0
	// agentNounWeight scales a catalog's agent noun reached from a query
	// word ("contributed" → contributor; see addAgentNouns).
	agentNounWeight = 0.7
	// repeatWeight raises a word's weight by this share for each time the
	// query says it again (at most maxRepeats times): a long request that
	// says "order" three times is about orders.
	repeatWeight = 0.5
	maxRepeats   = 2
)

// variant is one term a query word is searched as.
type variant struct {
	t uint32
	w float32
}

// group is one query word (or phrase) with every term it is searched as.
// A document scores the best of a group's variants, not their sum, so that
// synonyms never double-count. A group is some hundred bytes: the loops
// over a query's groups that run per candidate take them by pointer
// (g := &groups[i]), not by value, which would copy each one.
type group struct {
	surface  string // as the user wrote it
	variants []variant
	cov      float32 // coverage weight (idf of the word, or maxIDF if unknown)
	verb     bool
	bigram   bool // a pair of adjacent words (its surface is the second)
	known    bool // some variant is in the vocabulary
	// res holds the first nres variants of the word that are some
	// operation's resource ("tickets"): an operation whose id and path
	// say none of them matches the word at a discount.
	res    [2]uint32
	nres   uint8
	resSig uint64 // termBit of each of res (see index.agrees)
	// repeats counts the later occurrences of the word in the query.
	repeats uint8
	// at is 1 + the word's place among the request's words (stop words
	// counted; at most 255), 0 for a group that is no word of the
	// request (a synonym phrase, learned neighbours, a word the request
	// implies). A compound's is its second word's.
	at uint8
	// item: an identifier follows the word ("issue 1347"): the request is
	// about one item of the resource the word names. many: the word is a
	// plural with no identifier after it, in a request to read ("open
	// tickets"): it is about the collection.
	item, many bool
	// learned: the group holds a word's learned neighbours (semantic.go).
	learned bool
	// method: the group holds the terms of the HTTP methods that do what
	// the request's verb asks (classMethods).
	method bool
	// unsaid: a verb the catalog does not say, nor any verb of its class.
	unsaid bool
	// value: a word the catalog does not say, standing where a name does
	// ("the acme organization", "user torvalds"; valuePlace).
	value bool
	// one: the word is singular with no identifier after it ("get the
	// invoice"): reading, changing or deleting it means one item;
	// creating it means adding to its collection.
	one bool
	// designated: the request designates one item of what the word
	// names, by an identifier after it ("issue 1347") or in words
	// ("a specific contact", "block by id"; designation).
	designated bool
	// action: no word before it was read as the request's verb, and it
	// stands where the verb would ("accept the quote", "can you resume
	// it"), though the lexicon does not know it as one.
	action bool
	// verbed: the action's word stands before a determiner, so it is a
	// verb whatever the lexicon says ("ping the server", "refund a
	// charge"; a plural of the catalog's there is its noun: "tickets the
	// customer opened").
	verbed bool
	// event: in a request to read, the word is a change that happened
	// ("who deleted ticket 12", "list closed issues"): it does not meet
	// the operations that make that change (events.go).
	event change
}

// addRes records t as a resource variant of g, when it is one.
func (g *group) addRes(ix *index, t uint32) {
	if ix.isResource(t) && int(g.nres) < len(g.res) && !slices.Contains(g.res[:g.nres], t) {
		g.res[g.nres] = t
		g.nres++
		g.resSig |= termBit(t)
	}
}

// scratch holds per-query buffers, reused through a sync.Pool.
type scratch struct {
	acc  []float32 // fused score per doc
	best []float32 // best variant of the current group per doc
	mask []uint64  // groups matched per doc
	// pre is the mask whose left-out operations mask marks as met by
	// every group (premask), nil when none is.
	pre      *Mask
	fields   []uint16 // fields the query's terms matched per doc, filled as needed (matchFields)
	touched  []uint32
	gtouched []uint32

	nsAcc, nsBest []float32 // the same, per namespace unit
	nsMask        []uint64
	nsTouched     []uint32

	groups []group
	// variants is the arena of the groups' variants (variantSpace).
	variants []variant
	words    []string
	corr     []uint32
	vbuf     []variant    // lookup's results while they are copied elsewhere
	kth      []float32    // min-heap for kthAllowed
	lead     []hit        // score's operations that lead by their words, boosted
	bounds   []groupBound // restrictable's per-group bounds
	qterms   termSet      // the query's terms (variants of weight ≥ 0.5), set by score; the re-ranker reads them
	qres     termSet      // the resources the query names
	// scopeRes: the resources the query names, per operation scope
	// (Router.scopeRes)
	scopeRes [3][]uint32
	heap     []hit
	names    []string // capitalised words inside sentences, lower-cased
	heads    []string // of them, those that end an article's phrase: kinds of things (headNouns)
	// titled: the request is written as a title ("Driving License"),
	// where capitals say nothing of names (titleCase).
	titled bool
	// method: the HTTP method the request names in capitals
	// (saidMethod), "" when it names none or the rule is off.
	method string
	// implied: the query's verb class was implied by its nouns, not said.
	implied bool
	// question: the request asks a question (asksToKnow, or it opens
	// with a wh-word: "what files are on ticket 19").
	question bool
	// changes: the word in the request's verb place is one the learned
	// table says changes state, of no class it knows ("Accept a
	// repository invitation"; learnedWrite). The ranking does not read
	// it; Result.Verb does.
	changes bool
	// hidden is the best score of an operation the filter rejected.
	hidden float32
	spans  [][2]int
	fused  []hit
	fb     []variant // feedback word candidates
	div    []hit     // diversified ranking
	items  []string  // words followed by an identifier (itemNouns)
	slug   bool      // the query gives an owner/name pair (hasSlug)
	// services the query names (see namedServices)
	services []int32
	divRest  []pick
	prune    pruning
	reranked []hit // the re-ranker's copy of the ranking
	// ranked holds a query's rankings until it is answered, so that
	// none is allocated: [0] score's (the first pass, on which decide
	// takes the decision), [1] feedback's, [2] fuseClauses'. Each must
	// outlive the stages after it, hence one array per stage.
	ranked [3][]hit
	// odds are what the re-ranker's probability that its first
	// candidate is the one meant is worked out from (leadOdds.prob).
	odds leadOdds
}

type hit struct {
	d uint32
	s float32
}

func newScratch(n, nns, vocab int) *scratch {
	return &scratch{
		qterms: newTermSet(vocab),
		qres:   newTermSet(vocab),
		acc:    make([]float32, n),
		best:   make([]float32, n),
		mask:   make([]uint64, n),
		fields: make([]uint16, n),
		nsAcc:  make([]float32, nns),
		nsBest: make([]float32, nns),
		nsMask: make([]uint64, nns),
		// Room for every group analyze may start, the groups it
		// drops included (a repeated word, a word nothing meets).
		variants: make([]variant, 0, 2*maxGroups*variantSpan),
		vbuf:     make([]variant, 0, 2), // lookup's most
	}
}

// variantSpan is the room a group's variants get in a scratch's arena:
// most groups have one or two, a synonym or a verb a few more.
const variantSpan = 8

// variantSpace returns an empty slice for a new group's variants with
// room for variantSpan of them in sc's arena, so that a query's groups
// allocate nothing. Its capacity ends where the next group's room
// begins: a group that outgrows it moves to an array of its own (append),
// never over another's. With the arena full, it returns nil (the group
// allocates). analyze empties the arena: the variants of a query's groups
// live until the next query on sc.
func (sc *scratch) variantSpace() []variant {
	n := len(sc.variants)
	if cap(sc.variants)-n < variantSpan {
		return nil
	}
	sc.variants = sc.variants[:n+variantSpan]
	return sc.variants[n : n : n+variantSpan]
}

// Search ranks the operations that pass f for intent and returns at most
// limit candidates (limit ≤ 0 means 10) with a decision. An exact operation
// id or alias always wins. A filter that hides operations by kind,
// predicate or mask narrows what is shown, never what is certain: the
// decision is run only when the whole catalog (f's namespace kept) would
// run the same operation (checkHidden).
func (r *Router) Search(intent string, f Filter, limit int) Result {
	if limit <= 0 {
		limit = 10
	}
	if d, ok := r.lookupExact(intent); ok && r.allowed(&f, uint32(d)) {
		return Result{
			Candidates: []Candidate{{Op: r.ops[d], Score: math.Inf(1), Confidence: 1, Matched: []string{strings.TrimSpace(intent)}, Fields: []string{"id"}}},
			Decision:   DecisionRun,
			Exact:      true,
		}
	}
	if res, ok := r.lookupAddress(intent, f, limit); ok {
		return res
	}
	sc := r.pool.Get().(*scratch)
	completed := false
	defer func() {
		// A scratch left half-used by a panic is dropped, never reused:
		// its per-document buffers would leak scores into later queries.
		if completed {
			r.pool.Put(sc)
		}
	}()
	groups, qverb, hits, first, total := r.retrieve(intent, f, limit, sc)
	sc.odds.lead = -1
	if !r.severalRequests(intent, sc) {
		hits = r.rerank(groups, qverb, hits, total, sc)
	}
	// The reorders after the re-ranker look at its whole pool, whatever
	// the limit: the first k candidates are then the same for every
	// limit of k or more (find's default 5 shows the first five of what
	// a limit of 10 shows, which eval scores), and so is the decision.
	if r.tu.readsFirst {
		r.readsFirst(groups, qverb, hits, sc)
	}
	if r.tu.writesFirst {
		r.writesFirst(groups, qverb, hits)
	}
	if r.tu.partOrWhole {
		r.extentFirst(sc.words, hits)
	}
	r.methodsFirst(sc.method, sc.words, hits)
	r.othersFirst(groups, sc.words, sc.names, hits)
	if r.tu.currentFirst {
		r.currentFirst(sc.words, hits)
	}
	if r.tu.unsetDeletes {
		r.unsetFirst(groups, hits)
	}
	if r.tu.pointedAt {
		r.thisFirst(sc.words, hits)
	}
	if r.tu.itemsFirst {
		r.itemsFirst(groups, qverb, hits, sc)
	}
	if r.tu.listsFirst {
		r.listsFirst(groups, qverb, hits, &f, sc)
	}
	if r.tu.dataQuestions {
		r.dataFirst(groups, hits, sc)
	}
	hits = r.diversify(groups, hits, limit, sc)
	res := r.decide(intent, groups, qverb, hits, first, total, f, limit, sc)
	if !sc.implied && res.Verb == "" {
		res.Verb = qverb.kind()
	}
	if sc.changes && (res.Verb == "" || sc.implied) {
		res.Verb = operations.KindWrite
	}
	completed = true
	if res.Decision == DecisionRun && r.tu.filteredRuns && f.hides() {
		r.checkHidden(intent, f, limit, &res)
	}
	return res
}

// checkHidden keeps a filter from making a guess certain: a run decided
// among the operations f keeps stands only when the same request, searched
// without f's kinds and predicate (its namespace kept), also runs that
// operation. Otherwise res is a choice, and res.Hidden is the whole
// catalog's leader when f hides it ("Undeletes a deleted user" among reads
// would run the list of users; the catalog's answer is the write).
func (r *Router) checkHidden(intent string, f Filter, limit int, res *Result) {
	whole := r.Search(intent, Filter{Namespace: f.Namespace}, limit)
	lead := res.Candidates[0].Op
	if whole.Decision == DecisionRun && whole.Candidates[0].Op == lead {
		return
	}
	res.Decision = DecisionChoose
	if len(whole.Candidates) > 0 && !f.allowed(whole.Candidates[0].Op) {
		res.Hidden = whole.Candidates[0].Op
	}
}

// retrieve analyzes the intent and ranks the operations that pass f by
// their words: BM25F with the query's expansions and boosts, feedback and
// clause fusion. It returns the query's groups and verb, the ranking
// (hits, enough for limit and for the stages after it), the first pass's
// ranking and the query's total coverage weight. The per-document buffers
// of sc describe hits until sc is cleared.
func (r *Router) retrieve(intent string, f Filter, limit int, sc *scratch) (groups []group, qverb verbClass, hits, first []hit, total float32) {
	groups, qverb = r.analyze(intent, sc)
	multi := !r.opts.noClauses && len(groups) >= 2*minClauseGroups
	pool := limit
	if multi {
		pool = max(limit, fusePool)
	}
	if r.tu.diversity > 0 {
		pool = max(pool, diversePool)
	}
	if r.weights != nil {
		pool = max(pool, rerankPool)
	}
	hits, total = r.score(groups, qverb, f, pool, sc)
	first, hidden := hits, sc.hidden
	if !r.opts.noFeedback {
		hits = r.feedback(groups, hits, total, f, pool, sc)
		sc.hidden = hidden
	}
	if multi {
		sc2 := r.pool.Get().(*scratch)
		hits = r.fuseClauses(intent, hits, sc.acc, f, pool, sc2, &sc.ranked[2])
		r.pool.Put(sc2)
	}
	return groups, qverb, hits, first, total
}

// clear resets the per-document buffers touched by the last query.
func (sc *scratch) clear() {
	for _, d := range sc.touched {
		sc.acc[d] = 0
		sc.mask[d] = 0
		sc.fields[d] = 0
	}
	sc.touched = sc.touched[:0]
}
