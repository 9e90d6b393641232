package router

import (
	"math"
	"slices"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/intentsrv/intentsrv/operations"
)

// field identifies one indexed part of an operation.
type field uint8

const (
	fName      field = iota // the operation name: the last id segment
	fNamespace              // the namespace (id without its name)
	fSummary                // the one-line summary
	fDesc                   // the description
	fTags                   // tags
	fAlias                  // aliases
	fExample                // example intents
	fParam                  // parameter names
	fParamDesc              // parameter descriptions
	fPath                   // HTTP method and path words
	numFields
)

var fieldNames = [numFields]string{
	fName: "id", fNamespace: "namespace", fSummary: "summary", fDesc: "description",
	fTags: "tags", fAlias: "aliases", fExample: "examples", fParam: "params",
	fParamDesc: "params", fPath: "path",
}

// Per-field BM25F weights: how much one occurrence in the field counts,
// relative to one in the description. Tuned on the dev sets (see doc.go and
// BENCHMARKS.md).
const (
	weightName      = 3.0
	weightNamespace = 1.5
	weightSummary   = 1.5
	weightDesc      = 1.0
	weightTags      = 1.0
	weightAlias     = 2.5
	weightExample   = 1.5
	weightParam     = 0.6
	weightParamDesc = 0.6
	weightPath      = 1.0
)

// Per-field length normalisation (BM25 b): short fields are normalised less.
const (
	bName  = 0.3
	bShort = 0.5
	bLong  = 0.75
)

// bm25K1 is the BM25 term-frequency saturation constant.
const bm25K1 = 0.9

// tuning gathers the constants, so that tests can search over them.
type tuning struct {
	k1                                             float64
	w, b                                           [numFields]float64
	syn, verb, corr, vboost, stem, bigram, idBoost float32
	ns                                             float32
}

func defaultTuning() tuning {
	return tuning{
		k1: bm25K1, w: fieldWeights, b: fieldB,
		syn: weightSynonym, verb: weightVerb, corr: weightCorrection, vboost: verbBoost, stem: weightStem, bigram: weightBigram, idBoost: idWordsBoost,
		ns: weightNamespaceMatch,
	}
}

func (o *Options) tuning() tuning {
	if o.tune != nil {
		return *o.tune
	}
	return defaultTuning()
}

var fieldWeights = [numFields]float64{
	fName: weightName, fNamespace: weightNamespace, fSummary: weightSummary,
	fDesc: weightDesc, fTags: weightTags, fAlias: weightAlias,
	fExample: weightExample, fParam: weightParam, fParamDesc: weightParamDesc,
	fPath: weightPath,
}

var fieldB = [numFields]float64{
	fName: bName, fNamespace: bName, fSummary: bShort, fDesc: bLong,
	fTags: bShort, fAlias: bShort, fExample: bLong, fParam: bShort,
	fParamDesc: bLong, fPath: bShort,
}

// index is the inverted index: integer term ids, flat postings lists.
type index struct {
	terms   map[string]uint32 // word or ~stem → term id
	bigrams map[uint64]uint32 // (stem term, stem term) → term id
	stems   map[string]string // surface word → stem, for words seen at build
	idf     []float32         // per term, over operations
	post    postings          // term → operations
	ns      postings          // term → namespaces (of two or more operations)
	nsOf    []int32           // operation → namespace unit, -1 when alone
	nsUnits int
	// idTerms of operation d are idTerm[idStart[d]:idStart[d+1]]: the words
	// of its resource (last namespace segment) and name, as terms.
	idStart []uint32
	idTerm  []uint32
	maxIDF  float32 // idf of a term seen in no document
	noStem  bool
	deletes map[string][]uint32 // spelling correction: one-deletion variants → term ids
	vocab   []string            // term id → stem
}

// termEntry packs (term, field, tf) into one integer, so that sorting
// entries by term then field is a plain integer sort.
type termEntry uint64

func mkEntry(t uint32, f field, tf uint16) termEntry {
	return termEntry(uint64(t)<<24 | uint64(f)<<16 | uint64(tf))
}

func (e termEntry) t() uint32  { return uint32(e >> 24) }
func (e termEntry) f() field   { return field(e >> 16) }
func (e termEntry) tf() uint16 { return uint16(e) }

// stemOf returns the stem of a surface word (cached for indexed words).
func (ix *index) stemOf(w string) string {
	if s, ok := ix.stems[w]; ok {
		return s
	}
	return stem(w)
}

// cacheStem stems w once at build time.
func (ix *index) cacheStem(w string) string {
	s, ok := ix.stems[w]
	if !ok {
		s = stem(w)
		ix.stems[w] = s
	}
	return s
}

