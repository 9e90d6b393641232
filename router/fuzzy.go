package router

import (
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"
)

// Fuzzy id matching thresholds.
const (
	// minEditSimilarity is the least 1 - distance/length for an id (or a
	// dotted suffix of it) to be offered for a mistyped id.
	minEditSimilarity = 0.7
	// minSubsequenceRatio is the least len(query)/len(id) for a
	// subsequence (abbreviation) match of sahilm/fuzzy to count.
	minSubsequenceRatio = 0.45
)

type idName struct {
	s string
	d int32
}

// names are the ids and aliases, for fuzzy matching.
func (r *Router) idNames() []idName {
	r.namesOnce.Do(func() {
		r.names = make([]idName, 0, len(r.exact))
		for i, op := range r.ops {
			r.names = append(r.names, idName{op.ID, int32(i)})
			for _, a := range op.Aliases {
				if a = strings.TrimSpace(a); a != "" {
					r.names = append(r.names, idName{strings.ToLower(a), int32(i)})
				}
			}
		}
	})
	return r.names
}

type nameSource []idName

func (s nameSource) String(i int) string { return s[i].s }
func (s nameSource) Len() int            { return len(s) }

type suggestion struct {
	d   int32
	sim float64
}

// Suggest returns did-you-mean ids for a mistyped or unknown id, best first,
// at most limit (≤ 0 means 5). It matches ids and aliases by edit distance
// (also against their dotted suffixes, for ids given without a namespace)
// and by subsequence (sahilm/fuzzy, for abbreviations). It is empty when
// nothing is close.
func (r *Router) Suggest(id string, f Filter, limit int) []string {
	if limit <= 0 {
		limit = 5
	}
	sug := r.suggest(id, f, limit)
	out := make([]string, len(sug))
	for i, s := range sug {
		out[i] = r.ops[s.d].ID
	}
	return out
}

func (r *Router) suggest(id string, f Filter, limit int) []suggestion {
	q := strings.ToLower(strings.TrimSpace(id))
	if q == "" {
		return nil
	}
	names := r.idNames()
	best := map[int32]float64{}
	consider := func(d int32, sim float64) {
		if sim > best[d] {
			best[d] = sim
		}
	}
	maxD := max(1, min(3, len(q)/4))
	for _, n := range names {
		s := n.s
		for {
			if abs(len(s)-len(q)) <= maxD {
				if dist := osaDistance(q, s, maxD); dist <= maxD {
					sim := 1 - float64(dist)/float64(max(len(q), len(s)))
					if s != n.s {
						sim -= 0.05 // a suffix match is a little weaker
					}
					if sim >= minEditSimilarity {
						consider(n.d, sim)
					}
				}
			}
			i := strings.IndexByte(s, '.')
			if i < 0 {
				break
			}
			s = s[i+1:]
		}
	}
	if len(q) >= 3 {
		for _, m := range fuzzy.FindFrom(q, nameSource(names)) {
			ratio := float64(len(q)) / float64(len(m.Str))
			if ratio < minSubsequenceRatio {
				continue
			}
			consider(names[m.Index].d, 0.5+0.3*ratio)
		}
	}
	out := make([]suggestion, 0, len(best))
	for d, sim := range best {
		if r.allowed(&f, uint32(d)) {
			out = append(out, suggestion{d, sim})
		}
	}
	slices.SortFunc(out, func(a, b suggestion) int {
		if a.sim != b.sim {
			if a.sim > b.sim {
				return -1
			}
			return 1
		}
		return int(a.d - b.d)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// fuzzyResult answers an id-like query that is not an exact id: close ids
// first, then the lexical hits. It never decides to run.
func (r *Router) fuzzyResult(intent string, hits []hit, f Filter, limit int, sc *scratch) Result {
	sug := r.suggest(intent, f, limit)
	if len(sug) == 0 {
		return Result{}
	}
	var res Result
	res.Decision = DecisionChoose
	top := float64(0)
	if len(hits) > 0 {
		top = float64(hits[0].s)
	}
	seen := map[int32]bool{}
	for _, s := range sug {
		seen[s.d] = true
		res.Candidates = append(res.Candidates, Candidate{
			Op: r.ops[s.d], Score: top + s.sim, Confidence: s.sim * 0.8,
			Matched: []string{strings.TrimSpace(intent)}, Fields: []string{"id"},
		})
	}
	ex := r.newExplainer(sc.groups, hits, sc)
	for _, h := range hits {
		if len(res.Candidates) >= limit {
			break
		}
		if seen[int32(h.d)] {
			continue
		}
		c := Candidate{Op: r.ops[h.d], Score: float64(h.s), Confidence: 0.3 * float64(h.s) / max(top, 1e-9)}
		c.Matched, c.Fields = ex.explain(sc.mask[h.d], r.matchFields(sc.groups, h.d, sc))
		res.Candidates = append(res.Candidates, c)
	}
	return res
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// osaDistance is the optimal-string-alignment (restricted Damerau–
// Levenshtein) distance between a and b in bytes; it returns k+1 as soon as
// the distance must exceed k.
func osaDistance(a, b string, k int) int {
	la, lb := len(a), len(b)
	if abs(la-lb) > k {
		return k + 1
	}
	var buf [3][130]int
	if lb+1 > len(buf[0]) {
		return k + 1
	}
	prev2, prev, cur := buf[0][:lb+1], buf[1][:lb+1], buf[2][:lb+1]
	for j := 0; j <= lb; j++ {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > k {
			return k + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[lb]
}
