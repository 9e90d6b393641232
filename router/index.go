package router

import (
	"maps"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/buger/jsonparser"

	"github.com/intentsrv/intentsrv/internal/parallel"
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
	fReturns                // the name of the type the operation returns
	numFields
)

var fieldNames = [numFields]string{
	fName: "id", fNamespace: "namespace", fSummary: "summary", fDesc: "description",
	fTags: "tags", fAlias: "aliases", fExample: "examples", fParam: "params",
	fParamDesc: "params", fPath: "path", fReturns: "returns",
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
	weightParamDesc = 1.2
	weightPath      = 1.0
	weightReturns   = 1.0
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
	k1                                                                                 float64
	w, b                                                                               [numFields]float64
	syn, verb, corr, vboost, stem, bigram, idBoost                                     float32
	ns, resMismatch, resMiss, prf, sumBoost                                            float32
	prfMinCov, compound                                                                float32
	prfDocs, prfTerms, prfMinGroups                                                    int
	diversity, coveredDecay, qtf, clause, svc                                          float32
	values, synMin, pluralList, runAgree, questions, singular, learnedVerbs, reversals bool
	splitWords                                                                         bool
	// the run gate's rules and the request's action (decide.go, analyze.go)
	decisive, requestClause, modifiers, namedElsewhere, twins, verbNotDeciding, unsaidVerb, verblessWrites, fillerResources, callerAddress, clauseRerank, callerPaths, callerPhrases, addresses, designation, poolGaps, unknownVerbs, eventWords, whoIsIn, readsFirst, readOrders, openSense, titleVerbs, rpcCalls, fileNames, filteredRuns, catalogWords, hiddenActions, hiddenOnly, hiddenReads, preambles, neutralVerbs, titleCase, verbOnly, verbNotPlural, fewerUnasked, upserts, oneNotList, objectElsewhere, verbIDF, namedObject, makeSense, writesFirst, relativeClause, partsOf, itemsFirst, siblingReads, dataQuestions, headNouns, verbAlone, subCollections, methodVerbs, objectHead, listOf, valuePlaces, namedStems, unknownObject, searchText, calledNames, unnamedWrites, enablingVerbs, changeWords, fittedNames, listedHeads, paramsOnly, partOrWhole, requestAddresses, namedEndpoints, anotherUser, currentFirst, unsetDeletes, signedIn, pointedAt, refinedElsewhere, undoneRelations, actionSegments, listsFirst, versions, genericHeads, unnamedHeads, compoundObjects, saidMethods, headerReads, agentParticiples, doneTo, namedSomeone, acronyms, lowerAcronyms bool
	derive, itemBoost, neighbours, slugBoost                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              float32
}