// bigramField marks the short, name-like fields whose adjacent word pairs
// are indexed: "channel clips" in a name is stronger evidence than
// "channel" and "clips" apart.
var bigramField = [numFields]bool{fDesc: true, fName: true, fNamespace: true, fSummary: true, fTags: true, fAlias: true, fExample: true, fParam: true}

// nsField marks the fields merged into namespace documents.
var nsField = [numFields]bool{fName: true, fNamespace: true, fSummary: true, fTags: true, fAlias: true, fExample: true}

// bigram returns the term id of two adjacent words, given as their stem
// terms; add says whether to create it. ok is false when it is unknown.
func (ix *index) bigram(a, b uint32, add bool) uint32 {
	k := uint64(a)<<32 | uint64(b)
	if t, ok := ix.bigrams[k]; ok {
		return t
	}
	if !add {
		return noTerm
	}
	t := uint32(len(ix.vocab))
	ix.vocab = append(ix.vocab, "") // bigrams have no spelling
	ix.bigrams[k] = t
	return t
}

// noTerm is an impossible term id.
const noTerm = ^uint32(0)

// stemKey is the term key of a stem. Words are indexed twice, as written
// and as their stem, so that an exact word outranks a word that only shares
// its stem ("nurses" → "nurses" first, then "nursing").
func stemKey(s string) string { return "~" + s }

// intern returns the id of term key k, adding it to the vocabulary.
func (ix *index) intern(k string) uint32 {
	t, ok := ix.terms[k]
	if !ok {
		t = uint32(len(ix.vocab))
		ix.terms[k] = t
		ix.vocab = append(ix.vocab, k)
	}
	return t
}

// lookup returns the variants of surface word w found in the index: the
// word itself (weight 1) and its stem (weight ws).
func (ix *index) lookup(w string, ws float32, out []variant) []variant {
	sdf := uint32(0)
	if t, ok := ix.terms[plural(w)]; ok {
		out = append(out, variant{t: t, w: 1})
		sdf = ix.df(t)
	}
	if !ix.noStem {
		// Skip the stem when it matches exactly the word's operations.
		if t, ok := ix.terms[stemKey(ix.stemOf(w))]; ok && ix.df(t) != sdf {
			out = append(out, variant{t: t, w: ws})
		}
	}
	return out
}

// opFields calls fn with each field's text of op.
func opFields(op *operations.Operation, fn func(f field, text string)) {
	id := op.ID
	ns, name := "", id
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		ns, name = id[:i], id[i+1:]
	}
	fn(fName, name)
	if op.Namespace != "" {
		ns = op.Namespace
	}
	fn(fNamespace, ns)
	fn(fSummary, op.Summary)
	fn(fDesc, op.Description)
	for _, t := range op.Tags {
		fn(fTags, t)
	}
	for _, a := range op.Aliases {
		fn(fAlias, a)
	}
	for _, e := range op.Examples {
		fn(fExample, e.Intent)
	}
	if len(op.Input) > 0 {
		// jsonparser walks the schema without building it: the index
		// build parses every operation's schema.
		jsonparser.ObjectEach(op.Input, func(key, value []byte, _ jsonparser.ValueType, _ int) error {
			fn(fParam, string(key))
			if d, err := jsonparser.GetString(value, "description"); err == nil {
				fn(fParamDesc, d)
			}
			if d, err := jsonparser.GetString(value, "title"); err == nil {
				fn(fParamDesc, d)
			}
			jsonparser.ArrayEach(value, func(v []byte, t jsonparser.ValueType, _ int, _ error) {
				if t == jsonparser.String {
					fn(fParamDesc, string(v))
				}
			}, "enum")
			return nil
		}, "properties")
	}
	if op.HTTP != nil {
		fn(fPath, op.HTTP.Method)
		fn(fPath, op.HTTP.Path)
	}
}

