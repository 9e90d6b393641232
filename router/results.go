package router

import (
	"cmp"
	"slices"

	"github.com/buger/jsonparser"

	"github.com/intentsrv/intentsrv/operations"
)

// The last resort: what operations return.
//
// A request whose words meet no operation's id, summary, description,
// parameters, path or learned neighbour may still name what an operation
// returns: "how many calories does an apple have" over a fruit API whose
// operations say "fruit" and return nutritions.calories. Indexing result
// fields beside the other fields moves every ranking (the corpus
// benchmark's tune split lost 0.002 of top-1 and the helpdesk set 0.013,
// BENCHMARKS.md round 29), so they answer only a request that nothing
// else meets, which would otherwise be told that nothing here serves it
// (ablation "result-fields"). Their index is built on the first such
// request, not at startup.

// maxResultWords bounds the words one operation's result gives the last
// resort: a result of hundreds of properties says little of any one.
const maxResultWords = 64

// resultIndex maps a word of a result's property names (lower-cased,
// singular) to the operations that return it, in catalog order.
type resultIndex map[string][]uint32

// buildResultIndex indexes the property names of what each operation
// returns (of its items, for an array), two levels deep, following $refs
// into the schema's own $defs.
func buildResultIndex(ops []*operations.Operation) resultIndex {
	ix := resultIndex{}
	var words []string
	for d, op := range ops {
		if len(op.Output) == 0 {
			continue
		}
		words = resultWords(op.Output, words[:0])
		for _, w := range words {
			if list := ix[w]; len(list) == 0 || list[len(list)-1] != uint32(d) {
				ix[w] = append(list, uint32(d))
			}
		}
	}
	return ix
}

// resultWords appends to dst the distinct words (singular) of the
// property names of the result schema describes, at most maxResultWords.
func resultWords(schema []byte, dst []string) []string {
	defs, _, _, _ := jsonparser.Get(schema, "$defs")
	var walk func(s []byte, depth int)
	walk = func(s []byte, depth int) {
		for range 4 { // through a $ref to an array of $refs, at most
			ref, _, items := schemaName(s)
			if ref != "" && defs != nil {
				d, _, _, err := jsonparser.Get(defs, ref)
				if err != nil {
					return
				}
				s = d
				continue
			}
			if items == nil {
				break
			}
			s = items
		}
		jsonparser.ObjectEach(s, func(k, v []byte, _ jsonparser.ValueType, _ int) error {
			splitWords(string(k), func(w string) {
				if w = plural(w); len(dst) < maxResultWords && !isStopWord(w) && !slices.Contains(dst, w) {
					dst = append(dst, w)
				}
			})
			if depth > 1 {
				walk(v, depth-1)
			}
			return nil
		}, "properties")
	}
	walk(schema, 2)
	return dst
}

// lastResort returns, best first and at most limit, the operations f
// allows whose results name words of the request (words, as analyze
// read them), when the rule is on; the more of its words, the better,
// then catalog order. Their confidence is low: a result's field says what
// an operation gives, not what it does.
func (r *Router) lastResort(words []string, f Filter, limit int) []Candidate {
	if r.opts.noResultFields || limit <= 0 {
		return nil
	}
	r.resultsOnce.Do(func() { r.results = buildResultIndex(r.ops) })
	if len(r.results) == 0 {
		return nil
	}
	type met struct {
		d     uint32
		words []string
	}
	var found []met
	at := map[uint32]int{} // operation → its place in found
	for _, w := range words {
		if isStopWord(w) || isNumber(w) || isQueryFiller(w) {
			continue
		}
		for _, d := range r.results[plural(w)] {
			if !r.allowed(&f, d) {
				continue
			}
			if i, ok := at[d]; ok {
				if !slices.Contains(found[i].words, w) {
					found[i].words = append(found[i].words, w)
				}
				continue
			}
			at[d] = len(found)
			found = append(found, met{d, []string{w}})
		}
	}
	slices.SortStableFunc(found, func(a, b met) int {
		return cmp.Or(cmp.Compare(len(b.words), len(a.words)), cmp.Compare(a.d, b.d))
	})
	out := make([]Candidate, 0, min(limit, len(found)))
	for _, m := range found[:min(limit, len(found))] {
		out = append(out, Candidate{
			Op: r.ops[m.d], Score: float64(len(m.words)),
			Confidence: lastResortConfidence, Matched: m.words, Fields: []string{"returns"},
		})
	}
	return out
}

// lastResortConfidence is the confidence of a candidate found only by
// what it returns: below every decision threshold, shown as low.
const lastResortConfidence = 0.05