func defaultTuning() tuning {
	return tuning{
		k1: bm25K1, w: fieldWeights, b: fieldB,
		syn: weightSynonym, verb: weightVerb, corr: weightCorrection, vboost: verbBoost, stem: weightStem, bigram: weightBigram, idBoost: idWordsBoost,
		ns: weightNamespaceMatch, resMismatch: resourceMismatch, resMiss: resourceMiss, sumBoost: summaryBoost,
		prf: prfWeight, compound: weightCompound, prfMinCov: prfMinCoverage, prfDocs: prfDocs, prfTerms: prfTerms, prfMinGroups: prfMinGroups,
		diversity: diversity, coveredDecay: coveredDecay, qtf: repeatWeight, clause: clauseWeight, svc: serviceBoost, values: true, pluralList: true, runAgree: true, questions: true, singular: true, learnedVerbs: true, reversals: true, splitWords: true, decisive: true, requestClause: true, modifiers: true, namedElsewhere: true, twins: true, verbNotDeciding: true, unsaidVerb: true, verblessWrites: true, fillerResources: true, callerAddress: true, clauseRerank: true, callerPaths: true, callerPhrases: true, addresses: true, designation: true, poolGaps: true, unknownVerbs: true, eventWords: true, whoIsIn: true, readsFirst: true, readOrders: true, openSense: true, titleVerbs: true, rpcCalls: true, fileNames: true, filteredRuns: true, catalogWords: true, hiddenActions: true, hiddenOnly: true, hiddenReads: true, preambles: true, neutralVerbs: true, titleCase: true, verbOnly: true, verbNotPlural: true, fewerUnasked: true, upserts: true, oneNotList: true, objectElsewhere: true, verbIDF: true, namedObject: true, makeSense: true, writesFirst: true, relativeClause: true, partsOf: true, itemsFirst: true, siblingReads: true, dataQuestions: true, headNouns: true, verbAlone: true, subCollections: true, methodVerbs: true, objectHead: true, listOf: true, valuePlaces: true, namedStems: true, unknownObject: true, searchText: true, calledNames: true, unnamedWrites: true, enablingVerbs: true, changeWords: true, fittedNames: true, listedHeads: true, paramsOnly: true, partOrWhole: true, requestAddresses: true, namedEndpoints: true, anotherUser: true, currentFirst: true, unsetDeletes: true, signedIn: true, pointedAt: true, refinedElsewhere: true, undoneRelations: true, actionSegments: true, listsFirst: true, versions: true, genericHeads: true, unnamedHeads: true, compoundObjects: true, saidMethods: true, headerReads: true, agentParticiples: true, doneTo: true, namedSomeone: true, acronyms: true, lowerAcronyms: true, derive: agentNounWeight, itemBoost: itemBoost, neighbours: neighbourWeight, slugBoost: slugBoost,
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
	fPath: weightPath, fReturns: weightReturns,
}

var fieldB = [numFields]float64{
	fName: bName, fNamespace: bName, fSummary: bShort, fDesc: bLong,
	fTags: bShort, fAlias: bShort, fExample: bLong, fParam: bShort,
	fParamDesc: bLong, fPath: bShort, fReturns: bShort,
}

// index is the inverted index: integer term ids, flat postings lists.
type index struct {
	terms   map[string]uint32  // word or ~stem → term id
	bigrams map[uint64]uint32  // (stem term, stem term) → term id
	words   map[string]wordIDs // surface word → its terms, for words seen at build
	// queryStems caches stemTerm for other words (the index is otherwise
	// immutable after build).
	queryStems stemCache
	idf        []float32 // per term, over operations
	post       postings  // term → operations
	ns         postings  // term → namespaces (of two or more operations)
	nsOf       []int32   // operation → namespace unit, -1 when alone
	// callers marks, by operation, the HTTP paths that name the caller
	// by their structure (callerPaths); nil when none does.
	callers []bool
	nsUnits int
	// Short per-operation lists of word terms:
	//   - idTerms: the words of its resource (last namespace segment) and
	//     name;
	//   - sumTerms: the content words of its summary (for summaryBoost);
	//   - itemTerms: the words of the resource it acts on one item of
	//     ("issues" in GET /repos/{owner}/{repo}/issues/{issue_number},
	//     "tickets" in tickets.get) or lists; scope[d] says which (see
	//     scopeNoun);
	//   - resTerms: the words of its resource, the id segment before the
	//     name ("tickets" in helpdesk.tickets.list) and the last literal
	//     segment of its HTTP path ("issues" in /repos/{owner}/{repo}/issues/{n});
	//   - pathTerms: the words of the literal segments of its HTTP path.
	// resKind marks, per term, the words that are some operation's
	// resource (resWord), those that are some operation's collection
	// or item scope (itemTerms; collWord), and those a write's call
	// name says (callWord; readCallWord when the write is named for
	// reading).
	idTerms, sumTerms, itemTerms, resTerms, pathTerms termLists
	scope                                             []int8
	heads                                             []uint32    // per operation, its path's resource's head word (resourceHead) or noTerm
	paths                                             []pathShape // per operation, its HTTP path's shape (the re-ranker's features)
	addresses                                         []string    // per operation, its HTTP path as addressPath reads it ("" without one)
	fits                                              []verbFit   // per operation, how each verb class fits it (the re-ranker's features)
	resKind                                           []uint8
	maxIDF                                            float32 // idf of a term seen in no document
	noStem                                            bool
	deletes                                           map[string][]uint32 // spelling correction: one-deletion variants → term ids
	vocab                                             []string            // term id → stem
	fwd                                               fwdPostings         // operation → feedback words
	svc                                               serviceIndex        // service names, for a query that names one

	// resSig is, per operation, a signature of its id and resource words
	// (termBit of each): agrees rules out most operations with one AND.
	resSig []uint64
	// agents holds, per stem term that has some, the agent nouns of the
	// stem (agentNouns), in agentSuffixes order.
	agents map[uint32][]uint32
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

// wordIDs are the terms of a surface word: the word as indexed (plural
// folded: the term of plural(w)) and its stem's; noTerm when the index has
// none.
type wordIDs struct{ word, stem uint32 }

// wordTerm returns the term id of surface word w as indexed, plural
// folded, if indexed: the term of plural(w). A word seen at build is
// found with one map access, with no folding.
func (ix *index) wordTerm(w string) (uint32, bool) {
	if e, ok := ix.words[w]; ok {
		return e.word, e.word != noTerm
	}
	t, ok := ix.terms[plural(w)]
	return t, ok
}

// stemTerm returns the term id of surface word w's stem, if indexed. The
// words seen at build map to their stem term directly, with no stemming
// and no allocation.
func (ix *index) stemTerm(w string) (uint32, bool) {
	if e, ok := ix.words[w]; ok {
		return e.stem, e.stem != noTerm
	}
	c := &ix.queryStems
	c.mu.RLock()
	t, ok := c.m[w]
	c.mu.RUnlock()
	if ok {
		return t, t != noTerm
	}
	s := stem(w)
	var buf [64]byte
	if len(s)+1 > len(buf) {
		t, ok = ix.terms[stemKey(s)]
	} else {
		t, ok = ix.terms[string(append(append(buf[:0], '~'), s...))]
	}
	if !ok {
		t = noTerm
	}
	c.mu.Lock()
	if len(c.m) < maxQueryStems {
		if c.m == nil {
			c.m = map[string]uint32{}
		}
		c.m[strings.Clone(w)] = t
	}
	c.mu.Unlock()
	return t, ok
}

// maxQueryStems bounds the cache of stems of query words the catalog does
// not have: stemming costs about a microsecond a word.
const maxQueryStems = 4096

// stemCache maps query words to their stem's term (noTerm when none).
type stemCache struct {
	mu sync.RWMutex
	m  map[string]uint32
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

// termLists holds a short list of terms per operation: those of operation
// d are term[start[d]:start[d+1]].
type termLists struct {
	start []uint32
	term  []uint32
}

// of returns the terms of operation d.
func (l *termLists) of(d uint32) []uint32 { return l.term[l.start[d]:l.start[d+1]] }

// hasAny reports whether operation d's terms hold any of ts.
func (l *termLists) hasAny(d uint32, ts []uint32) bool {
	for _, t := range l.of(d) {
		if slices.Contains(ts, t) {
			return true
		}
	}
	return false
}

// finish turns start, which holds each operation's count at d+1, into
// offsets, and joins the chunks' terms (in operation order).
func (l *termLists) finish(chunks [][]uint32) {
	for d := 1; d < len(l.start); d++ {
		l.start[d] += l.start[d-1]
	}
	l.term = slices.Concat(chunks...)
}

// termCollector gathers one chunk's terms for a termLists, operation by
// operation: add takes the words of the current operation (stop words and
// numbers skipped, plurals folded, each term once), next closes it.
type termCollector struct {
	ix *index
	// also holds the words indexed beside a word (alsoWords), for the
	// words that have some: the collector counts those instead.
	also  map[string][]string
	terms []uint32
	start int
}

// callerWord is the word an HTTP path names the caller by
// (GET /me/messages, /users/me): a stop word anywhere else, it is indexed
// in the path field, where it says whose the resource is. Not in names:
// a tool named get_me would meet every "show me" and "tell me". The id and
// path words the re-ranker and the run gate read leave it out: every
// request is the caller's unless it names another, so "me" is never a word
// of the path the request left unsaid.
const callerWord = "me"

// callerAliases are the other words an HTTP path names the caller by, as
// a segment of their own: GET /rest/api/2/myself, /users/self, /whoami.
// The path says "me" with them, and like "me" they are no words of an
// operation's address or id that a request leaves unsaid.
var callerAliases = map[string]bool{"myself": true, "self": true, "whoami": true}

func (c *termCollector) add(wb []byte) {
	w := string(wb)
	if isStopWord(w) || isNumber(w) || callerAliases[w] {
		return
	}
	also := c.also[w]
	if len(also) == 0 {
		c.addTerm(plural(w))
	}
	// A word that is others run together, or that undoes a verb, counts
	// as those words: "deleteschedulingpolicy" says delete, scheduling and
	// policy, and "untag" is about tags.
	for _, a := range also {
		c.addTerm(plural(a))
	}
}

func (c *termCollector) addTerm(k string) {
	if t, ok := c.ix.terms[k]; ok && !slices.Contains(c.terms[c.start:], t) {
		c.terms = append(c.terms, t)
	}
}

// next returns the number of terms of the current operation and starts
// the next one.
func (c *termCollector) next() uint32 {
	n := uint32(len(c.terms) - c.start)
	c.start = len(c.terms)
	return n
}

// isResource reports whether term t is some operation's resource word.
func (ix *index) isResource(t uint32) bool { return ix.kind(t)&resWord != 0 }

// kind is term t's resKind: resWord, collWord, both or neither.
func (ix *index) kind(t uint32) uint8 {
	if int(t) < len(ix.resKind) {
		return ix.resKind[t]
	}
	return 0
}

// The bits of index.resKind.
const (
	resWord      = 1 << iota // some operation's resource
	collWord                 // the resource some operation acts on one item of or lists ("tickets" of GET /tickets/{id}, not "stop" of POST /jobs/{id}/stop)
	callWord                 // a word of some write's call name ("pay" of POST /invoices/{id}/pay; any id word of a write without a path): see callTerms, hiddenAction
	readCallWord             // the same, of a write named for reading ("insights" of POST /ListInsights): see hiddenRead
)

// noTerm is an impossible term id.
const noTerm = ^uint32(0)

// stemKey is the term key of a stem. Words are indexed twice, as written
// and as their stem, so that an exact word outranks a word that only shares
// its stem ("nurses" → "nurses" first, then "nursing").
func stemKey(s string) string { return "~" + s }

// methodKey is the term key of an HTTP method ("@put"), indexed beside
// the method's word. No word of a request spells it (the tokenizer keeps
// letters and digits): a request's verb class meets it (classMethods), so
// that "Update a user" meets PUT /users/{id}, whose method is all that
// says it updates when it has no summary (ablation "method-verbs").
func methodKey(method string) string { return "@" + strings.ToLower(method) }

// isWordKey reports whether term key k is a word: not a stem (stemKey),
// a method (methodKey) or a pair (a bigram has no spelling).
func isWordKey(k string) bool { return k != "" && k[0] != '~' && k[0] != '@' }

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
	ids, seen := ix.words[w] // both terms with one map access
	if !seen {
		ids.word, ids.stem = noTerm, noTerm
		if t, ok := ix.terms[plural(w)]; ok {
			ids.word = t
		}
		if !ix.noStem {
			ids.stem, _ = ix.stemTerm(w)
		}
	}
	sdf := uint32(0)
	if ids.word != noTerm {
		out = append(out, variant{t: ids.word, w: 1})
		sdf = ix.df(ids.word)
	}
	// Skip the stem when it matches exactly the word's operations.
	if !ix.noStem && ids.stem != noTerm && ix.df(ids.stem) != sdf {
		out = append(out, variant{t: ids.stem, w: ws})
	}
	return out
}

// opFields calls fn with each field's text of op. opts says whether the
// name of the type op returns is one (ablation "returns") and whether an
// example's intent keeps the names it passes as values (ablation
// "example-values").
func opFields(op *operations.Operation, opts *Options, fn func(f field, text string)) {
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
		if opts.noExampleValues {
			fn(fExample, e.Intent)
		} else {
			fn(fExample, exampleWords(e))
		}
	}
	if len(op.Input) > 0 {
		paramFields(op.Input, paramDepth, fn)
	}
	if op.HTTP != nil {
		fn(fPath, op.HTTP.Method)
		fn(fPath, op.HTTP.Path)
	}
	if !opts.noReturns && len(op.Output) > 0 {
		fn(fReturns, returnedName(op.Output))
	}
}

// exampleWords returns e's intent without the names it passes as
// arguments: in "add Jane Doe from Bluefin as a customer" with a name of
// "Jane Doe" and an e-mail at bluefin.example, the capitalised words are
// the example's values, not what the operation does, and a request about
// Bluefin's tickets must not find the customer's create by them. A word
// is dropped when it is capitalised after the intent's first word and
// said by one of the example's string arguments.
func exampleWords(e operations.Example) string {
	if len(e.Params) == 0 {
		return e.Intent
	}
	var values []string
	for _, v := range e.Params {
		if s, ok := v.(string); ok {
			values = append(values, strings.ToLower(s))
		}
	}
	fields := strings.Fields(e.Intent)
	kept := fields[:0:0]
	for i, w := range fields {
		if i > 0 && w[0] >= 'A' && w[0] <= 'Z' && saysWord(values, strings.TrimSuffix(strings.ToLower(strings.TrimRight(w, ".,;:!?'\"")), "'s")) {
			continue
		}
		kept = append(kept, w)
	}
	if len(kept) == len(fields) {
		return e.Intent
	}
	return strings.Join(kept, " ")
}

// saysWord reports whether one of values has w as a whole word (between
// characters that are not letters or digits).
func saysWord(values []string, w string) bool {
	if w == "" {
		return false
	}
	for _, v := range values {
		for i := 0; ; {
			k := strings.Index(v[i:], w)
			if k < 0 {
				break
			}
			k += i
			if (k == 0 || !isASCIIAlnum(v[k-1])) && (k+len(w) == len(v) || !isASCIIAlnum(v[k+len(w)])) {
				return true
			}
			i = k + 1
		}
	}
	return false
}

// returnedName returns the name of the type a result schema stands for:
// the definition its root (or, for an array, its items) refers to, else
// its title; "" for an unnamed schema. GET /v1/{name} says nothing of what
// it reads, but returning a PolicyTag it reads a policy tag, where the
// list beside it returns a ListPolicyTagsResponse.
//
// A result schema carries its definitions ($defs), often most of its
// bytes: its top level is read in one pass, at index time.
func returnedName(schema []byte) string {
	ref, title, items := schemaName(schema)
	if items != nil {
		iref, ititle, _ := schemaName(items)
		if iref != "" {
			return iref
		}
		if ref == "" && ititle != "" {
			return ititle
		}
	}
	if ref != "" {
		return ref
	}
	return title
}

// schemaName reads a schema's top level: the last segment of its $ref
// ("#/$defs/PolicyTag" gives PolicyTag), its title and its items schema.
func schemaName(schema []byte) (ref, title string, items []byte) {
	jsonparser.ObjectEach(schema, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "$ref":
			if t == jsonparser.String {
				ref = unescape(v)
				ref = ref[strings.LastIndexByte(ref, '/')+1:]
			}
		case "title":
			if t == jsonparser.String {
				title = unescape(v)
			}
		case "items":
			if t == jsonparser.Object {
				items = v
			}
		}
		return nil
	})
	return ref, title, items
}