// buildIndex tokenizes every operation and builds the BM25F index.
func buildIndex(ops []*operations.Operation, opts Options) *index {
	ix := &index{
		terms:   make(map[string]uint32, 1024),
		bigrams: make(map[uint64]uint32, 1024),
		stems:   make(map[string]string, 1024),
		noStem:  opts.noStem,
	}
	n := len(ops)
	docTerms := make([][]termEntry, n)
	lens := make([][numFields]uint16, n)
	var cur []termEntry
	type wordInfo struct {
		surface, stem uint32
		skip          bool
	}
	words := make(map[string]wordInfo, 4096)
	for d, op := range ops {
		cur = cur[:0]
		opFields(op, func(f field, text string) {
			if text == "" {
				return
			}
			prev := int64(-1)
			splitBytes(text, func(wb []byte) {
				wi, ok := words[string(wb)] // no allocation on a hit
				if !ok {
					w := string(wb)
					wi = wordInfo{skip: isStopWord(w) || isNumber(w)}
					if !wi.skip {
						wi.surface = ix.intern(plural(w))
						wi.stem = ix.intern(stemKey(ix.cacheStem(w)))
					}
					words[w] = wi
				}
				if wi.skip {
					return
				}
				cur = append(cur, mkEntry(wi.surface, f, 1))
				if !opts.noStem {
					cur = append(cur, mkEntry(wi.stem, f, 1))
				}
				if bigramField[f] && !opts.noBigrams {
					if prev >= 0 {
						cur = append(cur, mkEntry(ix.bigram(uint32(prev), wi.stem, true), f, 1))
					}
					prev = int64(wi.stem)
				}
				if lens[d][f] < math.MaxUint16 {
					lens[d][f]++
				}
			})
		})
		docTerms[d] = slices.Clone(cur)
	}
	df := make([]uint32, len(ix.vocab))
	for d := range docTerms {
		docTerms[d] = mergeEntries(docTerms[d], df)
	}
	ix.idStart = make([]uint32, n+1)
	for d, op := range ops {
		id := op.ID
		parts := strings.Split(id, ".")
		if len(parts) > 2 {
			parts = parts[len(parts)-2:]
		}
		for _, part := range parts {
			splitWords(part, func(w string) {
				if isStopWord(w) || isNumber(w) {
					return
				}
				if t, ok := ix.terms[plural(w)]; ok && !slices.Contains(ix.idTerm[ix.idStart[d]:], t) {
					ix.idTerm = append(ix.idTerm, t)
				}
			})
		}
		ix.idStart[d+1] = uint32(len(ix.idTerm))
	}
	tu := opts.tuning()
	weights := tu.w
	if opts.flatWeights {
		for f := range weights {
			weights[f] = 1
		}
	}
	nt := len(ix.vocab)
	ix.idf = make([]float32, nt)
	for t := range nt {
		ix.idf[t] = float32(bm25IDF(n, int(df[t])))
	}
	ix.maxIDF = float32(bm25IDF(n, 0))

	// Namespace pseudo-documents: every operation of a namespace with at
	// least two operations, merged.
	ix.nsOf = make([]int32, n)
	nsIndex := map[string]int32{}
	var nsMembers [][]int32
	for d, op := range ops {
		ns := op.Namespace
		if ns == "" {
			ns = operations.DefaultNamespace(op.ID)
		}
		k, ok := nsIndex[ns]
		if !ok {
			k = int32(len(nsMembers))
			nsIndex[ns] = k
			nsMembers = append(nsMembers, nil)
		}
		nsMembers[k] = append(nsMembers[k], int32(d))
		ix.nsOf[d] = k
	}
	var nsTerms [][]termEntry
	var nsLens [][numFields]uint16
	nsDF := make([]uint32, nt)
	for _, members := range nsMembers {
		if len(members) < 2 {
			for _, d := range members {
				ix.nsOf[d] = -1
			}
			continue
		}
		var all []termEntry
		var l [numFields]uint16
		for _, d := range members {
			// The namespace document keeps the name-like fields only.
			for _, e := range docTerms[d] {
				if nsField[e.f()] && ix.vocab[e.t()] != "" {
					all = append(all, e)
				}
			}
			for f := range numFields {
				l[f] = uint16(min(math.MaxUint16, int(l[f])+int(lens[d][f])))
			}
		}
		merged := mergeEntries(all, nsDF)
		for _, d := range members {
			ix.nsOf[d] = int32(len(nsTerms))
		}
		nsTerms = append(nsTerms, merged)
		nsLens = append(nsLens, l)
	}
	ix.ns = buildPostings(nsTerms, nsLens, nsDF, weights, tu)
	ix.nsUnits = len(nsTerms)
	ix.post = buildPostings(docTerms, lens, df, weights, tu)
	if !opts.noFuzzy {
		ix.buildDeletes()
	}
	return ix
}

// bm25IDF is the BM25 inverse document frequency, always positive.
func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// buildDeletes indexes every vocabulary term of at least minCorrectLen
// bytes by its one-byte deletions, for distance-1 spelling correction
// (symmetric delete: insertions, deletions, substitutions and
// transpositions all meet on a shared deletion).
func (ix *index) buildDeletes() {
	ix.deletes = make(map[string][]uint32, len(ix.vocab)*4)
	buf := make([]byte, 0, 64)
	for t, s := range ix.vocab {
		if len(s) < minCorrectLen-1 || isNumber(s) || s[0] == '~' {
			continue
		}
		for i := 0; i < len(s); i++ {
			buf = append(buf[:0], s[:i]...)
			buf = append(buf, s[i+1:]...)
			k := string(buf)
			ix.deletes[k] = append(ix.deletes[k], uint32(t))
		}
	}
}

