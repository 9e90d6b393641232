package router

import (
	"slices"
)

// The lexical retrieval stage: BM25F postings accumulated group by group,
// frequent terms bounded by MaxScore (pruning), the per-operation boosts,
// and the top of the ranking.

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
	*prune = pruning{r: r, sc: sc, limit: limit, slack: pruneSlack, filter: f}
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
	r      *Router
	sc     *scratch
	limit  int
	slack  float32
	filter Filter
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
	kth := pr.r.kthAllowed(touched, acc, pr.filter, pr.limit, pr.sc)
	return kth > 0 && rest*pr.slack < kth
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
		restrict := pass == 1 && len(touched) > 0 && (prune == nil || prune.safe(p, groups, touched, acc, heavyPostings))
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