// paramDepth is how deep parameters are indexed: the top-level ones and the
// properties of an object parameter (an OpenAPI request body: "bio" in
// {"body": {"properties": {"bio": ...}}}).
const paramDepth = 2

// paramFields calls fn with the names (fParam), descriptions, titles and
// enum values (fParamDesc) of schema's properties, depth levels deep.
// jsonparser walks the schema without building it: one pass over each
// property's keys.
func paramFields(schema []byte, depth int, fn func(f field, text string)) {
	jsonparser.ObjectEach(schema, func(key, value []byte, _ jsonparser.ValueType, _ int) error {
		fn(fParam, string(key))
		jsonparser.ObjectEach(value, func(k, v []byte, t jsonparser.ValueType, _ int) error {
			switch string(k) {
			case "description", "title":
				if t == jsonparser.String {
					fn(fParamDesc, unescape(v))
				}
			case "enum":
				if t == jsonparser.Array {
					jsonparser.ArrayEach(v, func(e []byte, t jsonparser.ValueType, _ int, _ error) {
						if t == jsonparser.String {
							fn(fParamDesc, unescape(e))
						}
					})
				}
			case "properties":
				if depth > 1 && t == jsonparser.Object {
					paramFields(value, depth-1, fn)
				}
			}
			return nil
		})
		return nil
	}, "properties")
}

