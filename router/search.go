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
// synonyms never double-count.
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
	res  [2]uint32
	nres uint8
	// repeats counts the later occurrences of the word in the query.
	repeats uint8
	// item: an identifier follows the word ("issue 1347"): the request is
	// about one item of the resource the word names. many: the word is a
	// plural with no identifier after it, in a request to read ("open
	// tickets"): it is about the collection.
	item, many bool
	// learned: the group holds a word's learned neighbours (semantic.go).
	learned bool
	// one: the word is singular with no identifier after it ("get the
	// invoice"): reading, changing or deleting it means one item;
	// creating it means adding to its collection.
	one bool
}

// addRes records t as a resource variant of g, when it is one.
func (g *group) addRes(ix *index, t uint32) {
	if int(t) < len(ix.isRes) && ix.isRes[t] && int(g.nres) < len(g.res) && !slices.Contains(g.res[:g.nres], t) {
		g.res[g.nres] = t
		g.nres++
	}
}

// scratch holds per-query buffers, reused through a sync.Pool.
type scratch struct {
	acc      []float32 // fused score per doc
	best     []float32 // best variant of the current group per doc
	mask     []uint64  // groups matched per doc
	fields   []uint16  // fields the query's terms matched per doc (for explain)
	touched  []uint32
	gtouched []uint32

	nsAcc, nsBest []float32 // the same, per namespace unit
	nsMask        []uint64
	nsTouched     []uint32

	groups []group
	words  []string
	corr   []uint32
	vbuf   []variant
	kth    []float32 // min-heap for kthAllowed
	qterms termSet   // the query's terms (variants of weight ≥ 0.5)
	qres   termSet   // the resources the query names
	heap   []hit
	names  []string // capitalised words inside sentences, lower-cased
	// implied: the query's verb class was implied by its nouns, not said.
	implied bool
	// hidden is the best score of an operation the filter rejected.
	hidden float32
	spans  [][2]int
	fused  []hit
	fb     []variant // feedback word candidates
	div    []hit     // diversified ranking
	items  []string  // words followed by an identifier (itemNouns)
	// services the query names (see namedServices)
	services []int32
	divRest  []hit
	prune    pruning
	reranked []hit // the re-ranker's copy of the ranking
}

type hit struct {
	d uint32
	s float32
}

func newScratch(n, nns int) *scratch {
	return &scratch{
		acc:    make([]float32, n),
		best:   make([]float32, n),
		mask:   make([]uint64, n),
		fields: make([]uint16, n),
		nsAcc:  make([]float32, nns),
		nsBest: make([]float32, nns),
		nsMask: make([]uint64, nns),
	}
}

// maxGroups is the number of query words scored; the rest of a very long
// query is ignored (64 fits the per-document match mask).
const maxGroups = 64

// analyze turns the intent into scored groups and the query's verb class.
// namesCaller reports whether the catalog speaks of "the authenticated
// user" often enough (in at least selfMinShare of its operations, and 3)
// for first-person words to mean it.
func (r *Router) namesCaller() bool {
	t, ok := r.idx.terms["authenticated"]
	if !ok {
		return false
	}
	n := r.idx.post.start[t+1] - r.idx.post.start[t]
	return n >= 3 && float64(n) >= selfMinShare*float64(len(r.ops))
}

// selfMinShare: see namesCaller.
const selfMinShare = 0.02

// selfWords are the first-person words that mean the caller.
var selfWords = map[string]bool{"me": true, "my": true, "mine": true, "myself": true, "i": true}

