package router

import "slices"

// Multi-intent queries ("get the DNS records of example.com. Also, who
// owns it?") ask for several operations. The whole query ranks operations
// that match most of its words; each clause searched alone ranks the one
// operation that clause asks for. Search fuses the two.
const (
	// clauseWeight scales each clause's normalised score (its score over
	// its clause leader's) added to the whole query's normalised score.
	clauseWeight = 0.10
	// minClauseGroups is the number of known content words a clause needs
	// to be searched alone; shorter pieces ("thanks!") are context.
	minClauseGroups = 2
	// fusePool is how many candidates the whole query and each clause
	// contribute to the fusion, at least.
	fusePool = 20
	// maxClauses bounds the work of a very long query.
	maxClauses = 6
)

// clauseSpans splits intent into clauses at sentence ends (. ? ! ; and
// line breaks), appending [start, end) byte offsets to out. A dot between
// two non-space characters ("example.com", "v1.2") does not end a sentence.
func clauseSpans(intent string, out [][2]int) [][2]int {
	start := 0
	for i := 0; i < len(intent); i++ {
		c := intent[i]
		end := false
		switch c {
		case '?', '!', ';', '\n':
			end = true
		case '.':
			end = i+1 >= len(intent) || intent[i+1] == ' ' || intent[i+1] == '\n' || intent[i+1] == '\t'
		}
		if end {
			if i > start {
				out = append(out, [2]int{start, i})
			}
			start = i + 1
		}
	}
	if start < len(intent) {
		out = append(out, [2]int{start, len(intent)})
	}
	return out
}

// contentGroups counts the groups that are known, content (not verbs) and
// single words.
func contentGroups(groups []group) int {
	n := 0
	for i := range groups {
		if g := &groups[i]; g.known && !g.verb && !g.bigram && g.cov > 0 {
			n++
		}
	}
	return n
}

// fuseClauses re-ranks whole, the whole query's hits (its scores are in
// acc for every touched document), with the rankings of each clause of
// intent searched alone, and returns the best limit, written over *out
// (which keeps the array for the next query). sc2 is a scratch for the
// clause searches.
func (r *Router) fuseClauses(intent string, whole []hit, acc []float32, f Filter, limit int, sc2 *scratch, out *[]hit) []hit {
	if len(whole) == 0 {
		return whole
	}
	spans := clauseSpans(intent, sc2.spans[:0])
	sc2.spans = spans
	top := whole[0].s
	fused := sc2.fused[:0]
	for _, h := range whole {
		fused = append(fused, hit{h.d, h.s / top})
	}
	n := 0
	for _, sp := range spans {
		if len(spans) < 2 {
			break // one sentence: nothing to fuse
		}
		if n == maxClauses {
			break
		}
		groups, qverb := r.analyze(intent[sp[0]:sp[1]], sc2)
		if contentGroups(groups) < minClauseGroups {
			continue
		}
		n++
		// A clause is one request, as the re-ranker's weights were
		// learned on: they order its ranking before it is fused.
		hits, ctotal := r.score(groups, qverb, f, max(limit, fusePool), sc2)
		if r.tu.clauseRerank {
			hits = r.rerank(groups, qverb, hits, ctotal, sc2)
		}
		sc2.clear()
		if len(hits) == 0 {
			continue
		}
		ctop := hits[0].s
		for _, h := range hits {
			add := r.tu.clause * h.s / ctop
			k := slices.IndexFunc(fused, func(x hit) bool { return x.d == h.d })
			if k < 0 {
				fused = append(fused, hit{h.d, acc[h.d]/top + add})
			} else {
				fused[k].s += add
			}
		}
	}
	if n < 2 {
		fused = fused[:len(whole)] // one clause: the whole query's ranking
	}
	for i := range fused {
		fused[i].s *= top
	}
	sortHits(fused)
	sc2.fused = fused
	*out = append((*out)[:0], fused[:min(limit, len(fused))]...)
	return *out
}
