package router

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// premask marks in sc.mask, as met by every group already, the operations
// a mask the filter holds (Filter.Only) leaves out, so that accumulate
// never scores them: a search among part of a catalog (the reads and the
// visible operations of a read-only server, whose index holds the writes
// it hides) then costs about what an index of that part alone would.
// Whether one of them outscores the rest, which decide asks of a request
// whose verb writes or deletes, is a search of its own
// (hiddenOutscores). The marks stay in sc for its next search with the
// same mask: clear resets the touched operations only, and a marked one
// is never touched.
func (r *Router) premask(sc *scratch, f *Filter) {
	var want *Mask
	if m := f.Only; m != nil && m.r == r {
		want = m
	}
	if sc.pre == want {
		return
	}
	if sc.pre != nil {
		sc.pre.markOut(sc.mask, 0)
	}
	if want != nil {
		want.markOut(sc.mask, ^uint64(0))
	}
	sc.pre = want
}

// hiddenOutscores reports whether an operation f hides scores above s,
// the first pass's leader, on the request's groups. f's namespace and
// kinds and predicates are scored with every search, and sc.hidden holds
// the best of what they rejected; the operations f's mask leaves out are
// not (premask), so they are searched here, as the first pass searched
// the rest, for their best alone: a ranking of one prunes far more than
// the first pass could while it ranked the reads a write request leaves.
func (r *Router) hiddenOutscores(groups []group, qverb verbClass, f Filter, s float32, sc *scratch) bool {
	if sc.hidden > s {
		return true
	}
	m := f.Only
	if m == nil || m.r != r {
		return false
	}
	top, hidden := r.probeTop(groups, qverb, Filter{Namespace: f.Namespace, Only: m.out}, sc)
	return hidden > s || top.s > s
}

// probeTop searches the request's groups among the operations f keeps for
// their best alone, top (score 0 when none), and the best score of those
// f's namespace, kinds or predicate rejected, from scratches apart from
// sc's: sc still describes the ranking the request's search is building.
func (r *Router) probeTop(groups []group, qverb verbClass, f Filter, sc *scratch) (top hit, hidden float32) {
	return r.probeTopOf(&r.probes, groups, qverb, f, sc)
}

// probeTopOf is probeTop with scratches from pool: a pool's scratches
// keep the marks of the mask they searched last (premask).
func (r *Router) probeTopOf(pool *sync.Pool, groups []group, qverb verbClass, f Filter, sc *scratch) (top hit, hidden float32) {
	p := pool.Get().(*scratch)
	// What analyze found that the boosts read, copied: p keeps its own
	// buffers.
	p.services, p.slug = append(p.services[:0], sc.services...), sc.slug
	if hits, _ := r.score(groups, qverb, f, 1, p); len(hits) > 0 {
		top = hits[0]
	}
	hidden = p.hidden
	p.clear()
	pool.Put(p)
	return top, hidden
}

// hiddenAction reports whether the request's action is a verb the lexicon
// does not know ("pay an invoice", "reboots brokers": a verb its nouns
// only imply is no verb of the request's) that an operation f hides is
// named for (its call's name says the word: callTerms), a write that
// outscores lead, the first pass's
// leader among what f keeps; it names that write in res.Hidden. A known
// verb's class says whether a request writes (hiddenOutscores); this is
// the catalog saying it, for the verbs only the catalog knows. The action
// must not be a collection of the catalog ("invoice payments" asks about
// invoices), and lead must not itself write.
func (r *Router) hiddenAction(groups []group, qverb verbClass, f Filter, lead hit, res *Result, sc *scratch) bool {
	if !r.tu.hiddenActions || qverb != verbNone && !sc.implied || !f.hides() || r.ops[lead.d].Kind.IsWrite() {
		return false
	}
	i := slices.IndexFunc(groups, func(g group) bool { return g.action })
	if i < 0 || groups[i].verb || len(groups[i].variants) == 0 || r.namesCollection(groups[i].surface) && !groups[i].verbed ||
		r.idx.kind(groups[i].variants[0].t)&callWord == 0 {
		return false
	}
	top, _ := r.probeTop(groups, qverb, f.complement(), sc)
	if top.s <= lead.s {
		return false
	}
	h, t, named := r.ops[top.d], groups[i].variants[0].t, false
	if h.Kind.IsWrite() {
		r.idx.callTerms(h, top.d, nil, func(u uint32) { named = named || u == t })
	}
	if !named {
		return false
	}
	res.Hidden = h
	return true
}

// hiddenOnly names in res.Hidden the write that leads the request among
// the operations f hides, for a request that what f keeps meets too
// weakly for an answer (lead, the first pass's leader, scores below it)
// or not at all (lead nil): the catalog can serve it, with an operation
// the filter does not allow ("list imports" over an API whose every call
// is a POST, on a read-only server). A request that says it reads, and
// that some read meets, names only a hidden write named for reading (POST
// /ListImports, :getIamPolicy): "did someone create note 3" is a
// question about notes, not a call to the hidden create.
func (r *Router) hiddenOnly(groups []group, qverb verbClass, f Filter, lead *hit, res *Result, sc *scratch) {
	if !r.tu.hiddenOnly || !f.hides() {
		return
	}
	top, _ := r.probeTop(groups, qverb, f.complement(), sc)
	if top.s <= 0 || lead != nil && top.s <= lead.s || !r.ops[top.d].Kind.IsWrite() {
		return
	}
	if lead != nil && qverb.reads() && !sc.implied && !r.verbs[top.d].reads() {
		return
	}
	res.Hidden = r.ops[top.d]
}