func (r *Router) analyze(intent string, sc *scratch) (groups []group, qverb verbClass) {
	ix := r.idx
	sc.items = itemNouns(intent, sc.items[:0])
	if r.tu.values {
		intent = maskValues(intent)
	}
	words := sc.words[:0]
	splitWordsParts(intent, false, func(w string) { words = append(words, w) })
	sc.names = properNames(intent, sc.names[:0])
	sc.words = words
	groups = sc.groups[:0]
	seen := func(t uint32) int {
		for i := range groups {
			if len(groups[i].variants) > 0 && groups[i].variants[0].t == t {
				return i
			}
		}
		return -1
	}
	if !r.opts.noVerbs && r.tu.questions && asksToKnow(words) {
		// "is issue 5 open", "did the build fail", "how many repos did I
		// star": a question about state reads, whatever verbs it holds;
		// they are words to match, not the action.
		qverb = verbRead
	}
	for i := 0; i < len(words) && len(groups) < maxGroups; i++ {
		w := words[i]
		// Only the first verb is the query's action ("list all open
		// tickets": list, and open is a word to match).
		vc := verbNone
		pv := ""
		if !r.opts.noVerbs && qverb == verbNone {
			vc = verbLexicon[w]
			if vc == verbNone && i == 0 && r.tu.learnedVerbs {
				// The first word in the third person ("Creates a
				// webhook", "Uninstalls a plugin") or one the corpus
				// says starts summaries of one kind of method.
				vc = learnedVerb(w)
			}
			for j := i + 1; j < len(words) && j <= i+1+maxParticleGap; j++ {
				if p, ok := phrasalVerbs[w+" "+words[j]]; ok {
					vc, pv = p.class, p.op
					break
				}
			}
			qverb = vc
		}
		if pv != "" && (isStopWord(w) || isQueryFiller(w)) {
			// "get rid of", "pull up": the verb itself is a stop word or
			// a filler; its meaning is the operation verb.
			g := group{surface: w, verb: true, known: true}
			for _, x := range ix.lookup(pv, r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, x.t, r.tu.verb*x.w)
			}
			if len(g.variants) > 0 {
				g.cov = ix.idf[g.variants[0].t] * verbGroupWeight
				groups = append(groups, g)
			}
			continue
		}
		if selfWords[w] && !r.opts.noSynonyms && r.namesCaller() {
			// "my repositories", "who am I": APIs name the caller "the
			// authenticated user" (GitHub, GitLab, Slack...). When the
			// catalog says so, a first-person word means that.
			if !slices.ContainsFunc(groups, func(g group) bool { return g.surface == "me" }) {
				g := group{surface: "me"}
				r.addPhrase(&g, "authenticated user", r.tu.syn)
				if len(g.variants) > 0 {
					g.cov = ix.idf[g.variants[0].t] * selfWeight
					g.known = true
					groups = append(groups, g)
				}
			}
			continue
		}
		if isStopWord(w) || isQueryFiller(w) || isNumber(w) {
			continue
		}
		// Multi-word synonyms ("pull request" → pr) become an extra group.
		for l := min(r.syn.maxLen, len(words)-i); l >= 2 && r.syn.starts[w]; l-- {
			phrase := strings.Join(words[i:i+l], " ")
			if alts, ok := r.syn.lookup(phrase); ok {
				g := group{surface: phrase}
				for _, a := range alts {
					r.addPhrase(&g, a, r.tu.syn)
				}
				if len(g.variants) > 0 {
					g.cov = 0 // the words of the phrase carry the coverage
					g.known = true
					groups = append(groups, g)
				}
				break
			}
		}
		g := group{surface: w, verb: vc != verbNone, item: vc == verbNone && slices.Contains(sc.items, w)}
		g.many = vc == verbNone && !g.item && plural(w) != w
		g.one = vc == verbNone && !g.item && plural(w) == w && r.tu.singular
		g.variants = ix.lookup(w, r.tu.stem, nil)
		ownWord := len(g.variants) > 0 && g.variants[0].w >= 1
		if len(g.variants) > 0 {
			if k := seen(g.variants[0].t); k >= 0 {
				groups[k].repeats++ // repeated word
				continue
			}
			g.cov = ix.idf[g.variants[0].t]
			g.known = true
		} else if !r.opts.noNames && slices.Contains(sc.names, w) {
			// A capitalised word the catalog does not know is a value
			// (a person, a company): it is neither corrected nor counted
			// against the coverage of the operations.
			g.cov = 0
		} else {
			g.cov = ix.maxIDF
			if !r.opts.noFuzzy {
				sc.corr = ix.corrections(w, 3, sc.corr[:0])
				for _, t := range sc.corr {
					g.variants = append(g.variants, variant{t: t, w: r.tu.corr})
				}
			}
		}
		if i := alphaPrefix(w); i >= 3 && i < len(w) {
			for _, v := range ix.lookup(w[:i], r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, v.t, weightAlphaPrefix*v.w)
			}
		}
		if r.tu.derive > 0 && vc == verbNone {
			r.addAgentNouns(&g, w)
		}
		if alts, ok := r.syn.lookup(w); ok {
			n0 := len(g.variants)
			for _, a := range alts {
				r.addPhrase(&g, a, r.tu.syn)
			}
			r.shareIDF(&g, n0)
		}
		if vc == verbNone && r.sem != nil && r.tu.neighbours > 0 && !ownWord && len(groups) < maxGroups-1 {
			// Only a word the catalog does not say reaches out to its
			// neighbours: a word it does say already matches, and its
			// neighbours would pull a long request off topic. The
			// neighbours are a group of their own with no coverage: they
			// find candidates, but a match through them alone leaves
			// the word unmatched, so the answer stays low-confidence.
			ng := group{surface: w, learned: true}
			r.sem.addNeighbours(&ng, w, r.tu.neighbours)
			if len(ng.variants) > 0 {
				ng.known = true
				groups = append(groups, ng)
			}
		}
		if pv != "" {
			for _, x := range ix.lookup(pv, r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, x.t, r.tu.verb*x.w)
			}
		}
		if vc != verbNone {
			for _, v := range verbExpansions[vc] {
				for _, x := range ix.lookup(v, r.tu.stem, sc.vbuf[:0]) {
					addVariant(&g, x.t, r.tu.verb*x.w)
				}
			}
			g.cov *= verbGroupWeight
		}
		if len(g.variants) > 0 {
			g.known = true
		}
		if vc == verbNone {
			for _, v := range g.variants {
				if v.w >= 0.5 {
					g.addRes(ix, v.t)
				}
			}
		}
		groups = append(groups, g)
	}
	if r.tu.qtf > 0 {
		for i := range groups {
			if n := groups[i].repeats; n > 0 {
				m := 1 + r.tu.qtf*float32(min(n, maxRepeats))
				for k := range groups[i].variants {
					groups[i].variants[k].w *= m
				}
			}
		}
	}
	if !r.opts.noBigrams && r.tu.bigram > 0 {
		prev := noTerm
		for _, w := range words {
			if isStopWord(w) || isNumber(w) {
				continue
			}
			st, ok := ix.stemTerm(w)
			if !ok || isQueryFiller(w) {
				prev = noTerm
				continue
			}
			if prev != noTerm && len(groups) < maxGroups {
				if t := ix.bigram(prev, st, false); t != noTerm {
					g := group{surface: w, variants: []variant{{t: t, w: r.tu.bigram}}, bigram: true}
					if st, ok := ix.terms[plural(w)]; ok {
						g.addRes(ix, st)
					}
					groups = append(groups, g)
				}
			}
			prev = st
		}
	}
	if r.tu.compound > 0 {
		groups = r.compounds(words, groups)
	}
	sc.implied = false
	if qverb == verbNone && !r.opts.noVerbs {
		qverb = impliedVerb(words)
		sc.implied = qverb != verbNone
	} else if qverb == verbRead && r.tu.pluralList && impliedVerb(words) == verbList {
		// "show me open tickets": a read of a plural is a list.
		qverb = verbList
	}
	sc.groups = groups
	sc.services = sc.services[:0]
	if r.tu.svc > 0 {
		sc.services = r.namedServices(words, sc.names, sc.services)
	}
	return groups, qverb
}