// minParallelOps is the catalog size from which buildIndex tokenizes
// operations on several goroutines; below it one goroutine is faster than
// merging several vocabularies.
const minParallelOps = 2048

// wordInfo caches what the build knows of a surface word: its two term ids
// (in the chunk's vocabulary) or that it is skipped.
type wordInfo struct {
	surface, stem uint32
	skip          bool
	// also are the terms of the words indexed beside this one (see
	// alsoWords), in their order.
	also []alsoTerms
}

// alsoTerms are the two term ids of a word indexed beside another.
type alsoTerms struct{ surface, stem uint32 }

// chunkVocab is the vocabulary of one chunk of operations, tokenized on its
// own goroutine. Local term ids are remapped to global ones by buildIndex.
type chunkVocab struct {
	terms   map[string]uint32 // term key → local id
	keys    []string          // local id → term key; "" for a bigram
	pairs   map[uint32]uint64 // local bigram id → (local stem, local stem)
	bigrams map[uint64]uint32 // (local stem, local stem) → local id
	words   map[string]wordInfo
	also    map[string][]string // surface word → the words indexed beside it
	// callerTerms: callerWord is indexed in the path field (ablation
	// "caller-address").
	callerTerms bool
	// callers marks, by operation, the HTTP paths that name the caller
	// by structure (see callerPaths); callerWord is indexed in their path
	// field. Nil when none does.
	callers []bool
}

func (v *chunkVocab) intern(k string) uint32 {
	t, ok := v.terms[k]
	if !ok {
		t = uint32(len(v.keys))
		v.terms[k] = t
		v.keys = append(v.keys, k)
	}
	return t
}

func (v *chunkVocab) bigram(a, b uint32) uint32 {
	k := uint64(a)<<32 | uint64(b)
	t, ok := v.bigrams[k]
	if !ok {
		t = uint32(len(v.keys))
		v.bigrams[k] = t
		v.pairs[t] = k
		v.keys = append(v.keys, "")
	}
	return t
}

// tokenizeChunk tokenizes ops[lo:hi] into docTerms and lens (indexed by
// operation, local term ids) and returns the chunk's vocabulary. It writes
// only the entries lo..hi-1 of docTerms and lens.
func tokenizeChunk(ops []*operations.Operation, lo, hi int, opts Options, callers []bool, prose map[string]bool, docTerms [][]termEntry, lens [][numFields]uint16) *chunkVocab {
	v := &chunkVocab{
		terms:   make(map[string]uint32, 1024),
		pairs:   make(map[uint32]uint64, 1024),
		bigrams: make(map[uint64]uint32, 1024),
		words:   make(map[string]wordInfo, 4096),
		also:    make(map[string][]string),

		callerTerms: opts.tuning().callerAddress,
		callers:     callers,
	}
	// Entries are gathered per document in cur, then copied into large
	// blocks shared by many documents: few allocations, no regrowth.
	var cur, block []termEntry
	wbuf := make([]byte, 0, 64)
	aw := newAlsoWords(opts)
	aw.prose = prose
	methods := map[string]uint32{} // HTTP method → its term (methodKey)
	for d := lo; d < hi; d++ {
		cur = cur[:0]
		opFields(ops[d], &opts, func(f field, text string) {
			if text == "" {
				return
			}
			prev, prevAlso := int64(-1), int64(-1)
			wbuf = splitBytesBuf(text, wbuf, func(wb []byte) {
				wi, ok := v.words[string(wb)] // no allocation on a hit
				if !ok {
					w := string(wb)
					wi = wordInfo{skip: isStopWord(w) || isNumber(w)}
					if !wi.skip {
						wi.surface = v.intern(plural(w))
						wi.stem = v.intern(stemKey(stem(w)))
						if ws := aw.of(w); len(ws) > 0 {
							v.also[w] = ws
							for _, a := range ws {
								wi.also = append(wi.also, alsoTerms{v.intern(plural(a)), v.intern(stemKey(stem(a)))})
							}
						}
					}
					v.words[w] = wi
				}
				if v.callerTerms && f == fPath && callerAliases[string(wb)] {
					// GET /myself, /users/self, /whoami: the caller,
					// as "me" says it.
					cur = append(cur, mkEntry(v.intern(callerWord), f, 1))
					if !opts.noStem {
						cur = append(cur, mkEntry(v.intern(stemKey(stem(callerWord))), f, 1))
					}
				}
				if wi.skip && v.callerTerms && f == fPath && string(wb) == callerWord {
					wi = wordInfo{surface: v.intern(callerWord), stem: v.intern(stemKey(stem(callerWord)))}
				}
				if wi.skip {
					return
				}
				cur = append(cur, mkEntry(wi.surface, f, 1))
				if !opts.noStem {
					cur = append(cur, mkEntry(wi.stem, f, 1))
				}
				for _, a := range wi.also {
					cur = append(cur, mkEntry(a.surface, f, 1))
					if !opts.noStem {
						cur = append(cur, mkEntry(a.stem, f, 1))
					}
				}
				if bigramField[f] && !opts.noBigrams {
					// The words indexed beside this one pair as it
					// does: with the word before (or its last
					// beside-word), with each other, and their last
					// with the word after.
					for _, p := range [2]int64{prev, prevAlso} {
						if p >= 0 {
							cur = append(cur, mkEntry(v.bigram(uint32(p), wi.stem), f, 1))
						}
					}
					before := prev
					prevAlso = -1
					for _, a := range wi.also {
						if before >= 0 {
							cur = append(cur, mkEntry(v.bigram(uint32(before), a.stem), f, 1))
						}
						before = int64(a.stem)
						prevAlso = before
					}
					prev = int64(wi.stem)
				}
				if lens[d][f] < math.MaxUint16 {
					lens[d][f]++
				}
			})
		})
		if h := ops[d].HTTP; h != nil && h.Method != "" {
			// The method's term, in the path field beside the method's
			// word, which the field's length counts already. A chunk has
			// a few methods: each key is made once.
			t, ok := methods[h.Method]
			if !ok {
				t = v.intern(methodKey(h.Method))
				methods[h.Method] = t
			}
			cur = append(cur, mkEntry(t, fPath, 1))
		}
		if v.callers != nil && v.callers[d] {
			cur = append(cur, mkEntry(v.intern(callerWord), fPath, 1))
			if !opts.noStem {
				cur = append(cur, mkEntry(v.intern(stemKey(stem(callerWord))), fPath, 1))
			}
			if lens[d][fPath] < math.MaxUint16 {
				lens[d][fPath]++
			}
		}
		if len(cur) > cap(block)-len(block) {
			block = make([]termEntry, 0, max(entryBlock, len(cur)))
		}
		k := len(block)
		block = append(block, cur...)
		docTerms[d] = block[k:len(block):len(block)]
	}
	return v
}

// callerNoun is the resource a caller is: a user.
const callerNoun = "user"