// hiddenRead reports whether a request that says it reads, whose first
// pass led with a read, is better met by an operation f hides that is a
// write by its kind but named for reading (an RPC API's POST
// /ListImports, Google's :getIamPolicy), and names it in res.Hidden. Only
// a request with a word of such a call's name, in a catalog that has
// one, pays for the search.
func (r *Router) hiddenRead(groups []group, qverb verbClass, f Filter, lead hit, res *Result, sc *scratch) bool {
	if !r.tu.hiddenReads || r.readCallMask == nil || !f.hides() || !qverb.reads() || sc.implied || r.ops[lead.d].Kind.IsWrite() {
		return false
	}
	if !slices.ContainsFunc(groups, func(g group) bool {
		return !g.verb && len(g.variants) > 0 && r.idx.kind(g.variants[0].t)&readCallWord != 0
	}) {
		return false // no word of the request names such a call
	}
	top, _ := r.probeTopOf(&r.readProbes, groups, qverb, Filter{Namespace: f.Namespace, Only: r.readCallMask}, sc)
	if top.s <= lead.s || r.allowed(&f, top.d) {
		return false
	}
	res.Hidden = r.ops[top.d]
	return true
}

// The lexical retrieval stage: BM25F postings accumulated group by group,
// frequent terms bounded by MaxScore (pruning), the per-operation boosts,
// and the top of the ranking.