// compounds adds a group for each pair of adjacent query words that the
// catalog writes as one word: "zip codes" matches getZipcodeByCounty. The
// group carries no coverage of its own (its words do).
func (r *Router) compounds(words []string, groups []group) []group {
	ix := r.idx
	var buf [64]byte
	for i := 0; i+1 < len(words) && len(groups) < maxGroups; i++ {
		a, b := words[i], words[i+1]
		if len(a) < minCompoundPart || len(b) < minCompoundPart || isNumber(a) || isNumber(b) || len(a)+len(b) > len(buf) {
			continue
		}
		k := append(append(buf[:0], a...), plural(b)...)
		t, ok := ix.terms[string(k)]
		if !ok {
			continue
		}
		g := group{surface: a + " " + b, known: true, variants: []variant{{t: t, w: r.tu.compound}}}
		g.addRes(ix, t)
		groups = append(groups, g)
	}
	return groups
}

// shareIDF weighs a word's synonyms (variants from n0 on) so that none
// counts more than the word itself: a rare synonym ("issues" in one
// description) does not outrank the catalog's own word for the concept
// ("ticket"). The word keeps its own idf: "members" stays specific in a
// catalog where its synonym "user" is everywhere. A word the catalog does
// not know is weighed, with its synonyms, at the idf of the most frequent
// of them.
func (r *Router) shareIDF(g *group, n0 int) {
	if len(g.variants) <= n0 || n0 == 0 && len(g.variants) < 2 {
		return
	}
	idf := r.idx.idf
	if n0 > 0 && !r.tu.synMin {
		// The word keeps its own idf; a synonym counts at most as much.
		own := idf[g.variants[0].t]
		for i := n0; i < len(g.variants); i++ {
			v := &g.variants[i]
			if idf[v.t] > own {
				v.w *= own / idf[v.t]
			}
			// Coverage is the concept's: a match through a common
			// synonym says less than the rare word would.
			g.cov = min(g.cov, idf[v.t])
		}
		return
	}
	low := float32(math.MaxFloat32)
	for _, v := range g.variants {
		low = min(low, idf[v.t])
	}
	for i := range g.variants {
		v := &g.variants[i]
		v.w *= low / idf[v.t]
	}
	g.cov = min(g.cov, low)
}

