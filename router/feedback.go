package router

import (
	"slices"
)

// Pseudo-relevance feedback (RM3-style). A long request names a service's
// data ("the channel clips and the channel details") in words that only
// some of the endpoints it wants share; the endpoints the first pass ranks
// best say the rest: their service's name, their resource nouns. Search
// takes the distinctive words of the top feedback documents, weighted by
// their first-pass scores and by the words' BM25F weight in them, and adds
// to the documents that share those words a capped share of the leader's
// score. The decision (no match, run) stays the first pass's.
const (
	// prfDocs is the number of first-pass leaders whose words feed back
	// (1 was best of 1, 2, 3, 5, 10 on both dev sets: the runner-up is
	// often another service).
	prfDocs = 1
	// prfTerms caps the number of feedback words.
	prfTerms = 5
	// prfWeight is the largest lift, as a share of the leader's score, of
	// the document closest to the feedback words.
	prfWeight = 0.1
	// prfMinCoverage is the coverage (share of the query's weight) the
	// first-pass leader needs for its words to be trusted.
	prfMinCoverage = 0.1
	// prfMinGroups is the number of known content words a query needs
	// for feedback: a short request is already precise, and its speed
	// matters most.
	prfMinGroups = 2 * minClauseGroups
)

// fwdPostings is the forward index used by feedback: the words of
// operation d are term[start[d]:start[d+1]], with their BM25F
// contributions in val. Only plural-folded words (no stems, no pairs) that
// occur in two operations or more and are not heavy are kept: a word of
// one operation lifts no other, and a frequent one lifts everything.
type fwdPostings struct {
	start []uint32
	term  []uint32
	val   []float32
}

// buildForward inverts the postings of the feedback words.
func (ix *index) buildForward(n int) {
	heavy := heavyLimit(n)
	keep := func(t int) bool {
		k := ix.vocab[t]
		df := ix.post.start[t+1] - ix.post.start[t]
		return isWordKey(k) && df >= 2 && df <= heavy
	}
	f := &ix.fwd
	f.start = make([]uint32, n+1)
	for t := range ix.vocab {
		if !keep(t) {
			continue
		}
		for _, d := range ix.post.doc[ix.post.start[t]:ix.post.start[t+1]] {
			f.start[d+1]++
		}
	}
	for d := range n {
		f.start[d+1] += f.start[d]
	}
	f.term = make([]uint32, f.start[n])
	f.val = make([]float32, f.start[n])
	at := slices.Clone(f.start[:n])
	for t := range ix.vocab {
		if !keep(t) {
			continue
		}
		lo, hi := ix.post.start[t], ix.post.start[t+1]
		for k := lo; k < hi; k++ {
			d := ix.post.doc[k]
			f.term[at[d]] = uint32(t)
			f.val[at[d]] = ix.post.val[k]
			at[d]++
		}
	}
}

// feedback re-ranks after a first pass whose scores are in sc.acc for the
// documents in sc.touched and whose best hits are first. It returns the
// best limit documents that pass f, or first unchanged when the leader is
// not trusted.
func (r *Router) feedback(groups []group, first []hit, total float32, f Filter, limit int, sc *scratch) []hit {
	ix := r.idx
	if len(first) < 2 || len(ix.fwd.start) == 0 || r.tu.prf <= 0 || total <= 0 {
		return first
	}
	if contentGroups(groups) < r.tu.prfMinGroups || r.coverage(groups, sc.mask[first[0].d], total) < float64(r.tu.prfMinCov) {
		return first
	}
	top := first[0].s
	// Candidate words: (term, weight) from each feedback document.
	cand := sc.fb[:0]
	for _, h := range first[:min(r.tu.prfDocs, len(first))] {
		rel := h.s / top
		lo, hi := ix.fwd.start[h.d], ix.fwd.start[h.d+1]
		for k := lo; k < hi; k++ {
			cand = append(cand, variant{t: ix.fwd.term[k], w: rel * ix.fwd.val[k]})
		}
	}
	slices.SortFunc(cand, func(a, b variant) int { return int(a.t) - int(b.t) })
	merged := cand[:0]
	for _, c := range cand {
		if n := len(merged); n > 0 && merged[n-1].t == c.t {
			merged[n-1].w += c.w
			continue
		}
		merged = append(merged, c)
	}
	// Words the query already says are scored already.
	terms := merged[:0]
	for _, c := range merged {
		if !sc.qterms.has(c.t) {
			terms = append(terms, c)
		}
	}
	slices.SortFunc(terms, func(a, b variant) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		return int(a.t) - int(b.t)
	})
	terms = terms[:min(r.tu.prfTerms, len(terms))]
	sc.fb = cand
	if len(terms) == 0 {
		return first
	}
	var sum float32
	for _, c := range terms {
		sum += c.w
	}
	// E(d) = Σ weight(t)·val(t, d), normalised by its largest value.
	e := sc.best
	et := sc.gtouched[:0]
	var emax float32
	for _, c := range terms {
		w := c.w / sum
		lo, hi := ix.post.start[c.t], ix.post.start[c.t+1]
		for k := lo; k < hi; k++ {
			d := ix.post.doc[k]
			if e[d] == 0 {
				et = append(et, d)
			}
			e[d] += w * ix.post.val[k]
			emax = max(emax, e[d])
		}
	}
	lift := r.tu.prf * top / emax
	for _, d := range et {
		if sc.pre != nil && !sc.pre.has(d) {
			e[d] = 0 // left out by the filter, never scored (premask)
			continue
		}
		if sc.acc[d] == 0 && sc.mask[d] == 0 {
			sc.touched = append(sc.touched, d)
		}
		sc.acc[d] += lift * e[d]
		e[d] = 0
	}
	sc.gtouched = et
	// The lift only adds: the first pass's limit-th score is the floor
	// of the new top, unless the first pass found fewer.
	floor := noFloor
	if len(first) == limit {
		floor = first[limit-1].s
	}
	return r.selectAbove(sc.touched, sc.acc, f, limit, floor, sc, &sc.ranked[1])
}