// score accumulates BM25F scores group by group and returns the top limit
// documents that pass f, best first, and the total coverage weight.
func (r *Router) score(groups []group, qverb verbClass, f Filter, limit int, sc *scratch) ([]hit, float32) {
	r.premask(sc, &f)
	ix := r.idx
	var total float32
	sc.hidden = 0
	for i := range groups {
		total += groups[i].cov
	}
	prune := &sc.prune
	*prune = pruning{r: r, sc: sc, limit: limit, slack: pruneSlack, filter: f, kth: noFloor}
	ops := accumulator{p: &ix.post, groups: groups, acc: sc.acc, best: sc.best, mask: sc.mask, touched: sc.touched[:0], gbuf: &sc.gtouched, ix: ix, mismatch: r.tu.resMismatch, heavyPostings: heavyLimit(len(r.ops)), changes: r.changes}
	accumulate(&ops, prune)
	sc.touched = ops.touched
	touched := sc.touched
	acc := sc.acc
	if r.tu.ns > 0 && len(ix.ns.start) > 0 {
		ns := accumulator{p: &ix.ns, groups: groups, acc: sc.nsAcc, best: sc.nsBest, mask: sc.nsMask, touched: sc.nsTouched[:0], gbuf: &sc.gtouched, heavyPostings: heavyLimit(ix.nsUnits)}
		accumulate(&ns, nil)
		sc.nsTouched = ns.touched
		w, nsOf, nsAcc := r.tu.ns, ix.nsOf, sc.nsAcc // loaded once, not per operation
		for _, d := range touched {
			if k := nsOf[d]; k >= 0 {
				acc[d] += w * nsAcc[k]
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
	r.scopeRes(groups, qverb, &sc.scopeRes)
	b := booster{r: r, qverb: qverb, qterms: qterms, qres: qres, services: sc.services, miss: r.tu.resMiss, slug: sc.slug, scopeRes: &sc.scopeRes,
		idMost: 1 + max(r.tu.idBoost, 0), sumMost: 1 + max(r.tu.sumBoost, 0), itemMost: 1 + max(r.tu.itemBoost, 0)}
	if len(qres.terms) == 0 {
		b.miss = 0
	}
	for _, t := range qres.terms {
		b.qresSig |= termBit(t)
	}
	// A document f rejects (by namespace, kind or predicate; a mask's are
	// never touched) is boosted only when its score is read: by decide,
	// for a request whose verb writes or deletes (sc.hidden: does a
	// hidden operation outscore every allowed one?). Otherwise it is
	// skipped; sc.hidden then means nothing.
	all := f.keepsAll()
	skip := !all && !qverb.kind().IsWrite()
	if len(touched) <= minPrune*limit {
		for _, d := range touched {
			if skip && !r.allowed(&f, d) {
				continue
			}
			acc[d] = b.boost(d, acc[d])
		}
		return r.selectTop(touched, acc, f, limit, sc, &sc.ranked[0]), total
	}
	// The boosts multiply a score by at most hiBoost. The operations that
	// lead by their words (at least limit of them pass the filter) are
	// boosted first; an operation whose score times hiBoost stays under
	// the limit-th of their boosted scores cannot reach the top, so it is
	// not boosted: most of a long query's matches are such.
	hiBoost := (1 + r.tu.vboost) * (1 + r.tu.idBoost) * (1 + r.tu.sumBoost) * (1 + r.tu.itemBoost)
	if len(sc.services) > 0 {
		hiBoost *= 1 + r.tu.svc
	}
	if sc.slug {
		hiBoost *= 1 + r.tu.slugBoost
	}
	kth := r.kthAllowed(touched, acc, f, limit, prune.kth, sc)
	lead, h := sc.lead[:0], sc.kth[:0]
	for _, d := range touched {
		if acc[d] < kth {
			continue
		}
		ok := all || r.allowed(&f, d)
		if skip && !ok {
			continue
		}
		s := b.boost(d, acc[d])
		lead = append(lead, hit{d, s})
		if ok {
			h = pushBounded(h, s, limit)
		}
	}
	var bar float32
	if len(h) == limit {
		bar = h[0]
	}
	// The bar rises as the rest are boosted, and an operation's own bound
	// (its verb and services known, the other boosts at their most) is
	// tighter than hiBoost: both skip boosts that cannot change the top.
	for _, d := range touched {
		s := acc[d]
		if s >= kth || s*hiBoost < bar || s*b.bound(d) < bar {
			continue
		}
		ok := all || r.allowed(&f, d)
		if skip && !ok {
			continue
		}
		s = b.boost(d, s)
		acc[d] = s
		if ok {
			h = pushBounded(h, s, limit)
			if len(h) == limit {
				bar = h[0]
			}
		}
	}
	for _, l := range lead {
		acc[l.d] = l.s
	}
	sc.lead, sc.kth = lead, h
	// The limit documents of h have their boosted scores in acc: bar is
	// the floor of the top.
	floor := noFloor
	if len(h) == limit {
		floor = bar
	}
	return r.selectAbove(touched, acc, f, limit, floor, sc, &sc.ranked[0]), total
}

// minPrune: score prunes the boosts of a query whose matches outnumber
// its limit this many times.
const minPrune = 8

// booster applies the per-operation boosts of one query to a word score.
type booster struct {
	r        *Router
	qverb    verbClass
	qterms   *termSet // the query's terms (variants of weight ≥ 0.5)
	qres     *termSet // the resources it names
	services []int32  // the services it names
	miss     float32  // resourceMiss, or 0 when the query names no resource
	slug     bool     // the query gives an owner/name pair
	// scopeRes holds, per operation scope, the resources the query
	// names in that scope (Router.scopeRes).
	scopeRes *[3][]uint32
	// qresSig is the signature of qres (termBit of each term): an
	// operation whose index.resSig shares no bit with it names none of
	// the query's resources, with no list to walk.
	qresSig uint64
	// idMost, sumMost and itemMost are the id-words, summary and
	// one-item boosts at their most, as bound multiplies by them.
	idMost, sumMost, itemMost float32
}

// boost returns operation d's score s with the boosts applied: the verb
// the query asks for, the share of its id and summary words the query
// says, one item of a resource the query names, a service it names, and
// the discount of an operation of none of the resources it names.
func (b *booster) boost(d uint32, s float32) float32 {
	r, ix := b.r, b.r.idx
	s *= b.verbFactor(d)
	ids := ix.idTerms.of(d)
	if idb := r.tu.idBoost; idb > 0 && len(ids) > 0 {
		s *= 1 + idb*float32(b.qterms.count(ids))/float32(len(ids))
	}
	if b.miss > 0 && (ix.resSig[d]&b.qresSig == 0 || !b.qres.any(ids) && !b.qres.any(ix.resTerms.of(d))) {
		s *= 1 - b.miss
	}
	if ib := r.tu.itemBoost; ib > 0 && len(b.scopeRes[ix.scope[d]]) > 0 && b.scopeAgrees(d) {
		s *= 1 + ib
	}
	s *= b.serviceFactor(d)
	if b.slug && ix.paths[d].pair {
		s *= 1 + r.tu.slugBoost
	}
	if sb := r.tu.sumBoost; sb > 0 {
		if ts := ix.sumTerms.of(d); len(ts) > 0 {
			c := float32(b.qterms.count(ts)) / float32(len(ts))
			s *= 1 + sb*c*c
		}
	}
	return s
}

// verbFactor is the verb boost of operation d: whole when its verb class is
// the one the query asks for, half for a read asked as a list or the
// reverse.
func (b *booster) verbFactor(d uint32) float32 {
	r := b.r
	if b.qverb == verbNone || r.opts.noVerbs {
		return 1
	}
	switch ov := r.verbs[d]; {
	case ov == b.qverb:
		return 1 + r.tu.vboost
	case (b.qverb == verbRead && ov == verbList) || (b.qverb == verbList && ov == verbRead):
		return 1 + r.tu.vboost/2
	}
	return 1
}

// serviceFactor is the boost of operation d of a service the query names.
// It is split in two so that the common case, a query that names no
// service, inlines into boost and bound.
func (b *booster) serviceFactor(d uint32) float32 {
	if len(b.services) == 0 {
		return 1
	}
	return b.namedServiceFactor(d)
}

func (b *booster) namedServiceFactor(d uint32) float32 {
	if svc := b.r.idx.svc.of[d]; slices.Contains(b.services, svc[0]) || slices.Contains(b.services, svc[1]) {
		return 1 + b.r.tu.svc
	}
	return 1
}

// bound is the most boost can multiply operation d's score by: its verb
// and service factors, and the id, summary and one-item boosts at their
// most (the last only for an operation on one item or a collection).
func (b *booster) bound(d uint32) float32 {
	r := b.r
	m := b.verbFactor(d) * b.serviceFactor(d) * b.idMost * b.sumMost
	if r.idx.scope[d] != scopeNone {
		m *= b.itemMost
	}
	if b.slug && r.idx.paths[d].pair {
		m *= 1 + r.tu.slugBoost
	}
	return m
}

// kthAllowed returns the limit-th best score in acc among the documents
// of touched that pass f, or 0 when fewer pass. floor is a guess at a
// score at least limit of them reach (noFloor for none): the documents under
// it are skipped, so that the heap fills with leaders instead of being
// refilled as they turn up. It costs nothing when wrong: when fewer than
// limit documents reach it, the scores are read again without it.
func (r *Router) kthAllowed(touched []uint32, acc []float32, f Filter, limit int, floor float32, sc *scratch) float32 {
	h := sc.kth[:0]
	all := f.keepsAll()
	// The first limit documents that pass fill the heap; after them, a
	// document must beat its least, kept in lo, which most do not.
	i := 0
	for ; i < len(touched) && len(h) < limit; i++ {
		if d := touched[i]; !(acc[d] < floor) && (all || r.allowed(&f, d)) {
			h = pushBounded(h, acc[d], limit)
		}
	}
	if len(h) == limit && limit > 0 {
		lo := h[0]
		for _, d := range touched[i:] {
			if s := acc[d]; s > lo && (all || r.allowed(&f, d)) {
				h = pushBounded(h, s, limit)
				lo = h[0]
			}
		}
	}
	sc.kth = h
	if len(h) < limit {
		if floor != noFloor {
			return r.kthAllowed(touched, acc, f, limit, noFloor, sc)
		}
		return 0
	}
	return h[0]
}

// pushBounded adds s to h, a min-heap of at most limit scores that keeps
// the largest: h[0] is the smallest kept.
func pushBounded(h []float32, s float32, limit int) []float32 {
	if len(h) < limit {
		h = append(h, s)
		for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
			h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
		}
		return h
	}
	if s <= h[0] {
		return h
	}
	// s replaces the smallest: the hole it leaves at the root moves down
	// past each smaller child, and s fills it where none is smaller. One
	// store per level instead of a swap, and picking the smaller child is
	// a conditional move, not a branch.
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if l+1 < len(h) && h[l+1] < h[l] {
			m = l + 1
		}
		if !(h[m] < s) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = s
	return h
}

// selectTop returns the best limit documents of touched (scores in acc)
// that pass f, best first, and records in sc.hidden the best score of a
// document f rejected. The ranking is written over *out (which keeps the
// array for the next query): it is valid until the next selectTop into
// the same buffer.
func (r *Router) selectTop(touched []uint32, acc []float32, f Filter, limit int, sc *scratch, out *[]hit) []hit {
	return r.selectAbove(touched, acc, f, limit, noFloor, sc, out)
}

// noFloor is the floor of kthAllowed and selectAbove that skips nothing.
var noFloor = float32(math.Inf(-1))

// selectAbove is selectTop told a floor, a guess at a score that at least
// limit documents of touched reach (noFloor for none), as kthAllowed is: the
// documents under it cannot be in the top and are skipped before the heap,
// which then fills with the leaders instead of being refilled as they turn
// up. When fewer reach it, it selects again without it. With a filter the
// floor is not used: the best rejected score must see every document.
func (r *Router) selectAbove(touched []uint32, acc []float32, f Filter, limit int, floor float32, sc *scratch, out *[]hit) []hit {
	sc.hidden = 0
	// Select the top documents with a bounded min-heap.
	h := sc.heap[:0]
	filtered := !f.keepsAll()
	if filtered {
		floor = noFloor
	}
	// The first limit documents that pass fill the heap; after them, a
	// document must be better than its worst, kept in worst, which most
	// are not.
	i := 0
	for ; i < len(touched) && len(h) < limit; i++ {
		d := touched[i]
		s := acc[d]
		if s < floor {
			continue
		}
		if filtered && !r.allowed(&f, d) {
			sc.hidden = max(sc.hidden, s)
			continue
		}
		h = append(h, hit{d, s})
		siftUp(h, len(h)-1)
	}
	if len(h) == limit && limit > 0 {
		worst := h[0]
		for _, d := range touched[i:] {
			s := acc[d]
			if !better(hit{d, s}, worst) {
				continue
			}
			if filtered && !r.allowed(&f, d) {
				sc.hidden = max(sc.hidden, s)
				continue
			}
			h[0] = hit{d, s}
			siftDown(h, 0)
			worst = h[0]
		}
	}
	if len(h) < limit && floor != noFloor {
		return r.selectAbove(touched, acc, f, limit, noFloor, sc, out)
	}
	top := append((*out)[:0], h...)
	sortHits(top)
	sc.heap, *out = h, top
	return top
}

// A term is "heavy" (frequent, low idf) when it occurs in more than
// 1/heavyShare of the units, and in more than minHeavy of them. Heavy
// terms are scored after the selective ones: on the units those already
// matched when pruning says no other unit could reach the ranking by its
// words, everywhere otherwise. This bounds the work of a query without
// making a frequent word an AND with a rare one: "get issue", in a tracker
// where "issue" is everywhere and "get" reaches the few operations that
// say "retrieve", still meets the operations most about issues.
const (
	heavyShare = 16
	minHeavy   = 128
	// binarySearchFactor: a heavy posting list is binary-searched for each
	// touched unit when it is this many times longer than the touched
	// list, and scanned otherwise.
	binarySearchFactor = 12
)

// pruning decides which heavy groups of a query may be scored on the
// touched operations only (MaxScore; see restrictable): those whose bounds,
// summed and times slack, stay under the limit-th best score among the
// touched operations that pass the filter, so that no operation they
// alone reach can enter the ranking by its words. The other heavy groups
// are scored everywhere, the one with the largest bound first, and the
// bound is taken again after each: a frequent word is never an AND with a
// rare one ("get issue" in a tracker where "issue" is everywhere still
// meets the issue operations).
//
// pruneSlack is 1: the bound ignores the boosts (verb, id words, one
// item), which could in theory lift an untouched operation past a touched
// one. Bounding them too (slack about 3) made the bound almost never hold:
// 3.8 times the p50 of the previous tree at 100,000 operations, for one
// request of 107 on GitHub and one of 55 on Stripe (BENCHMARKS.md).
const pruneSlack = 1

// pruning holds what the bound needs for one query.
type pruning struct {
	r      *Router
	sc     *scratch
	limit  int
	slack  float32
	filter Filter
	// kth is the last limit-th best score restrictable found (noFloor
	// before it found one). Scores only grow as groups are added, so it
	// is the floor of the next search for it (kthAllowed).
	kth float32
}

// restrictable returns the heavy groups not in done (bit gi for
// groups[gi]) whose heavy variants may be scored on the touched units only,
// exactly: MaxScore's non-essential lists. Groups are taken in increasing
// order of the most their heavy variants can give one unit, while the sum
// of those bounds, times slack, stays under the limit-th best score among
// the touched units that pass the filter. A unit that only restrictable
// groups could reach gets at most that sum, so it cannot enter the
// ranking. A method group (group.method) is never essential: it is
// scored on the touched units alone, and its bound counts in the sum. It
// also returns the essential group with the largest bound, to be scored
// everywhere next, or -1 when every remaining group is restrictable.
func (pr *pruning) restrictable(a *accumulator, done uint64) (restrict uint64, next int) {
	bounds := pr.sc.bounds[:0]
	var methods float32
	for gi := range a.groups {
		if done&(1<<uint(gi)) != 0 {
			continue
		}
		m := a.heavyBound(gi)
		switch {
		case a.groups[gi].method:
			// Never scanned everywhere (accumulate), but part of what
			// a unit left out could still gain.
			methods += m
		case m > 0:
			bounds = append(bounds, groupBound{gi, m})
		}
	}
	pr.sc.bounds = bounds
	if len(bounds) == 0 {
		return 0, -1
	}
	slices.SortFunc(bounds, func(a, b groupBound) int {
		switch {
		case a.max < b.max:
			return -1
		case a.max > b.max:
			return 1
		}
		return a.g - b.g
	})
	var kth float32
	if len(a.touched) >= pr.limit {
		kth = pr.r.kthAllowed(a.touched, a.acc, pr.filter, pr.limit, pr.kth, pr.sc)
		pr.kth = kth
	}
	sum := methods
	i := 0
	for ; i < len(bounds); i++ {
		b := bounds[i]
		if kth <= 0 || (sum+b.max)*pr.slack >= kth {
			break
		}
		sum += b.max
		restrict |= 1 << uint(b.g)
	}
	if i == len(bounds) {
		return restrict, -1
	}
	return restrict, bounds[len(bounds)-1].g
}

// groupBound is the most one group's heavy variants can add to a unit.
type groupBound struct {
	g   int
	max float32
}

// heavyLimit is the posting count above which a term is heavy among units.
func heavyLimit(units int) uint32 { return uint32(max(minHeavy, units/heavyShare)) }

// accumulator adds a query's groups to per-unit buffers: the units are
// operations, or namespaces (all of a namespace's operations as one
// document).
type accumulator struct {
	p      *postings
	groups []group
	// acc is the sum so far per unit, best the best variant of the group
	// being scored, mask the groups that met the unit. Where they met it
	// (the fields) is worked out for the few candidates that need it
	// (fieldMatches), not for every posting read.
	acc, best []float32
	mask      []uint64
	// touched lists the units with a non-zero mask, in the order met.
	touched []uint32
	gbuf    *[]uint32
	// ix, when not nil, is the index whose operations the units are: a
	// group naming a resource then counts mismatch less on an operation of
	// another resource (see agrees).
	ix            *index
	mismatch      float32
	heavyPostings uint32
	// changes, when not nil, are the changes the units make (changeOf):
	// a group that names a past change (group.event) does not meet the
	// operations that make that change.
	changes []change
}

// heavy reports whether variant v of group g is scored after the
// selective ones. A learned neighbour and a method are scored like a
// frequent term: a learned neighbour brings new candidates only when the
// query's own words meet nothing, a method never (accumulate).
func (a *accumulator) heavy(g *group, v variant) bool {
	return a.p.start[v.t+1]-a.p.start[v.t] > a.heavyPostings || g.learned || g.method
}

// heavyBound is the most group gi's heavy variants can add to one unit.
func (a *accumulator) heavyBound(gi int) float32 {
	g := &a.groups[gi]
	var m float32
	for _, v := range g.variants {
		if a.heavy(g, v) {
			m = max(m, a.p.max[v.t]*v.w)
		}
	}
	return m
}

// accumulate adds, per unit, the best variant of each group, and records
// which groups matched it in mask; it extends a.touched with the units met
// for the first time. Selective variants are scored first, everywhere.
// Heavy ones follow: with prune, essential groups everywhere, one at a time
// (the bound tightens as scores grow), and the rest on the touched units
// only; without prune, on the touched units only when there are any.
func accumulate(a *accumulator, prune *pruning) {
	sawHeavy := false
	for gi := range a.groups {
		sawHeavy = a.scan(gi, false, false) || sawHeavy
	}
	if !sawHeavy {
		return
	}
	var done uint64
	restrict := ^uint64(0)
	if prune != nil {
		for {
			var next int
			restrict, next = prune.restrictable(a, done)
			if next < 0 {
				break
			}
			a.scan(next, true, false)
			done |= 1 << uint(next)
		}
	}
	if len(a.touched) == 0 {
		restrict = 0
	}
	for gi := range a.groups {
		if bit := uint64(1) << uint(gi); done&bit == 0 && !a.groups[gi].method {
			a.scan(gi, true, restrict&bit != 0)
		}
	}
	// A method orders the units the request's words met, and meets no
	// other: it is scored last, on those alone.
	for gi := range a.groups {
		if a.groups[gi].method && len(a.touched) > 0 {
			a.scan(gi, true, true)
		}
	}
}

// scan adds group gi's heavy or selective variants, on the touched units
// only when restrict is set. A unit the group met already (through another
// variant class) is left as it is. It reports whether the group has
// variants of the other class.
func (a *accumulator) scan(gi int, heavy, restrict bool) (other bool) {
	g := &a.groups[gi]
	bit := uint64(1) << uint(gi)
	n, one := 0, -1
	for k, v := range g.variants {
		if a.heavy(g, v) == heavy {
			n, one = n+1, k
		} else {
			other = true
		}
	}
	if n == 1 && (g.event == change{} || a.changes == nil) {
		// A group naming a past change takes the general path below,
		// whose gather loop leaves out the operations that make it: the
		// posting loops stay as they are for every other group.
		a.scanOne(g, g.variants[one], bit, restrict)
		return other
	}
	p, acc, best, mask := a.p, a.acc, a.best, a.mask
	gt := (*a.gbuf)[:0]
	for _, v := range g.variants {
		if a.heavy(g, v) != heavy {
			other = true
			continue
		}
		lo, hi := p.start[v.t], p.start[v.t+1]
		docs, vals := p.doc[lo:hi], p.val[lo:hi]
		if o := p.denseOf(v.t); restrict && o >= 0 && len(a.touched) < len(docs) {
			// Look each touched unit up in the term's rank bitmap.
			gt = bestRanked(a.touched, p.bits[o:], p.ranks[o:], vals, v.w, mask, bit, best, gt)
			continue
		}
		if restrict && len(a.touched)*binarySearchFactor < len(docs) {
			// Few candidates: binary-search each one.
			for _, d := range a.touched {
				if mask[d]&bit != 0 {
					continue
				}
				if i, ok := slices.BinarySearch(docs, d); ok {
					gt = keepBest(best, gt, d, vals[i]*v.w)
				}
			}
			continue
		}
		gt = bestOf(docs, vals, v.w, mask, bit, restrict, best, gt)
	}
	discount := a.ix != nil && g.nres > 0 && a.mismatch > 0
	event, changes := g.event, a.changes
	if event == (change{}) {
		changes = nil
	}
	for _, d := range gt {
		if changes != nil && changes[d].made(event) {
			best[d] = 0
			continue
		}
		if mask[d] == 0 {
			a.touched = append(a.touched, d)
		}
		if discount && !a.ix.agrees(g, d) {
			best[d] *= 1 - a.mismatch
		}
		acc[d] += best[d]
		mask[d] |= bit
		best[d] = 0
	}
	*a.gbuf = gt
	return other
}

// scanOne is scan for a group g (bit bit) with one variant v of the class
// scanned, as most groups have (a word whose stem meets the same
// operations has no stem variant). Each unit meets v once, so its value
// is the group's best: it is added to the unit's sum as it is read
// instead of being kept in best and gathered after every variant. The
// additions are the same, in the same order, so acc, mask and touched
// come out bit for bit as scan's; this saves a store, a load and a
// branch per posting, on most of a query's postings. The loops are
// written out, not shared through a helper: a call per posting (the
// helper is too big to inline) cost more than the saving. Those of a
// group without a discount, most of a query's postings, are functions
// of their own that call nothing (addAll, addRanked).
func (a *accumulator) scanOne(g *group, v variant, bit uint64, restrict bool) {
	p, acc, mask := a.p, a.acc, a.mask
	discount := a.ix != nil && g.nres > 0 && a.mismatch > 0
	keep := 1 - a.mismatch
	lo, hi := p.start[v.t], p.start[v.t+1]
	docs, vals := p.doc[lo:hi], p.val[lo:hi]
	o := p.denseOf(v.t)
	switch {
	case restrict && o >= 0 && len(a.touched) < len(docs) && !discount:
		addRanked(a.touched, p.bits[o:], p.ranks[o:], vals, v.w, acc, mask, bit)
	case restrict && o >= 0 && len(a.touched) < len(docs):
		// Look each touched unit up in the term's rank bitmap. A
		// touched unit has a mask: none joins touched.
		words, ranks := p.bits[o:], p.ranks[o:]
		for _, d := range a.touched {
			if mask[d]&bit != 0 {
				continue
			}
			w, b := words[d>>6], uint64(1)<<(d&63)
			if w&b == 0 {
				continue
			}
			i := ranks[d>>6] + uint32(bits.OnesCount64(w&(b-1)))
			s := vals[i] * v.w
			if discount && !a.ix.agrees(g, d) {
				s *= keep
			}
			acc[d] += s
			mask[d] |= bit
		}
	case restrict && len(a.touched)*binarySearchFactor < len(docs):
		// Few candidates: binary-search each one.
		for _, d := range a.touched {
			if mask[d]&bit != 0 {
				continue
			}
			i, ok := slices.BinarySearch(docs, d)
			if !ok {
				continue
			}
			s := vals[i] * v.w
			if discount && !a.ix.agrees(g, d) {
				s *= keep
			}
			acc[d] += s
			mask[d] |= bit
		}
	case !discount:
		a.touched = addAll(docs, vals, v.w, acc, mask, bit, restrict, a.touched)
	default:
		touched := a.touched
		for k, d := range docs {
			m := mask[d]
			if m&bit != 0 || (restrict && m == 0) {
				continue
			}
			if m == 0 {
				touched = append(touched, d)
			}
			s := vals[k] * v.w
			if discount && !a.ix.agrees(g, d) {
				s *= keep
			}
			acc[d] += s
			mask[d] = m | bit
		}
		a.touched = touched
	}
}

// addAll, addRanked, bestOf and bestRanked are the posting loops of
// scanOne and scan that need no discount (agrees), as functions that call
// nothing. A call in a loop, even on a path it seldom takes (append
// growing its array, agrees reading an operation's words), made the
// compiler keep the loop's counter, slices and flags on the stack, a load
// or a store of each per posting; these grow their output before the loop
// instead, and index it. Each does what the loop it replaces did, posting
// for posting, in the same order.

// addAll adds w times each value of a posting list (docs, vals) to the sum
// (acc) of its unit that the group (bit) has not met, and sets the group's
// bit in the unit's mask; with restrict, on the units touched already
// (a non-zero mask) only. It returns touched with the units met for the
// first time, in posting order.
func addAll(docs []uint32, vals []float32, w float32, acc []float32, mask []uint64, bit uint64, restrict bool, touched []uint32) []uint32 {
	vals, acc = vals[:len(docs)], acc[:len(mask)]
	n := len(touched)
	joins := min(len(docs), len(mask)-n) // at most every unit not touched yet
	touched = slices.Grow(touched, joins)[:n+joins]
	for k, d := range docs {
		m := mask[d]
		if m&bit != 0 || (restrict && m == 0) {
			continue
		}
		if m == 0 {
			touched[n] = d
			n++
		}
		acc[d] += vals[k] * w
		mask[d] = m | bit
	}
	return touched[:n]
}

// addRanked is addAll on the touched units, each looked up in a term's
// rank bitmap (words, ranks; see postings.dense) instead of walking its
// list. A touched unit has a mask: none joins touched.
func addRanked(touched []uint32, words []uint64, ranks []uint32, vals []float32, w float32, acc []float32, mask []uint64, bit uint64) {
	acc = acc[:len(mask)]
	for _, d := range touched {
		m := mask[d]
		if m&bit != 0 {
			continue
		}
		x, b := words[d>>6], uint64(1)<<(d&63)
		if x&b == 0 {
			continue
		}
		i := ranks[d>>6] + uint32(bits.OnesCount64(x&(b-1)))
		acc[d] += vals[i] * w
		mask[d] = m | bit
	}
}

// bestOf keeps w times each value of a posting list (docs, vals) as its
// unit's best of the group (bit) so far (keepBest), for the units the
// group has not met; with restrict, for the units touched already only.
// It returns gt with the units it kept a first value for.
func bestOf(docs []uint32, vals []float32, w float32, mask []uint64, bit uint64, restrict bool, best []float32, gt []uint32) []uint32 {
	vals, best = vals[:len(docs)], best[:len(mask)]
	n := len(gt)
	gt = slices.Grow(gt, len(docs))[:n+len(docs)]
	for k, d := range docs {
		if m := mask[d]; m&bit != 0 || (restrict && m == 0) {
			continue
		}
		s := vals[k] * w
		if best[d] == 0 {
			best[d] = s
			gt[n] = d
			n++
			continue
		}
		best[d] = max(best[d], s)
	}
	return gt[:n]
}

// bestRanked is bestOf on the touched units, each looked up in a term's
// rank bitmap (addRanked).
func bestRanked(touched []uint32, words []uint64, ranks []uint32, vals []float32, w float32, mask []uint64, bit uint64, best []float32, gt []uint32) []uint32 {
	best = best[:len(mask)]
	n := len(gt)
	gt = slices.Grow(gt, len(touched))[:n+len(touched)]
	for _, d := range touched {
		if mask[d]&bit != 0 {
			continue
		}
		x, b := words[d>>6], uint64(1)<<(d&63)
		if x&b == 0 {
			continue
		}
		i := ranks[d>>6] + uint32(bits.OnesCount64(x&(b-1)))
		s := vals[i] * w
		if best[d] == 0 {
			best[d] = s
			gt[n] = d
			n++
			continue
		}
		best[d] = max(best[d], s)
	}
	return gt[:n]
}

// matchFields returns the fields in which the query of groups, whose
// scores sc holds, met operation d (see fieldMatches). It is worked out
// on the first call for d (or by the re-ranker's features) and kept in
// sc.fields until sc is cleared: only the candidates that the re-ranker
// scores and a result explains need it, not every operation met.
func (r *Router) matchFields(groups []group, d uint32, sc *scratch) uint16 {
	fm := sc.fields[d]
	if fm == 0 && sc.mask[d] != 0 {
		fm, _, _, _ = r.fieldMatches(groups, d, sc.mask[d])
		sc.fields[d] = fm
	}
	return fm
}

// keepBest records s as unit d's best variant of the group being scored,
// adding d to gt when the group meets it for the first time.
func keepBest(best []float32, gt []uint32, d uint32, s float32) []uint32 {
	if best[d] == 0 {
		best[d] = s
		return append(gt, d)
	}
	best[d] = max(best[d], s)
	return gt
}

// agrees reports whether operation d's id words or resource words include
// one of g's resource variants: "tickets" agrees with tickets.list and
// reports.ticket_volume, not with orgs.list (whose summary mentions open
// tickets). The signatures rule out most operations where it is called,
// in the scoring loops: only the rest pay for a call (it inlines).
func (ix *index) agrees(g *group, d uint32) bool {
	return ix.resSig[d]&g.resSig != 0 && ix.agreesByWords(g, d)
}

// agreesByWords is agrees past the signatures: the lists themselves.
func (ix *index) agreesByWords(g *group, d uint32) bool {
	for _, t := range g.res[:g.nres] {
		if slices.Contains(ix.idTerms.of(d), t) || slices.Contains(ix.resTerms.of(d), t) {
			return true
		}
	}
	return false
}

// termBit is term t's bit in a 64-bit signature of a set of terms.
func termBit(t uint32) uint64 { return 1 << ((t * 0x9E3779B1) >> 26) }

// sortHits sorts h best first (see better).
func sortHits(h []hit) { slices.SortFunc(h, compareHits) }

// compareHits is better as a comparison: negative when a is better than
// b, positive when b is, 0 when neither is. It gives what two calls of
// better would (a NaN score is neither better nor worse than any), in
// one pass.
func compareHits(a, b hit) int {
	switch {
	case a.s > b.s:
		return -1
	case a.s < b.s:
		return 1
	case a.s == b.s:
		return cmp.Compare(a.d, b.d)
	}
	return 0
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

// scopeRes fills buf, for each scope an operation can have (scopeItem,
// scopeCollection), with the resources the query names in that scope: one
// item of a resource, when a query word followed by an identifier names it
// ("issue" in "show issue 1347": GET /issues/{issue_number}, not DELETE
// /issues/comments/{id}), or a singular noun is read, changed or deleted;
// its collection, when a read names it in the plural ("show me open
// tickets": tickets.list, not tickets.get), or a singular noun is
// created. They depend on the query only, so score works them out once
// and the boost of each operation looks its nouns up in one of them
// (booster.scopeAgrees).
func (r *Router) scopeRes(groups []group, qverb verbClass, buf *[3][]uint32) {
	reads := qverb.reads()
	for s := range buf {
		buf[s] = buf[s][:0]
	}
	for i := range groups {
		g := &groups[i]
		var s int8
		switch {
		case g.item, g.one && (qverb == verbRead || qverb == verbUpdate || qverb == verbDelete):
			s = scopeItem
		case g.many && reads && r.tu.pluralList, g.one && qverb == verbCreate:
			s = scopeCollection
		default:
			continue
		}
		buf[s] = append(buf[s], g.res[:g.nres]...)
	}
}

// scopeAgrees reports whether operation d acts on what the query asks of
// a resource it names: one item of it or its collection (see scopeRes).
func (b *booster) scopeAgrees(d uint32) bool {
	ix := b.r.idx
	res := b.scopeRes[ix.scope[d]]
	return len(res) > 0 && ix.itemTerms.hasAny(d, res)
}