// addPhrase adds the words of phrase as variants of g.
func (r *Router) addPhrase(g *group, phrase string, w float32) {
	splitWords(phrase, func(x string) {
		if isStopWord(x) {
			return
		}
		for _, v := range r.idx.lookup(x, r.tu.stem, nil) {
			addVariant(g, v.t, w*v.w)
		}
	})
}

func addVariant(g *group, t uint32, w float32) {
	for i := range g.variants {
		if g.variants[i].t == t {
			if w > g.variants[i].w {
				g.variants[i].w = w
			}
			return
		}
	}
	g.variants = append(g.variants, variant{t: t, w: w})
}

// Search ranks the operations that pass f for intent and returns at most
// limit candidates (limit ≤ 0 means 10) with a decision. An exact operation
// id or alias always wins.
func (r *Router) Search(intent string, f Filter, limit int) Result {
	if limit <= 0 {
		limit = 10
	}
	if d, ok := r.lookupExact(intent); ok && f.allowed(r.ops[d]) {
		return Result{
			Candidates: []Candidate{{Op: r.ops[d], Score: math.Inf(1), Confidence: 1, Matched: []string{strings.TrimSpace(intent)}, Fields: []string{"id"}}},
			Decision:   DecisionRun,
			Exact:      true,
		}
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
	if !r.severalRequests(intent, sc) {
		hits = r.rerank(groups, qverb, hits, total, sc)
	}
	hits = r.diversify(groups, hits, limit, sc)
	res := r.decide(intent, groups, qverb, hits, first, total, f, limit, sc)
	if !sc.implied {
		res.Verb = qverb.kind()
	}
	completed = true
	return res
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
		hits = r.fuseClauses(intent, hits, sc.acc, f, pool, sc2)
		r.pool.Put(sc2)
	}
	return groups, qverb, hits, first, total
}