// callerPaths finds the HTTP paths that name the caller by their
// structure: the bare singular callerNoun, with no parameter before it and
// none after it, in a catalog that addresses the other users by id in
// the plural. GitHub's GET /user/repos beside /users/{username}/repos,
// Gitea's /user/hooks: the one user no parameter names is the one
// calling. It returns, by operation of px, whether its path is one (nil
// when none is).
//
// A catalog that addresses users by id in the singular (/user/{username}
// and /user/login in the Petstore) has no caller path: its bare segment is
// the resource itself. The noun is fixed because other bare singulars
// name something else: PeerTube's /server/stats, beside
// /servers/{host}, is the server's own.
func callerPaths(px pathIndex) []bool {
	self, ok := px.ids[callerNoun]
	if !ok {
		return nil
	}
	var others []uint32 // the plurals of callerNoun ("users")
	for seg, id := range px.ids {
		if seg != callerNoun && plural(seg) == callerNoun {
			others = append(others, id)
		}
	}
	byID := false // some path says /users/{id}
	for d := 0; d+1 < len(px.start) && !byID; d++ {
		segs := px.of(d)
		for i := 0; i+1 < len(segs) && !byID; i++ {
			byID = segs[i+1] == paramSeg && slices.Contains(others, segs[i])
		}
	}
	if !byID {
		return nil
	}
	var callers []bool
	for d := range len(px.start) - 1 {
		segs := px.of(d)
		for i, s := range segs {
			if s == paramSeg {
				break // the resource is another's, named by the parameter
			}
			if s != self || i+1 < len(segs) && segs[i+1] == paramSeg {
				continue
			}
			if callers == nil {
				callers = make([]bool, len(px.start)-1)
			}
			callers[d] = true
			break
		}
	}
	return callers
}

// entryBlock is the number of term entries allocated at once while
// tokenizing (512 KB).
const entryBlock = 1 << 16

// chunks splits n operations into ranges for parallel work: one per
// GOMAXPROCS when there are at least minParallelOps, else one.
func chunks(n int) [][2]int {
	p := runtime.GOMAXPROCS(0)
	if n < minParallelOps || p < 2 {
		return [][2]int{{0, n}}
	}
	out := make([][2]int, 0, p)
	for i := range p {
		out = append(out, [2]int{i * n / p, (i + 1) * n / p})
	}
	return out
}

// eachChunk runs fn on every chunk, in parallel when there are several,
// and waits for them.
func eachChunk(cs [][2]int, fn func(c int, lo, hi int)) {
	if len(cs) == 1 {
		fn(0, cs[0][0], cs[0][1])
		return
	}
	parallel.Each(len(cs), func(c int) { fn(c, cs[c][0], cs[c][1]) })
}

// resourceSegment returns the id segment before the operation's name
// ("tickets" in "helpdesk.tickets.list") when the id has three segments or
// more. In a two-segment id ("weather.forecast") the first segment is the
// service, not a resource of it; the namespace document scores services.
func resourceSegment(id string) string {
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return ""
	}
	j := strings.LastIndexByte(id[:i], '.')
	if j < 0 {
		return ""
	}
	return id[j+1 : i]
}

// Scopes of an operation: what its resource noun is of.
const (
	scopeNone       int8 = iota
	scopeItem            // one item: GET /issues/{issue_number}, tickets.get
	scopeCollection      // a collection: GET /repos/{owner}/{repo}/issues, tickets.list
)

// scopeNoun returns the resource op reads one item or a collection of:
// the last literal segment of an HTTP path that ends in a parameter
// ("issues" in /repos/{owner}/{repo}/issues/{issue_number}: one item) or,
// for GET, in a plural segment ("issues" in /repos/{owner}/{repo}/issues:
// the collection); without HTTP, what its name says when names is set
// (nameScope: get_payment_runs, get_payment_run), and otherwise the
// resource segment of an operation whose verb v reads one thing
// (tickets.get) or lists (tickets.list).
func scopeNoun(op *operations.Operation, v verbClass, names, formats bool) (string, int8) {
	if h := op.HTTP; h != nil && h.Path != "" {
		p := addressPath(h.Path, formats)
		last := p[strings.LastIndexByte(p, '/')+1:]
		if strings.HasPrefix(last, "{") || strings.HasPrefix(last, ":") {
			return pathNoun(p), scopeItem
		}
		if m := strings.ToUpper(h.Method); (m == "GET" || m == "HEAD") && plural(last) != last {
			return last, scopeCollection
		}
		return "", scopeNone
	}
	if names {
		if noun, scope, ok := nameScope(op.ID, v); ok {
			return noun, scope
		}
	}
	switch v {
	case verbRead:
		return resourceSegment(op.ID), scopeItem
	case verbList:
		return resourceSegment(op.ID), scopeCollection
	}
	return "", scopeNone
}

// aspectWord reports whether w names an aspect of the thing an operation
// reads rather than the thing (article_details, get_user_info,
// get_task_entity): it says nothing of one item or many.
func aspectWord(w string) bool {
	switch w {
	case "details", "detail", "info", "information", "metadata", "data", "entity":
		return true
	}
	return false
}

// participle reports whether w reads as a past participle (shared,
// deleted, archived), not a noun in -eed (feed, speed).
func participle(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed")
}

// nameScope reads the scope of a read without an HTTP path off its name,
// the id's last segment, as a path says it: the name's last noun before
// any preposition ("runs" in get_payment_runs, "users" in
// get_users_for_topic) is a collection when it is plural, and one item
// when it is singular or followed by "id" (get_payment_run,
// get_calendars_id). Numbers, versions, verbs, participles (shared_by)
// and words for an aspect of a thing (aspectWord) are not the noun. ok is
// false for an operation that does not read (a write keeps no scope: on
// the corpus served as tools, scoped writes ran one wrong delete and
// fixed nothing), and for a name that says no noun or is one word
// (tickets.get, users.deactivate): the caller then falls back on the id's
// resource segment.
func nameScope(id string, v verbClass) (noun string, scope int8, ok bool) {
	if !v.reads() {
		return "", scopeNone, false
	}
	name := opName(id)
	idAfter := false // the noun is followed by "id": an item's address
	done := false
	words := 0
	splitWords(name, func(w string) {
		words++
		switch {
		case done:
		case w == "id" || w == "ids":
			idAfter = noun != ""
		case isStopWord(w):
			done = true // a preposition ends the noun phrase: list_for_repo names none
		case isNumber(w) || versionSegment(w) || aspectWord(w) || participle(w) || (verbClassifier{}).word(w) != verbNone:
			// Not the thing: a participle says what was done to it
			// (shared_by, get_deleted_items).
		default:
			noun, idAfter = w, false
		}
	})
	if noun == "" || words == 1 {
		// One word is the action (users.deactivate, one the lexicon
		// may not know) or the resource itself: the id's resource
		// segment says more.
		return "", scopeNone, false
	}
	if idAfter || plural(noun) == noun {
		return noun, scopeItem, true
	}
	return noun, scopeCollection, true
}

