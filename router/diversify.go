package router

import (
	"math"
	"math/bits"
)

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

// pick is a candidate of diversify's pool with what its value is made of
// that stays the same from one pick to the next: its score relative to
// the leader's, the content words it matched, and their weight. Only the
// novelty left to those words changes.
type pick struct {
	hit
	rel, all float32
	words    uint64
}

// diversify reorders hits (best first) and returns at most limit of them.
// groups and mask say which query words each document matched; the
// word's coverage weight measures its novelty.
func (r *Router) diversify(groups []group, hits []hit, limit int, sc *scratch) []hit {
	lambda := r.tu.diversity
	if lambda <= 0 || len(hits) <= 2 || !(hits[0].s > 0) {
		// Nothing to reorder, or no positive leader to scale by (the
		// scores would divide by zero).
		return hits[:min(limit, len(hits))]
	}
	// The words that count: single content words.
	var content uint64
	var cov [maxGroups]float32
	for gi := range groups {
		if g := &groups[gi]; !g.bigram && !g.verb && g.cov > 0 {
			content |= 1 << uint(gi)
			cov[gi] = g.cov
		}
	}
	// seen[g] is the novelty factor left for word g.
	var seen [maxGroups]float32
	for i := range groups {
		seen[i] = 1
	}
	decay := r.tu.coveredDecay
	cover := func(mask uint64) {
		for m := mask & content; m != 0; m &= m - 1 {
			seen[bits.TrailingZeros64(m)] *= decay
		}
	}
	top := hits[0].s
	out := append(sc.div[:0], hits[0])
	rest := sc.divRest[:0]
	for _, h := range hits[1:] {
		p := pick{hit: h, rel: h.s / top, words: sc.mask[h.d] & content}
		for m := p.words; m != 0; m &= m - 1 {
			p.all += cov[bits.TrailingZeros64(m)]
		}
		rest = append(rest, p)
	}
	cover(sc.mask[hits[0].d])
	for len(out) < limit && len(rest) > 0 {
		bi, bv := 0, float32(math.Inf(-1))
		for i := range rest {
			p := &rest[i]
			var got float32
			for m := p.words; m != 0; m &= m - 1 {
				gi := bits.TrailingZeros64(m)
				got += cov[gi] * seen[gi]
			}
			nov := float32(0)
			if p.all > 0 {
				nov = got / p.all
			}
			if v := p.rel * (1 - lambda + lambda*nov); v > bv {
				bi, bv = i, v
			}
		}
		h := rest[bi].hit
		out = append(out, h)
		rest = append(rest[:bi], rest[bi+1:]...)
		cover(sc.mask[h.d])
	}
	sc.div, sc.divRest = out, rest
	return out
}