// score accumulates BM25F scores group by group and returns the top limit
// documents that pass f, best first, and the total coverage weight.
func (r *Router) score(groups []group, qverb verbClass, f Filter, limit int, sc *scratch) ([]hit, float32) {
	ix := r.idx
	var total float32
	sc.hidden = 0
	for _, g := range groups {
		total += g.cov
	}
	prune := &sc.prune
	prune.limit, prune.filter, prune.ops = limit, f, r.ops
	prune.slack = pruneSlack
	sc.touched = accumulate(&ix.post, len(r.ops), groups, sc.acc, sc.best, sc.mask, sc.fields, sc.touched[:0], &sc.gtouched, ix, r.tu.resMismatch, prune)
	touched := sc.touched
	acc := sc.acc
	if r.tu.ns > 0 && len(ix.ns.start) > 0 {
		sc.nsTouched = accumulate(&ix.ns, ix.nsUnits, groups, sc.nsAcc, sc.nsBest, sc.nsMask, nil, sc.nsTouched[:0], &sc.gtouched, nil, 0, nil)
		for _, d := range touched {
			if k := ix.nsOf[d]; k >= 0 {
				acc[d] += r.tu.ns * sc.nsAcc[k]
			}
		}
		for _, k := range sc.nsTouched {
			sc.nsAcc[k], sc.nsMask[k] = 0, 0
		}
		sc.nsTouched = sc.nsTouched[:0]
	}
	// The query's terms, for the id-words boost, and the resources it
	// names.
	qterms, qres := &sc.qterms, &sc.qres
	qterms.reset()
	qres.reset()
	for i := range groups {
		g := &groups[i]
		if g.bigram {
			continue
		}
		for _, v := range g.variants {
			if v.w >= 0.5 {
				qterms.add(v.t)
			}
		}
		for _, t := range g.res[:g.nres] {
			qres.add(t)
		}
	}
	miss := r.tu.resMiss
	if len(qres.terms) == 0 {
		miss = 0
	}
	idb := r.tu.idBoost
	// The boosts below multiply a score by at most hiBoost and at least
	// loBoost. An operation whose score times hiBoost stays under the
	// limit-th best allowed score times loBoost cannot reach the top, so
	// it is not boosted: most of a long query's matches are such.
	hiBoost, loBoost := (1+r.tu.vboost)*(1+idb)*(1+r.tu.sumBoost)*(1+r.tu.itemBoost), 1-miss
	if len(sc.services) > 0 {
		hiBoost *= 1 + r.tu.svc
	}
	var cutoff float32
	if len(touched) > minPrune*limit {
		cutoff = r.kthAllowed(touched, acc, f, limit, sc) * loBoost / hiBoost
	}
	for _, d := range touched {
		s := acc[d]
		if s < cutoff {
			continue
		}
		if qverb != verbNone && !r.opts.noVerbs {
			if ov := r.verbs[d]; ov == qverb || (qverb == verbRead && ov == verbList) || (qverb == verbList && ov == verbRead) {
				if ov == qverb {
					s *= 1 + r.tu.vboost
				} else {
					s *= 1 + r.tu.vboost/2
				}
			}
		}
		if idb > 0 {
			if ts := ix.idTerms.of(d); len(ts) > 0 {
				s *= 1 + idb*float32(qterms.count(ts))/float32(len(ts))
			}
		}
		if miss > 0 && !qres.any(ix.idTerms.of(d)) && !qres.any(ix.resTerms.of(d)) {
			s *= 1 - miss
		}
		if ib := r.tu.itemBoost; ib > 0 && ix.scope[d] != scopeNone && r.scopeAgrees(groups, qverb, d) {
			s *= 1 + ib
		}
		if len(sc.services) > 0 && (slices.Contains(sc.services, ix.svc.of[d][0]) || slices.Contains(sc.services, ix.svc.of[d][1])) {
			s *= 1 + r.tu.svc
		}
		if sb := r.tu.sumBoost; sb > 0 {
			if ts := ix.sumTerms.of(d); len(ts) > 0 {
				c := float32(qterms.count(ts)) / float32(len(ts))
				s *= 1 + sb*c*c
			}
		}
		acc[d] = s
	}
	return r.selectTop(touched, acc, f, limit, sc), total
}

// minPrune: score prunes the boosts of a query whose matches outnumber
// its limit this many times.
const minPrune = 8