// minCorrectLen is the shortest query word that spelling correction tries
// to fix; shorter words are too ambiguous ("pr" is not a typo of "pi").
const minCorrectLen = 5

// corrections returns vocabulary terms within edit distance one of the
// stem s (which is not itself in the vocabulary), at most max of them,
// preferring frequent terms.
func (ix *index) corrections(s string, max int, out []uint32) []uint32 {
	if ix.deletes == nil || len(s) < minCorrectLen {
		return out
	}
	base := len(out)
	add := func(ts []uint32) {
		for _, t := range ts {
			if !slices.Contains(out[base:], t) && editDistance1(s, ix.vocab[t]) {
				out = append(out, t)
			}
		}
	}
	// s itself may be a deletion of a term (user dropped a letter).
	add(ix.deletes[s])
	var buf [64]byte
	for i := 0; i < len(s); i++ {
		k := append(append(buf[:0], s[:i]...), s[i+1:]...)
		if t, ok := ix.terms[string(k)]; ok && !slices.Contains(out[base:], t) {
			out = append(out, t) // user added a letter
		}
		add(ix.deletes[string(k)])
	}
	if len(out)-base > max {
		got := out[base:]
		slices.SortFunc(got, func(a, b uint32) int {
			return int(ix.df(a)) - int(ix.df(b))
		})
		slices.Reverse(got)
		out = out[:base+max]
	}
	return out
}

func (ix *index) df(t uint32) uint32 { return ix.post.start[t+1] - ix.post.start[t] }

// editDistance1 reports whether a and b are within one insertion,
// deletion, substitution or adjacent transposition.
func editDistance1(a, b string) bool {
	la, lb := len(a), len(b)
	if la < lb {
		a, b, la, lb = b, a, lb, la
	}
	if la-lb > 1 {
		return false
	}
	i := 0
	for i < lb && a[i] == b[i] {
		i++
	}
	if i == lb {
		return true
	}
	if la == lb {
		if a[i+1:] == b[i+1:] {
			return true // substitution
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return a[i+1:] == b[i:]
}

// mergeEntries sorts entries by (term, field), merges equal pairs summing
// their tf, counts each distinct term once in df, and returns a new slice.
func mergeEntries(entries []termEntry, df []uint32) []termEntry {
	slices.Sort(entries)
	out := make([]termEntry, 0, len(entries))
	for _, e := range entries {
		if k := len(out) - 1; k >= 0 && out[k]>>16 == e>>16 {
			out[k] = mkEntry(e.t(), e.f(), uint16(min(math.MaxUint16, int(out[k].tf())+int(e.tf()))))
			continue
		}
		if k := len(out) - 1; k < 0 || out[k].t() != e.t() {
			df[e.t()]++
		}
		out = append(out, e)
	}
	return out
}

// postings are flat inverted lists over units (operations or namespaces):
// the units of term t are doc[start[t]:start[t+1]], in unit order.
type postings struct {
	start  []uint32
	doc    []uint32
	val    []float32 // BM25F contribution of the term to the unit, idf included
	fields []uint16  // bit set of fields the term occurs in
}

// buildPostings computes BM25F contributions for units described by their
// merged term entries and field lengths; df counts units per term.
func buildPostings(units [][]termEntry, lens [][numFields]uint16, df []uint32, weights [numFields]float64, tu tuning) postings {
	n := len(units)
	var avg [numFields]float64
	for _, l := range lens {
		for f := range numFields {
			avg[f] += float64(l[f])
		}
	}
	for f := range numFields {
		avg[f] /= math.Max(1, float64(n))
		if avg[f] == 0 {
			avg[f] = 1
		}
	}
	nt := len(df)
	var p postings
	p.start = make([]uint32, nt+1)
	for t := range nt {
		p.start[t+1] = p.start[t] + df[t]
	}
	total := p.start[nt]
	p.doc = make([]uint32, total)
	p.val = make([]float32, total)
	p.fields = make([]uint16, total)
	fill := make([]uint32, nt)
	copy(fill, p.start[:nt])
	k1 := tu.k1
	for d, entries := range units {
		for i := 0; i < len(entries); {
			t := entries[i].t()
			var tfw float64
			var mask uint16
			for ; i < len(entries) && entries[i].t() == t; i++ {
				e := entries[i]
				f := e.f()
				b := tu.b[f]
				norm := 1 - b + b*float64(lens[d][f])/avg[f]
				tfw += weights[f] * float64(e.tf()) / norm
				mask |= 1 << f
			}
			idf := bm25IDF(n, int(df[t]))
			k := fill[t]
			fill[t]++
			p.doc[k] = uint32(d)
			p.val[k] = float32(idf * tfw * (k1 + 1) / (k1 + tfw))
			p.fields[k] = mask
		}
	}
	return p
}