// resourceHead returns the term of the head word of the resource op's
// HTTP path acts on: the last word of its last literal segment (of its
// call name, for an RPC path that names one:
// "#X-Amz-Target=Svc.TagResource"), a run-together word's last part
// ("giftcardproviders": provider). It is noTerm for an operation without
// a path, a path that names nothing (namesWhat), or one whose last word
// is a call ("/giftlist/get/{listId}", "/lists/{id}/tag-search"). It
// returns buf, the buffer it split into.
func (ix *index) resourceHead(op *operations.Operation, also map[string][]string, buf []byte) (uint32, []byte) {
	if op.HTTP == nil {
		return noTerm, buf
	}
	seg := pathNoun(strings.TrimRight(op.HTTP.Path, "/"))
	if seg == "" || versionSegment(seg) {
		return noTerm, buf // a path that names nothing (namesWhat)
	}
	if name, call := callName(seg); call {
		seg = name
	}
	last, buf := lastWord(seg, buf)
	if a := also[last]; len(a) > 0 {
		last = a[len(a)-1]
	}
	if last == "" || (verbClassifier{}).word(last) != verbNone {
		return noTerm, buf
	}
	if t, ok := ix.terms[plural(last)]; ok {
		return t, buf
	}
	return noTerm, buf
}

// lastWord returns the last word of s (as splitBytesBuf splits it) that
// is no stop word and no number, "" when it has none: the head word of a
// path segment or an id's resource segment. It returns buf, the buffer it
// split into.
func lastWord(s string, buf []byte) (string, []byte) {
	last := ""
	buf = splitBytesBuf(s, buf, func(w []byte) {
		if !isStopWord(string(w)) && !isNumber(string(w)) {
			last = string(w)
		}
	})
	return last, buf
}

// literalSegment reports whether seg, a segment of an HTTP path, is
// literal: not empty, and no {parameter} or :parameter.
func literalSegment(seg string) bool {
	return seg != "" && seg[0] != '{' && seg[0] != ':'
}

// formatNames are the serialisations a path may name at its end, as an
// extension ("/Calls.json", "/posts/{id}.xml") or a segment of its own
// ("/containers/json"): how the answer is written, not what it is.
var formatNames = []string{"json", "xml", "csv", "tsv", "yaml", "yml", "txt", "html", "atom", "rss"}

// resourcePath returns path (with no trailing slash) without the format
// it ends with, if any (ablation "format-suffixes"): GET
// /Accounts/{sid}/Calls.json lists calls and GET /containers/{id}/json
// reads one container, as /Accounts/{sid}/Calls and /containers/{id}
// would. The format is a segment or an extension that formatNames
// holds, or an extension that is a parameter (/records.{format},
// /Videos/{itemId}/stream.{container}): a name's extension says how it is
// written whatever it is called. A format segment is dropped only after
// another segment, and an extension only from a segment that keeps a
// name before it.
func resourcePath(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return path
	}
	last := path[i+1:]
	if i > 0 && isFormat(last) {
		return path[:i]
	}
	if j := strings.LastIndexByte(last, '.'); j > 0 {
		if ext := last[j+1:]; isParam(ext) || isFormat(ext) {
			return path[:i+1+j]
		}
	}
	return path
}

// isFormat reports whether s names one of formatNames, case aside.
func isFormat(s string) bool {
	return slices.ContainsFunc(formatNames, func(f string) bool { return strings.EqualFold(s, f) })
}

// addressPath returns an HTTP path without its trailing slash and, when
// formats is set, without its format (resourcePath): the path as the
// rules that read its last segment see it (index.addresses holds it per
// operation).
func addressPath(path string, formats bool) string {
	p := strings.TrimRight(path, "/")
	if formats {
		p = resourcePath(p)
	}
	return p
}

// isParam reports whether s is one path parameter, "{name}".
func isParam(s string) bool {
	return len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{}")
}

