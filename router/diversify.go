package router

// A query that asks for several things ("the retweets, likes and comments
// of a tweet") is served by several operations, one per thing. A plain
// score order fills the top ranks with operations that all match the same
// few words. Diversification reorders the pool greedily: each pick is the
// best score discounted for the query words already covered by the
// operations picked before it, so an operation that adds a word nobody
// above it matched moves up. The leader never changes.
const (
	// diversity is the share of an operation's score that depends on
	// novelty: 0 keeps the score order, 1 ranks by novelty alone.
	diversity = 0.5
	// coveredDecay scales a query word's novelty each time an operation
	// above covers it.
	coveredDecay = 0.5
	// diversePool is how many candidates diversification chooses from.
	diversePool = 20
)

// diversify reorders hits (best first) and returns at most limit of them.
// groups and mask say which query words each document matched; the
// word's coverage weight measures its novelty.
func (r *Router) diversify(groups []group, hits []hit, limit int, sc *scratch) []hit {
	lambda := r.tu.diversity
	if lambda <= 0 || len(hits) <= 2 {
		return hits[:min(limit, len(hits))]
	}
	// seen[g] is the novelty factor left for group g.
	var seen [maxGroups]float32
	for i := range groups {
		seen[i] = 1
	}
	top := hits[0].s
	out := sc.div[:0]
	out = append(out, hits[0])
	rest := append(sc.divRest[:0], hits[1:]...)
	r.cover(groups, sc.mask[hits[0].d], &seen)
	for len(out) < limit && len(rest) > 0 {
		bi, bv := -1, float32(-1)
		for i, h := range rest {
			v := h.s / top * (1 - lambda + lambda*r.novelty(groups, sc.mask[h.d], &seen))
			if v > bv {
				bi, bv = i, v
			}
		}
		h := rest[bi]
		out = append(out, h)
		rest = append(rest[:bi], rest[bi+1:]...)
		r.cover(groups, sc.mask[h.d], &seen)
	}
	sc.div, sc.divRest = out, rest
	return out
}

// novelty is the share of the coverage weight of the words in mask that
// no operation picked so far has covered (decayed per cover).
func (r *Router) novelty(groups []group, mask uint64, seen *[maxGroups]float32) float32 {
	var got, all float32
	for gi := range groups {
		g := &groups[gi]
		if mask&(1<<uint(gi)) == 0 || g.bigram || g.verb || g.cov <= 0 {
			continue
		}
		all += g.cov
		got += g.cov * seen[gi]
	}
	if all == 0 {
		return 0
	}
	return got / all
}

// cover decays the novelty of the words in mask.
func (r *Router) cover(groups []group, mask uint64, seen *[maxGroups]float32) {
	for gi := range groups {
		if mask&(1<<uint(gi)) != 0 {
			seen[gi] *= r.tu.coveredDecay
		}
	}
}