// kthAllowed returns the limit-th best score in acc among the documents
// of touched that pass f, or 0 when fewer pass.
func (r *Router) kthAllowed(touched []uint32, acc []float32, f Filter, limit int, sc *scratch) float32 {
	h := sc.kth[:0]
	for _, d := range touched {
		s := acc[d]
		if len(h) == limit && s <= h[0] || !f.allowed(r.ops[d]) {
			continue
		}
		if len(h) < limit {
			h = append(h, s)
			for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		h[0] = s
		for i := 0; ; {
			m, l := i, 2*i+1
			if l < len(h) && h[l] < h[m] {
				m = l
			}
			if l+1 < len(h) && h[l+1] < h[m] {
				m = l + 1
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	sc.kth = h
	if len(h) < limit {
		return 0
	}
	return h[0]
}

// selectTop returns the best limit documents of touched (scores in acc)
// that pass f, best first, and records in sc.hidden the best score of a
// document f rejected.
func (r *Router) selectTop(touched []uint32, acc []float32, f Filter, limit int, sc *scratch) []hit {
	sc.hidden = 0
	// Select the top documents with a bounded min-heap.
	h := sc.heap[:0]
	filtered := f.Namespace != "" || len(f.Kinds) > 0 || f.Keep != nil
	for _, d := range touched {
		s := acc[d]
		if len(h) == limit && !better(hit{d, s}, h[0]) {
			continue
		}
		if filtered && !f.allowed(r.ops[d]) {
			sc.hidden = max(sc.hidden, s)
			continue
		}
		if len(h) < limit {
			h = append(h, hit{d, s})
			siftUp(h, len(h)-1)
		} else {
			h[0] = hit{d, s}
			siftDown(h, 0)
		}
	}
	out := make([]hit, len(h))
	copy(out, h)
	sortHits(out)
	sc.heap = h
	return out
}

// A term is "heavy" (frequent, low idf) when it occurs in more than
// 1/heavyShare of the units, and in more than minHeavy of them. Heavy
// terms are scored after the selective ones, only on the units those
// already matched and, for a content word of the query as written, on the
// headSize units the term scores best;
// everywhere when nothing matched. This bounds the work of a query without
// making a frequent word an AND with a rare one: "get issue", in a
// tracker where "issue" is everywhere and "get" reaches the few
// operations that say "retrieve", still meets the operations most about
// issues.
const (
	heavyShare = 16
	minHeavy   = 128
	// binarySearchFactor: a heavy posting list is binary-searched for each
	// touched unit when it is this many times longer than the touched
	// list, and scanned otherwise.
	binarySearchFactor = 12
)

// pruning decides whether the heavy terms of a query may be scored on the
// touched operations only (MaxScore): when the most an untouched operation
// could get from them, times slack, stays under the limit-th best score
// among the touched operations that pass the filter, no untouched one can
// reach the ranking by its words. Otherwise every posting is scored: a
// frequent word is never an AND with a rare one ("get issue" in a tracker
// where "issue" is everywhere still meets the issue operations).
//
// pruneSlack is 1: the bound ignores the boosts (verb, id words, one
// item), which could in theory lift an untouched operation past a touched
// one. Bounding them too (slack about 3) made the bound almost never hold:
// 3.8 times the p50 of the previous tree at 100,000 operations, for one
// request of 107 on GitHub and one of 55 on Stripe (BENCHMARKS.md).
const pruneSlack = 1

// pruning holds what the bound needs for one query.
type pruning struct {
	limit  int
	slack  float32
	filter Filter
	ops    []*operations.Operation
	heap   []float32
}

// safe reports whether restricting the heavy terms is exact.
func (pr *pruning) safe(p *postings, groups []group, touched []uint32, acc []float32, heavyPostings uint32) bool {
	if len(touched) < pr.limit {
		return false
	}
	var rest float32
	for _, g := range groups {
		var m float32
		for _, v := range g.variants {
			if p.start[v.t+1]-p.start[v.t] > heavyPostings || g.learned {
				m = max(m, p.max[v.t]*v.w)
			}
		}
		rest += m
	}
	// The limit-th best score among the touched operations that pass the
	// filter: a min-heap of the best limit.
	h := pr.heap[:0]
	for _, d := range touched {
		s := acc[d]
		if len(h) == pr.limit && s <= h[0] {
			continue
		}
		if !pr.filter.allowed(pr.ops[d]) {
			continue
		}
		if len(h) < pr.limit {
			h = append(h, s)
			for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		h[0] = s
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(h) && h[l] < h[m] {
				m = l
			}
			if r < len(h) && h[r] < h[m] {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	pr.heap = h
	return len(h) == pr.limit && rest*pr.slack < h[0]
}

// heavyLimit is the posting count above which a term is heavy among units.
func heavyLimit(units int) uint32 { return uint32(max(minHeavy, units/heavyShare)) }

// accumulate adds, per unit, the best variant of each group, and records
// which groups matched it in mask. It returns touched extended with the
// units seen for the first time.
//
// ix, when not nil, is the index whose operations the units are: a
// group naming a resource then counts resourceMismatch less on an
// operation of another resource (see agrees).
func accumulate(p *postings, units int, groups []group, acc, best []float32, mask []uint64, fields []uint16, touched []uint32, gbuf *[]uint32, ix *index, mismatch float32, prune *pruning) []uint32 {
	heavy := false
	heavyPostings := heavyLimit(units)
	for pass := 0; pass < 2; pass++ {
		// Pass 0 scans selective variants. Pass 1 scores the heavy ones:
		// on the touched units only when no other unit could reach the
		// top (see pruning), everywhere otherwise.
		restricted := pass == 1 && len(touched) > 0 && (prune == nil || prune.safe(p, groups, touched, acc, heavyPostings))
		for gi, g := range groups {
			bit := uint64(1) << uint(gi)
			gt := (*gbuf)[:0]
			for _, v := range g.variants {
				lo, hi := p.start[v.t], p.start[v.t+1]
				// A learned neighbour is scored like a heavy term: it
				// brings new candidates only when the query's own words
				// meet nothing.
				isHeavy := hi-lo > heavyPostings || g.learned
				if isHeavy != (pass == 1) {
					heavy = heavy || isHeavy
					continue
				}
				docs, vals := p.doc[lo:hi], p.val[lo:hi]
				restrict := restricted
				if restrict && len(touched)*binarySearchFactor < len(docs) {
					// Few candidates: binary-search each one.
					for _, d := range touched {
						if mask[d]&bit != 0 {
							continue
						}
						if i, ok := slices.BinarySearch(docs, d); ok {
							if fields != nil {
								fields[d] |= p.fields[int(lo)+i]
							}
							s := vals[i] * v.w
							if best[d] == 0 {
								gt = append(gt, d)
								best[d] = s
							} else if s > best[d] {
								best[d] = s
							}
						}
					}
					continue
				}
				fs := p.fields[lo:hi]
				for k, d := range docs {
					if restrict && (mask[d] == 0 || mask[d]&bit != 0) {
						continue
					}
					s := vals[k] * v.w
					if best[d] == 0 {
						gt = append(gt, d)
						best[d] = s
					} else if s > best[d] {
						best[d] = s
					}
					if fields != nil {
						fields[d] |= fs[k]
					}
				}
			}
			discount := ix != nil && g.nres > 0 && mismatch > 0
			for _, d := range gt {
				if mask[d] == 0 {
					touched = append(touched, d)
				}
				if discount && !ix.agrees(&g, d) {
					best[d] *= 1 - mismatch
				}
				acc[d] += best[d]
				mask[d] |= bit
				best[d] = 0
			}
			*gbuf = gt
		}
		if !heavy {
			break
		}
	}
	return touched
}

// agrees reports whether operation d's id words or resource words include
// one of g's resource variants: "tickets" agrees with tickets.list and
// reports.ticket_volume, not with orgs.list (whose summary mentions open
// tickets).
func (ix *index) agrees(g *group, d uint32) bool {
	for _, t := range g.res[:g.nres] {
		if slices.Contains(ix.idTerms.of(d), t) || slices.Contains(ix.resTerms.of(d), t) {
			return true
		}
	}
	return false
}

// sortHits sorts h best first (see better).
func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

// better orders hits: higher score first, then earlier document.
func better(a, b hit) bool {
	if a.s != b.s {
		return a.s > b.s
	}
	return a.d < b.d
}

// min-heap on "better": h[0] is the worst kept hit.
func siftUp(h []hit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []hit, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && better(h[l], h[r]) {
			m = r
		}
		if !better(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
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

// asksToKnow reports whether a query is a question about how things are
// rather than a request to do something: it opens with an auxiliary verb
// ("is", "are", "did", "does", "has", ...) or with "how many", "how much"
// and the like. Wh-words that the verb lexicon knows ("what", "who",
// "which") are left to it; "how do I create ..." and "can you delete ..."
// are requests, and their verb is the action.
func asksToKnow(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "is", "are", "was", "were", "does", "did", "has", "have", "had", "isn", "aren", "wasn", "weren", "doesn", "didn", "hasn", "haven":
		return true
	case "do":
		// "do I have open PRs" asks; "do a backup" does.
		return len(words) > 1 && (words[1] == "i" || words[1] == "we" || words[1] == "you" || words[1] == "they" || words[1] == "any")
	case "how":
		if len(words) > 1 {
			switch words[1] {
			case "many", "much", "long", "often", "old", "big", "large":
				return true
			}
		}
	case "when", "where", "why", "whose", "whom":
		return true
	}
	return false
}

// impliedVerb is the action of a query without a verb: a singular noun
// followed by a number ("ticket 42", "issue #8") names one thing, a read;
// a plural noun ("open tickets", "teams") asks for a list.
func impliedVerb(words []string) verbClass {
	list := false
	for i, w := range words {
		if isNumber(w) || isStopWord(w) || isQueryFiller(w) {
			continue
		}
		if i+1 < len(words) && isNumber(words[i+1]) && plural(w) == w {
			return verbRead
		}
		if plural(w) != w {
			list = true
		}
	}
	if list {
		return verbList
	}
	return verbNone
}

// properNames appends to out the words of intent, lower-cased, that are
// capitalised but do not start a sentence ("assign to Marcus", "orgs at
// Bluefin Retail"): names of people, companies and places, which are
// parameter values rather than words of an operation. All-capital words
// (SLA, CSV) are acronyms, not names.
func properNames(intent string, out []string) []string {
	start := true
	for i := 0; i < len(intent); {
		c := intent[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			j := i
			for j < len(intent) && (intent[j] >= 'A' && intent[j] <= 'Z' || intent[j] >= 'a' && intent[j] <= 'z' || intent[j] >= '0' && intent[j] <= '9') {
				j++
			}
			w := intent[i:j]
			if !start && c >= 'A' && c <= 'Z' && len(w) > 1 && strings.ToUpper(w) != w {
				out = append(out, strings.ToLower(w))
			}
			start = false
			i = j
			continue
		}
		if c == '.' || c == '?' || c == '!' || c == '\n' || c == ':' || c == ';' || c == '"' || c == '(' {
			start = true
		}
		i++
	}
	return out
}

// agentSuffixes turn a verb's stem into the nouns of who does it:
// contribut+or, follow+er, assign+ee, creat+or, manag+er.
var agentSuffixes = [...]string{"or", "er", "ee"}

// addAgentNouns adds to g the catalog's words for who does what w says:
// "who contributed" → contributor, "who follows" → follower, "review" →
// reviewer. The English stemmer keeps agent nouns apart from their verbs.
func (r *Router) addAgentNouns(g *group, w string) {
	var s string
	if t, ok := r.idx.stemTerm(w); ok {
		s = r.idx.vocab[t][1:] // "~stem"
	} else {
		s = stem(w)
	}
	if len(s) < 4 || len(s)+3 > 64 {
		return
	}
	var buf [64]byte
	heavy := heavyLimit(len(r.ops))
	for _, suf := range agentSuffixes {
		k := append(append(buf[:0], s...), suf...)
		// A frequent agent noun ("user" from "use") says little.
		if t, ok := r.idx.terms[string(k)]; ok && r.idx.df(t) <= heavy {
			addVariant(g, t, r.tu.derive)
		}
	}
}

// scopeAgrees reports whether operation d acts on what the query asks
// of a resource: one item of it, when a query word followed by an
// identifier names it ("issue" in "show issue 1347": GET
// /issues/{issue_number}, not DELETE /issues/comments/{id}); its
// collection, when a read names it in the plural ("show me open tickets":
// tickets.list, not tickets.get).
func (r *Router) scopeAgrees(groups []group, qverb verbClass, d uint32) bool {
	ix := r.idx
	nouns := ix.itemTerms.of(d)
	reads := qverb == verbRead || qverb == verbList || qverb == verbSearch
	for i := range groups {
		g := &groups[i]
		switch {
		case g.item && ix.scope[d] == scopeItem:
		case g.many && reads && ix.scope[d] == scopeCollection && r.tu.pluralList:
		case g.one && ix.scope[d] == scopeItem && (qverb == verbRead || qverb == verbUpdate || qverb == verbDelete):
		case g.one && ix.scope[d] == scopeCollection && qverb == verbCreate:
		default:
			continue
		}
		for _, t := range g.res[:g.nres] {
			if slices.Contains(nouns, t) {
				return true
			}
		}
	}
	return false
}