// pathNoun returns the last literal segment of an HTTP path, skipping
// {parameters}: "issues" in "/repos/{owner}/{repo}/issues/{issue_number}".
func pathNoun(path string) string {
	for path != "" {
		i := strings.LastIndexByte(path, '/')
		seg := path[i+1:]
		if literalSegment(seg) {
			return seg
		}
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return ""
}

// callTerms calls fn with each term of the name of operation d's call
// (op): the words of the call name of its HTTP path's action segment
// (/invoices/{invoice}/pay, ?Action=CopySnapshot, /v1/{name}:accept), or
// without a path its id's words. A word of the path before that segment
// names things, not the call. It returns buf, the buffer it split into.
func (ix *index) callTerms(op *operations.Operation, d uint32, buf []byte, fn func(t uint32)) []byte {
	if op.HTTP == nil {
		for _, t := range ix.idTerms.of(d) {
			fn(t)
		}
		return buf
	}
	name, _ := callName(actionSegment(op.HTTP.Path))
	return splitBytesBuf(name, buf, func(w []byte) {
		if t, ok := ix.terms[plural(string(w))]; ok {
			fn(t)
		}
	})
}

// actionSegment is the segment of an HTTP path that names its call: the
// last literal one (pathNoun), a custom method's verb after its
// parameter (":accept" of "/v1/{name}:accept"), or a parameter segment
// that carries the call in a query ("{id}?operation=regenerate").
func actionSegment(path string) string {
	path = strings.TrimRight(path, "/")
	seg := path[strings.LastIndexByte(path, '/')+1:]
	if seg != "" && seg[0] == '{' {
		if i := strings.Index(seg, "}:"); i >= 0 {
			return seg[i+2:]
		}
		if strings.ContainsRune(seg, '=') {
			return seg
		}
	}
	return pathNoun(path)
}

// unescape returns the text of a JSON string's raw bytes (without quotes).
func unescape(raw []byte) string {
	if s, err := jsonparser.ParseString(raw); err == nil {
		return s
	}
	return string(raw)
}

// buildIndex tokenizes every operation and builds the BM25F index.
//
// Operations are tokenized in chunks, in parallel, each chunk with its own
// vocabulary; the vocabularies are then merged in chunk order (so the
// index does not depend on timing), the chunks' entries are remapped to
// global term ids, sorted and merged in parallel, and the postings are
// filled in parallel. verbs[d] is operation d's verb class (opVerb).
func buildIndex(ops []*operations.Operation, verbs []verbClass, paths pathIndex, opts Options) *index {
	ix := &index{
		terms:   make(map[string]uint32, 1024),
		bigrams: make(map[uint64]uint32, 1024),
		words:   make(map[string]wordIDs, 1024),
		noStem:  opts.noStem,
	}
	n := len(ops)
	docTerms := make([][]termEntry, n)
	lens := make([][numFields]uint16, n)
	cs := chunks(n)
	vocabs := make([]*chunkVocab, len(cs))
	var callers []bool
	if opts.tuning().callerPaths {
		callers = callerPaths(paths)
	}
	ix.callers = callers
	prose := proseWords(ops, cs, opts)
	eachChunk(cs, func(c, lo, hi int) {
		vocabs[c] = tokenizeChunk(ops, lo, hi, opts, callers, prose, docTerms, lens)
	})
	remaps := make([][]uint32, len(cs))
	also := make(map[string][]string) // the build's only: the collectors read it
	for c, v := range vocabs {
		remap := make([]uint32, len(v.keys))
		for t, k := range v.keys {
			if k != "" {
				remap[t] = ix.intern(k)
				continue
			}
			p := v.pairs[uint32(t)]
			remap[t] = ix.bigram(remap[uint32(p>>32)], remap[uint32(p)], true)
		}
		remaps[c] = remap
		for w, wi := range v.words {
			if _, ok := ix.words[w]; !ok && !wi.skip {
				ix.words[w] = wordIDs{word: remap[wi.surface], stem: remap[wi.stem]}
			}
		}
		maps.Copy(also, v.also)
		vocabs[c] = nil
	}
	nt := len(ix.vocab)
	dfs := make([][]uint32, len(cs))
	lists := []*termLists{&ix.idTerms, &ix.resTerms, &ix.sumTerms, &ix.itemTerms, &ix.pathTerms}
	chunkLists := make([][5]termCollector, len(cs))
	for _, l := range lists {
		l.start = make([]uint32, n+1)
	}
	ix.scope = make([]int8, n)
	ix.heads = make([]uint32, n)
	ix.paths = make([]pathShape, n)
	ix.addresses = make([]string, n)
	ix.fits = make([]verbFit, n)
	eachChunk(cs, func(c, lo, hi int) {
		remap := remaps[c]
		df := make([]uint32, nt)
		cl := &chunkLists[c]
		for i := range cl {
			cl[i].ix, cl[i].also = ix, also
		}
		ids, res, sums, items, paths := &cl[0], &cl[1], &cl[2], &cl[3], &cl[4]
		wbuf := make([]byte, 0, 64)
		for d := lo; d < hi; d++ {
			es := docTerms[d]
			for i, e := range es {
				es[i] = mkEntry(remap[e.t()], e.f(), e.tf())
			}
			docTerms[d] = mergeEntries(es, df)
			// The operation's id words: its resource (the segment
			// before the name) and its name.
			id := ops[d].ID
			if i := strings.LastIndexByte(id, '.'); i >= 0 {
				if j := strings.LastIndexByte(id[:i], '.'); j >= 0 {
					id = id[j+1:]
				}
			}
			wbuf = splitBytesBuf(id, wbuf, ids.add)
			group := resourceSegment(ops[d].ID)
			wbuf = splitBytesBuf(group, wbuf, res.add)
			ix.fits[d] = fitOf(ops[d])
			if h := ops[d].HTTP; h != nil {
				ix.paths[d] = shapeOfPath(h.Path)
				ix.addresses[d] = addressPath(h.Path, !opts.noFormatSuffixes)
				wbuf = splitBytesBuf(pathNoun(ix.addresses[d]), wbuf, res.add)
				for seg := range strings.SplitSeq(h.Path, "/") {
					if literalSegment(seg) {
						wbuf = splitBytesBuf(seg, wbuf, paths.add)
					}
				}
			}
			ix.heads[d], wbuf = ix.resourceHead(ops[d], also, wbuf)
			wbuf = splitBytesBuf(ops[d].Summary, wbuf, sums.add)
			noun, scope := scopeNoun(ops[d], verbs[d], !opts.noNameScope, !opts.noFormatSuffixes)
			ix.scope[d] = scope
			wbuf = splitBytesBuf(noun, wbuf, items.add)
			if !ix.paths[d].path && group != "" {
				// What a name without a path is about is a resource, as
				// a path's noun is: "tags" in tagging.get_tags_from_user.
				// Only under an id that groups it by resource: a flat
				// set of tools (server.tool) names its tools with its
				// services' topic words ("anime_quotes.get_a_random_quote"),
				// and as resources they discount every tool that does
				// not say the request's nouns (StableToolBench's top-1
				// 0.759 → 0.735; BENCHMARKS.md, router round 53).
				wbuf = splitBytesBuf(noun, wbuf, res.add)
			}
			for i, l := range lists {
				l.start[d+1] = cl[i].next()
			}
		}
		dfs[c] = df
	})
	df := dfs[0]
	for _, o := range dfs[1:] {
		for t, x := range o {
			df[t] += x
		}
	}
	for i, l := range lists {
		chunks := make([][]uint32, len(cs))
		for c := range cs {
			chunks[c] = chunkLists[c][i].terms
		}
		l.finish(chunks)
	}
	ix.resKind = make([]uint8, nt)
	for _, t := range ix.resTerms.term {
		ix.resKind[t] |= resWord
	}
	for _, t := range ix.itemTerms.term {
		ix.resKind[t] |= collWord
	}
	var wbuf []byte
	for d, op := range ops {
		if !op.Kind.IsWrite() {
			continue
		}
		bits := uint8(callWord)
		if verbs[d].reads() {
			bits |= readCallWord
		}
		wbuf = ix.callTerms(op, uint32(d), wbuf, func(t uint32) { ix.resKind[t] |= bits })
	}
	ix.resSig = make([]uint64, n)
	for d := range n {
		for _, t := range ix.idTerms.of(uint32(d)) {
			ix.resSig[d] |= termBit(t)
		}
		for _, t := range ix.resTerms.of(uint32(d)) {
			ix.resSig[d] |= termBit(t)
		}
	}
	tu := opts.tuning()
	weights := tu.w
	if opts.flatWeights {
		for f := range weights {
			weights[f] = 1
		}
	}
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
	// The namespace documents keep the name-like fields only. Their
	// entries are cut from shared blocks, as the operations' are.
	keep := func(e termEntry) bool { return nsField[e.f()] && ix.vocab[e.t()] != "" }
	var block []termEntry
	for _, members := range nsMembers {
		if len(members) < 2 {
			for _, d := range members {
				ix.nsOf[d] = -1
			}
			continue
		}
		size := 0
		for _, d := range members {
			for _, e := range docTerms[d] {
				if keep(e) {
					size++
				}
			}
		}
		if size > cap(block)-len(block) {
			block = make([]termEntry, 0, max(entryBlock, size))
		}
		all := block[len(block) : len(block) : len(block)+size]
		block = block[:len(block)+size]
		var l [numFields]uint16
		for _, d := range members {
			for _, e := range docTerms[d] {
				if keep(e) {
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
	ix.ns.buildDense(ix.nsUnits, heavyLimit(ix.nsUnits))
	ix.post = buildPostings(docTerms, lens, df, weights, tu)
	ix.post.buildMax()
	ix.post.buildDense(n, heavyLimit(n))
	ix.buildForward(n)
	ix.buildAgents(heavyLimit(n))
	ix.buildServices(ops)
	if !opts.noFuzzy {
		ix.buildDeletes()
	}
	return ix
}

// agentNouns calls fn with the term of each word of the index that is
// stem s with an agent suffix (agentSuffixes, in order: contribut+or,
// follow+er, assign+ee) and that at most heavy operations say: a frequent
// agent noun ("user" from "use") says little. A stem shorter than four
// letters has none.
func (ix *index) agentNouns(s string, heavy uint32, fn func(t uint32)) {
	if len(s) < 4 || len(s)+3 > 64 {
		return
	}
	var buf [64]byte
	for _, suf := range agentSuffixes {
		k := append(append(buf[:0], s...), suf...)
		if t, ok := ix.terms[string(k)]; ok && ix.df(t) <= heavy {
			fn(t)
		}
	}
}

// buildAgents fills agents: the agent nouns of every stem of the
// vocabulary, so that a query word the catalog says finds its own with
// no string built.
func (ix *index) buildAgents(heavy uint32) {
	ix.agents = map[uint32][]uint32{}
	for t, k := range ix.vocab {
		if s, ok := strings.CutPrefix(k, "~"); ok {
			ix.agentNouns(s, heavy, func(a uint32) { ix.agents[uint32(t)] = append(ix.agents[uint32(t)], a) })
		}
	}
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
		if len(s) < minCorrectLen-1 || isNumber(s) || !isWordKey(s) {
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

// maxCorrectLen is the longest query word that spelling correction tries
// to fix: its cost grows with the square of the word's length, and no
// word that long is a typo of a catalog's.
const maxCorrectLen = 48

// corrections returns vocabulary terms within edit distance one of the
// stem s (which is not itself in the vocabulary), at most max of them,
// preferring frequent terms.
func (ix *index) corrections(s string, max int, out []uint32) []uint32 {
	if ix.deletes == nil || len(s) < minCorrectLen || len(s) > maxCorrectLen {
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
		// Frequent terms first; ties by spelling, so that the choice does
		// not depend on term ids (which depend on the build's chunking).
		slices.SortFunc(got, func(a, b uint32) int {
			if c := int(ix.df(b)) - int(ix.df(a)); c != 0 {
				return c
			}
			return strings.Compare(ix.vocab[a], ix.vocab[b])
		})
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
// their tf, counts each distinct term once in df, and returns the merged
// entries, in place (a prefix of entries).
func mergeEntries(entries []termEntry, df []uint32) []termEntry {
	slices.Sort(entries)
	out := entries[:0]
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
	max    []float32 // per term, its largest val
	// Heavy terms (see heavyLimit) also have a rank bitmap, so that a
	// restricted scan (see accumulator.scan) looks each touched unit up
	// in constant time instead of walking a long posting list: dense[t]
	// is the first of term t's words in bits and ranks, or -1; bit u of
	// its words is set when unit u is in the list, and ranks[w] counts
	// the units before word w, so a unit's posting is at start[t] +
	// ranks[w] + the set bits under it in its word.
	dense []int32
	bits  []uint64
	ranks []uint32
}

// denseOf is term t's first word in bits and ranks, or -1 when it has
// no rank bitmap.
func (p *postings) denseOf(t uint32) int {
	if int(t) >= len(p.dense) {
		return -1
	}
	return int(p.dense[t])
}

// find returns where unit u's posting of term t is, in constant time for a
// term with a rank bitmap and by binary search otherwise.
func (p *postings) find(t, u uint32) (int, bool) {
	lo, hi := p.start[t], p.start[t+1]
	if o := p.denseOf(t); o >= 0 {
		w, b := p.bits[o+int(u>>6)], uint64(1)<<(u&63)
		if w&b == 0 {
			return 0, false
		}
		return int(lo + p.ranks[o+int(u>>6)] + uint32(bits.OnesCount64(w&(b-1)))), true
	}
	i, ok := slices.BinarySearch(p.doc[lo:hi], u)
	return int(lo) + i, ok
}

// buildDense gives the terms of more than heavy postings, among units
// units, their rank bitmaps.
func (p *postings) buildDense(units int, heavy uint32) {
	nt := len(p.start) - 1
	p.dense = make([]int32, nt)
	nw := (units + 63) / 64
	n := 0
	for t := range nt {
		p.dense[t] = -1
		if p.start[t+1]-p.start[t] > heavy {
			n++
		}
	}
	p.bits = make([]uint64, n*nw)
	p.ranks = make([]uint32, n*nw)
	o := 0
	for t := range nt {
		if p.start[t+1]-p.start[t] <= heavy {
			continue
		}
		p.dense[t] = int32(o)
		words, ranks := p.bits[o:o+nw], p.ranks[o:o+nw]
		for _, u := range p.doc[p.start[t]:p.start[t+1]] {
			words[u>>6] |= 1 << (u & 63)
		}
		var before uint32
		for w, x := range words {
			ranks[w] = before
			before += uint32(bits.OnesCount64(x))
		}
		o += nw
	}
}

// buildMax fills max.
func (p *postings) buildMax() {
	nt := len(p.start) - 1
	p.max = make([]float32, nt)
	for t := range nt {
		for _, v := range p.val[p.start[t]:p.start[t+1]] {
			p.max[t] = max(p.max[t], v)
		}
	}
}

// buildPostings computes BM25F contributions for units described by their
// merged term entries and field lengths; df counts units per term. Chunks of
// units are filled in parallel: each chunk counts its own postings per
// term first, so that it knows where its units go in every list.
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
	idf := make([]float64, nt)
	var p postings
	p.start = make([]uint32, nt+1)
	for t := range nt {
		p.start[t+1] = p.start[t] + df[t]
		idf[t] = bm25IDF(n, int(df[t]))
	}
	total := p.start[nt]
	p.doc = make([]uint32, total)
	p.val = make([]float32, total)
	p.fields = make([]uint16, total)
	cs := chunks(n)
	// fill[c][t] is where chunk c writes its next posting of term t.
	fill := make([][]uint32, len(cs))
	eachChunk(cs, func(c, lo, hi int) {
		cnt := make([]uint32, nt)
		for _, entries := range units[lo:hi] {
			prev := noTerm
			for _, e := range entries {
				if t := e.t(); t != prev {
					cnt[t]++
					prev = t
				}
			}
		}
		fill[c] = cnt
	})
	for t := range nt {
		at := p.start[t]
		for c := range cs {
			k := fill[c][t]
			fill[c][t] = at
			at += k
		}
	}
	k1 := tu.k1
	eachChunk(cs, func(c, lo, hi int) {
		fc := fill[c]
		var norm [numFields]float64
		for d := lo; d < hi; d++ {
			entries := units[d]
			for f := range numFields {
				b := tu.b[f]
				norm[f] = 1 - b + b*float64(lens[d][f])/avg[f]
			}
			for i := 0; i < len(entries); {
				t := entries[i].t()
				var tfw float64
				var mask uint16
				for ; i < len(entries) && entries[i].t() == t; i++ {
					e := entries[i]
					f := e.f()
					tfw += weights[f] * float64(e.tf()) / norm[f]
					mask |= 1 << f
				}
				k := fc[t]
				fc[t]++
				p.doc[k] = uint32(d)
				p.val[k] = float32(idf[t] * tfw * (k1 + 1) / (k1 + tfw))
				p.fields[k] = mask
			}
		}
	})
	return p
}
