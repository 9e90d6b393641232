package router

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/operations"
)

// Decision thresholds. Confidence is the share of the query's meaning (idf
// weight of its words, verbs discounted) that the candidate matches, scaled
// down when the runner-up is close. Tuned on testdata/intents/helpdesk.jsonl
// for run precision first (0.911 at a run rate of 0.19); see doc.go.
const (
	// noMatchCoverage is the floor: when the best candidate matches less
	// than this share of the query's weight, the answer is no match.
	noMatchCoverage = 0.22
	// runConfidence is the confidence the top candidate needs for
	// DecisionRun.
	runConfidence = 0.90
	// runMargin is the relative lead over the runner-up, (s1-s2)/s1, that
	// the top candidate needs for DecisionRun.
	runMargin = 0.30
	// runProbability is the least probability, under the re-ranker's
	// weights (the softmax of its pool, the quantity they were fitted
	// to), that a leader must have to run. 0.95 rather than 0.9: on the
	// corpus benchmark's tune split it removes a third of the false runs
	// for an eighth of the runs, and the weights, fitted there, are
	// overconfident elsewhere (BENCHMARKS.md, router round 6).
	runProbability = 0.95
	// marginRef is the margin at which the margin no longer lowers the
	// confidence.
	marginRef = 0.35
	// fullCoverage is the coverage of a leader that meets every word of
	// the request: hiddenRead asks only about a leader that misses some.
	fullCoverage = 0.999
)

// decide builds the result from hits, the final ranking. The decision
// (no match, run, choose) is taken on first, the ranking of the query's own
// words before feedback; a run needs both rankings to agree on the leader.
func (r *Router) decide(intent string, groups []group, qverb verbClass, hits, first []hit, total float32, f Filter, limit int, sc *scratch) Result {
	defer sc.clear()
	var res Result
	if idLike(intent) && !r.opts.noFuzzy {
		res = r.fuzzyResult(intent, hits, f, limit, sc)
		if len(res.Candidates) > 0 {
			return res
		}
	}
	if len(hits) == 0 || total <= 0 {
		res = Result{Decision: DecisionNoMatch}
		if len(hits) == 0 && total > 0 {
			r.hiddenOnly(groups, qverb, f, nil, &res, sc)
		}
		if len(hits) == 0 {
			res.Candidates = r.lastResort(sc.words, f, limit)
		}
		return res
	}
	res.Candidates = make([]Candidate, 0, len(hits))
	ex := r.newExplainer(groups, hits, sc)
	top := hits[0].s
	for i, h := range hits {
		cov := r.coverage(groups, sc.mask[h.d], total)
		c := Candidate{Op: r.ops[h.d], Score: float64(h.s)}
		conf := cov * math.Sqrt(float64(h.s/top))
		if i == 0 {
			margin := 1.0
			if len(hits) > 1 {
				margin = float64((hits[0].s - hits[1].s) / hits[0].s)
			}
			// A leader the first pass also put first is as far ahead
			// as the nearer of the two passes says: how sure the
			// re-ranker's weights are of their order is not evidence
			// the words gave.
			if len(first) > 1 && first[0].d == h.d && !r.opts.noRunGate {
				margin = min(margin, float64((first[0].s-first[1].s)/first[0].s))
			}
			conf = cov * (0.6 + 0.4*math.Min(1, margin/marginRef))
		}
		if i > 0 {
			conf = min(conf, res.Candidates[0].Confidence)
		}
		c.Confidence = conf
		c.Matched, c.Fields = ex.explain(sc.mask[h.d], r.matchFields(groups, h.d, sc))
		res.Candidates = append(res.Candidates, c)
	}
	if len(first) == 0 {
		first = hits
	}
	// Whether the request is about something here leaves out a verb the
	// catalog never says (see group.unsaid), a value in a name's place
	// (group.value), what a search searches for (searchText) and a name
	// given in words (calledName), and a word of a change's extent the
	// catalog does not say ("partially", which the method says:
	// extentOnly): the catalog need not say "acme" to serve "the acme
	// organization". A leader that meets them has met
	// the request that much more, except for the word that gives a name
	// ("called"), which says nothing of what is asked. How sure a run is
	// still counts them all, as the ranking does.
	scope := total
	names, naming := r.calledName(groups, sc.words)
	values := r.searchText(groups, qverb, sc.words) | names | naming
	for i := range groups {
		if g := &groups[i]; g.unsaid || g.value || values&(1<<uint(i)) != 0 || r.extentOnly(g) {
			scope -= g.cov
		}
	}
	topCov := r.coverage(groups, sc.mask[first[0].d]&^naming, scope)
	margin := 1.0
	if len(first) > 1 {
		margin = float64((first[0].s - first[1].s) / first[0].s)
	}
	switch {
	case topCov < noMatchCoverage || r.verbOnly(groups, first, sc) || r.unknownObject(groups, sc.mask[first[0].d], sc.words):
		// Weak partial matches stay: they are the closest the catalog
		// has, and a caller shows them flagged. Hiding them would tell
		// an agent the catalog cannot serve the intent when it may.
		// A hidden call the request names, or a hidden write that meets
		// it better, is why, when there is one.
		res.Decision = DecisionNoMatch
		if !r.hiddenAction(groups, qverb, f, first[0], &res, sc) {
			r.hiddenOnly(groups, qverb, f, &first[0], &res, sc)
		}
	case qverb.kind() != operations.KindRead && qverb.kind() != "" && r.ops[first[0].d].Kind == operations.KindRead && r.hiddenOutscores(groups, qverb, f, first[0].s, sc):
		// "delete ticket 4" on a read-only server: the operation it asks
		// for is hidden by the filter, and the reads left do something
		// else. The reads stay as "closest"; Result.Verb says why.
		res.Decision = DecisionNoMatch
	case r.hiddenAction(groups, qverb, f, first[0], &res, sc):
		// "pay an invoice" on a read-only server: a verb the lexicon
		// does not know, but a hidden write is named for it and
		// outscores the reads. Result.Hidden names the write.
		res.Decision = DecisionNoMatch
	case topCov < fullCoverage && r.hiddenRead(groups, qverb, f, first[0], &res, sc):
		// "Gets the access control policy" among reads, where the call
		// is POST .../{resource}:getIamPolicy: a read by its name, a
		// write by its method, hidden. Result.Hidden names it.
		res.Decision = DecisionNoMatch
	case r.mayRun(groups, qverb, res.Candidates[0].Confidence, margin, hits, first, sc):
		res.Decision = DecisionRun
	default:
		res.Decision = DecisionChoose
	}
	// "Invoke function getEmailActivityCounts", "Generate report of app
	// installations": a verb that does not say whether the operation
	// changes state (neutralVerbs). When the catalog's best answer reads
	// (both passes lead with a read, and no operation the filter hides
	// outscores it: hiddenOutscores said so above), the request reads, and
	// a read-only server answers it.
	if r.tu.neutralVerbs && res.Decision != DecisionNoMatch && qverb.kind() == operations.KindWrite &&
		r.ops[first[0].d].Kind == operations.KindRead && res.Candidates[0].Op.Kind == operations.KindRead && neutralVerb(groups) {
		res.Verb = operations.KindRead
	}
	return res
}

// unknownObject reports whether no word of the request's object is one
// the catalog says, nor a learned neighbour of one that the leader
// (whose groups lead holds) meets (unknownWord): what the request acts on
// is not here ("order a pizza for the team", "summarise this PDF for
// me"), whatever its other words meet (ablation "unknown-object"). The
// object is the words after the request's verb (or after the word in the
// verb's place), through "of" and "about", up to another stop word: "a
// subset of information", and "Update existing subscription" is about a
// subscription. A word ending in "ly" is taken for an adverb and skipped
// ("Deletes permanently"), and a number ends the object, which it may
// identify ("escalate 18, nurses are locked out").
func (r *Router) unknownObject(groups []group, lead uint64, words []string) bool {
	if !r.tu.unknownObject {
		return false
	}
	verb := -1
	for gi := range groups {
		if g := &groups[gi]; (g.verb || g.action) && g.at > 0 {
			verb = gi
			break
		}
	}
	if verb < 0 {
		return false
	}
	i := int(groups[verb].at) // the word after the verb
	for i < len(words) && determines(words[i]) {
		i++
	}
	seen := false
	for ; i < len(words); i++ {
		w := words[i]
		if w == "of" || w == "about" {
			for i+1 < len(words) && determines(words[i+1]) {
				i++
			}
			continue
		}
		if isStopWord(w) || r.tu.calledNames && namingWord(w) {
			break // "order a pizza called margherita" acts on a pizza
		}
		if isNumber(w) {
			return false
		}
		if strings.HasSuffix(w, "ly") {
			continue
		}
		k := -1
		for gi := range groups {
			if g := &groups[gi]; int(g.at) == i+1 && !g.learned {
				k = gi
				break
			}
		}
		if k < 0 {
			continue // a repeated word, counted where it came first
		}
		if !r.unknownWord(groups, k, lead) {
			return false
		}
		seen = true
	}
	return seen
}

// unknownWord reports whether groups[k] is a word the catalog does not
// say, nor any correction of it, no value, and the leader (whose groups
// lead holds) does not meet it through its learned neighbours, a word of
// the API's language that the catalog writes otherwise.
func (r *Router) unknownWord(groups []group, k int, lead uint64) bool {
	g := &groups[k]
	if len(g.variants) > 0 || g.value || g.cov == 0 {
		return false
	}
	for i := range groups {
		if n := &groups[i]; n.learned && n.surface == g.surface && lead&(1<<uint(i)) != 0 {
			return false
		}
	}
	return true
}

// verbOnly reports whether the request says something besides its verb
// that no candidate of hits meets (decide passes the first pass's whole
// pool, so that how many candidates a caller asked to see does not decide
// it): "Publish Mock" against "Creates a new
// policy", whose only word in common is the verb's class. A verb is
// evidence of what a request does, not of what it is about; a catalog
// that meets only the verb does not show it serves the request, however
// little its other words weigh (a small catalog's idf is low). Words with
// no weight (values, learned neighbours) are not counted.
func (r *Router) verbOnly(groups []group, hits []hit, sc *scratch) bool {
	if !r.tu.verbOnly {
		return false
	}
	var content uint64
	for gi := range groups {
		if g := &groups[gi]; !g.verb && g.cov > 0 {
			content |= 1 << uint(gi)
		}
	}
	if content == 0 {
		return false
	}
	for _, h := range hits {
		if sc.mask[h.d]&content != 0 {
			return false
		}
	}
	return true
}

// neutralVerb reports whether the request's verb, in any person, is one
// of neutralVerbs.
func neutralVerb(groups []group) bool {
	for _, g := range groups {
		if g.verb {
			return neutralVerbs[plural(g.surface)]
		}
	}
	return false
}

// mayRun reports whether the leader of hits, with confidence conf and
// first's margin, may run: confident, clearly ahead, the same leader on
// both passes, doing what the verb asks, when the re-ranker ordered the
// candidates likely under its weights, set apart from its nearest rival
// by a word of the request, with no operation close behind it named for
// the action the request asks, no twin on its path that the verb fits
// as well, no rival that refines its address by a word the request says
// (refinedElsewhere), and, when the request undoes a relation, a leader
// that names it (deletesAnEnd), with no other version of it close behind
// (otherVersion), whose resource the request names (unnamedHead), and
// that is not under the compound the request names (compoundElsewhere).
func (r *Router) mayRun(groups []group, qverb verbClass, conf, margin float64, hits, first []hit, sc *scratch) bool {
	return conf >= runConfidence && margin >= runMargin &&
		first[0].d == hits[0].d &&
		r.runAgrees(groups, qverb, hits[0].d) && !r.listsOne(groups, sc.words, qverb, hits[0].d) &&
		(r.opts.noRunGate || sc.odds.lead < 0 || sc.odds.prob() >= runProbability) &&
		r.decisive(groups, first, sc) && !r.namedElsewhere(groups, first) && !r.twinned(qverb, first, sc.words, sc.method) && !r.objectElsewhere(groups, first, sc) &&
		!r.namedObject(groups, sc) && r.saysObject(groups, first[0].d, sc) && !r.headElsewhere(groups, first, sc) &&
		!r.unnamedWrite(groups, first[0].d, sc.mask[first[0].d]) && !r.metInParamsOnly(groups, first[0].d, sc) &&
		!r.refinedElsewhere(groups, first) && !r.deletesAnEnd(groups, first[0].d) && !r.otherVersion(first, sc.words) &&
		!r.unnamedHead(groups, first[0].d, sc.mask[first[0].d]) && !r.compoundElsewhere(groups, first, sc)
}

// deletesAnEnd reports whether the request undoes a relation ("Unlink
// Service", "detach the volume", "unassign a license"; relationUndone)
// and operation d, a change, names neither the relation nor two things
// of it (ablation "undone-relations"). Such a change deletes or rewrites
// one end of the relation, not the link between the two: "Unlink Service"
// meets DELETE .../services/{resourceName}, "Delete a service instance",
// in every word once "unlink" is read as a delete, and running it would
// destroy what the caller asked to keep. The relation is named when d's
// name says what the verb undoes ("link" in /links, "attach" in
// /attachments, "follow" in /following), or when two segments of its
// address each say a thing of the request, or the caller ("Unassign
// user's calling plan": DELETE /phone/users/{userId}/calling_plans/{type};
// "Disconnect Vendor": DELETE /me/vendors/{vendor}).
func (r *Router) deletesAnEnd(groups []group, d uint32) bool {
	op := r.ops[d]
	if !r.tu.undoneRelations || op.Kind == operations.KindRead {
		return false
	}
	base := ""
	for _, g := range groups {
		if g.verb && g.at > 0 {
			base = relationUndone(g.surface)
			break
		}
	}
	if base == "" {
		return false
	}
	var buf [256]byte
	name := nameText(op, buf[:0])
	if inNameText(name, base) || inNameText(name, r.stemOf(base)) {
		return false
	}
	// Two things of the request in two segments: the relation is the
	// path's nesting ("Unassign user's calling plan", DELETE
	// /phone/users/{userId}/calling_plans/{type}).
	var abuf [256]byte
	segs := 0
	for _, seg := range bytes.Fields(addressText(op, abuf[:0])) {
		if string(seg) == callerWord {
			segs++ // the caller is one end of the relation: DELETE /me/vendors/{vendor}
			continue
		}
		for gi := range groups {
			if g := &groups[gi]; !g.verb && g.at > 0 && !g.bigram && r.wordIn(seg, g.surface) {
				segs++
				break
			}
		}
	}
	return segs < 2
}

// wordIn reports whether a word of the request, folded (foldWord: a
// compound's words run together, "gift card"), singular or stemmed, is
// inside the folded name text, as unnamedWrite reads a name: how
// addressSays and deletesAnEnd read an address. Words under three
// letters are not.
func (r *Router) wordIn(text []byte, word string) bool {
	var buf [64]byte
	w := string(foldWord(buf[:0], word))
	return len(w) >= 3 && (inNameText(text, plural(w)) || inNameText(text, r.stemOf(w)))
}

// refinedElsewhere reports whether a rival close behind the leader of
// first, of the same kind, refines it by a word of the request: the
// rival's address holds every word of the leader's and says, besides
// every word of the request the leader's address says, one more
// (ablation "refined-elsewhere"). "Lists the available video view
// exports" leads with GET /data/v1/exports, whose text speaks of views,
// while GET /data/v1/exports/views names them; "Get historical meetings"
// leads with GET /meetings over GET /historicalMeetings. The request may
// ask for the refinement or merely mention it, so running the leader
// would be a guess. An address that says no word of the request (GET
// /v1/{name}) is refined by any other and is left to the other rules.
func (r *Router) refinedElsewhere(groups []group, first []hit) bool {
	if len(first) < 2 || !r.tu.refinedElsewhere {
		return false
	}
	lead := first[0].d
	said := r.addressSays(groups, lead)
	if said == 0 {
		return false
	}
	for _, h := range closeBehind(first) {
		if r.ops[h.d].Kind != r.ops[lead].Kind {
			continue
		}
		if more := r.addressSays(groups, h.d); more&said == said && more != said && r.holdsAddress(h.d, lead) {
			return true
		}
	}
	return false
}

// otherVersion reports whether a rival close behind the leader of first
// is the same operation in another version of the API, and the request
// names no version (ablation "versions"): the two share their kind and
// HTTP method, and their paths, or failing that their ids' names, read
// the same once their version segments are left out (GET
// /api-reporting/v1/incidents and GET /api-reporting/v2/incidents;
// resendPayeeInviteV3 and resendPayeeInviteV4). Which version the caller
// means is theirs to say; running either would be a guess.
func (r *Router) otherVersion(first []hit, words []string) bool {
	if len(first) < 2 || !r.tu.versions || slices.ContainsFunc(words, namesVersion) {
		return false
	}
	lead := r.ops[first[0].d]
	for _, h := range closeBehind(first) {
		op := r.ops[h.d]
		if op.Kind != lead.Kind || (op.HTTP == nil) != (lead.HTTP == nil) {
			continue
		}
		if lead.HTTP != nil {
			if !strings.EqualFold(op.HTTP.Method, lead.HTTP.Method) {
				continue
			}
			if a, b := unversionedPath(lead.HTTP.Path), unversionedPath(op.HTTP.Path); a != "" && a == b && lead.HTTP.Path != op.HTTP.Path {
				return true
			}
		}
		if a, b := unversionedName(lead.ID), unversionedName(op.ID); a != "" && a == b && lead.ID != op.ID {
			return true
		}
	}
	return false
}

// namesVersion reports whether w names a version: "v" and digits, dots
// between them ("v3", "v2.1"), or digits with a dot ("2.0"); not a bare
// number, which an example id in a path is too ("/players/237"), nor a
// hash ("8345112d") or a word with digits ("2fa"). It is stricter than
// versionSegment, which passes over any segment opening with a digit where
// a path's words are read, because here a false version makes two
// different operations one; versionWord (services) reads only the "v"
// form, in service names.
func namesVersion(w string) bool {
	s, v := strings.CutPrefix(strings.ToLower(w), "v")
	if s == "" || len(s) > 8 || s[0] < '0' || s[0] > '9' {
		return false
	}
	dot := false
	for _, c := range []byte(s) {
		switch {
		case c == '.':
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return v || dot
}

// unversionedPath returns an HTTP path without its version segments
// (namesVersion), folded to lower case; "" when it has none.
func unversionedPath(path string) string {
	var b strings.Builder
	found := false
	for seg := range strings.SplitSeq(path, "/") {
		if namesVersion(seg) {
			found = true
			continue
		}
		b.WriteString(strings.ToLower(seg))
		b.WriteByte('/')
	}
	if !found {
		return ""
	}
	return b.String()
}

// unversionedName returns the words of an id's name without its version
// words ("resend_payee_invite_v3" and "resendPayeeInviteV4" both give
// "resend payee invite"); "" when it has none.
func unversionedName(id string) string {
	var words []string
	found := false
	splitWordsParts(id[strings.LastIndexByte(id, '.')+1:], false, func(w string) {
		if namesVersion(w) {
			found = true
			return
		}
		words = append(words, w)
	})
	if !found {
		return ""
	}
	return strings.Join(words, " ")
}

// holdsAddress reports whether operation d's address holds every word of
// operation lead's.
func (r *Router) holdsAddress(d, lead uint32) bool {
	addr := r.address(d)
	for _, w := range r.address(lead) {
		if !slices.Contains(addr, w) {
			return false
		}
	}
	return true
}

// addressSays returns the mask of the request's words that operation d's
// address says, as unnamedWrite reads a name: the word's term is one of
// the address's, or the word, singular or stemmed, is inside one of its
// segments ("giftcard" in /giftcardproviders). Its verb, the catalog's
// HTTP methods, a verb the catalog does not say and learned neighbours
// are not what is asked (the verb's fit is runAgrees' business).
func (r *Router) addressSays(groups []group, d uint32) uint64 {
	addr := r.address(d)
	var buf [256]byte
	text := addressText(r.ops[d], buf[:0])
	var m uint64
	for gi := range min(len(groups), 64) {
		g := &groups[gi]
		if g.verb || g.unsaid || g.at == 0 || g.bigram || len(g.variants) == 0 {
			continue // no word of what the request asks for
		}
		if slices.Contains(addr, g.variants[0].t) || r.wordIn(text, g.surface) {
			m |= 1 << uint(gi)
		}
	}
	return m
}

// metInParamsOnly reports whether the request meets operation d only in
// its parameters' names and descriptions, while d's address names
// something the request could have said: what the request says is then
// an input d takes, not what d does. "Deprecated." meets GET
// /get/list/{page} only in its page parameter's note that numeric pages
// are deprecated; running it would be a guess (ablation "params-only").
// An address of templates and versions alone (PATCH /v1/{name}) names
// nothing, so its parameters may be all a request can meet and the other
// rules judge it.
func (r *Router) metInParamsOnly(groups []group, d uint32, sc *scratch) bool {
	const paramFields = 1<<fParam | 1<<fParamDesc
	return r.tu.paramsOnly && r.matchFields(groups, d, sc)&^paramFields == 0 && namesSomething(r.ops[d])
}

// extentOnly reports whether g is a word of a change's extent
// (extentWord) that the catalog does not say: by it the request says
// which method it asks for ("partially update a volume" asks the PATCH);
// it is no word an operation has to meet (ablation "part-or-whole").
func (r *Router) extentOnly(g *group) bool {
	said, _ := extentWord(g.surface)
	return r.tu.partOrWhole && said != "" && !g.known
}

// headElsewhere reports whether the request's object (object) does not
// say the head word of the resource the leader of first acts on
// (index.heads), and says that of a candidate close behind it of the
// leader's kind, under the leader's path: "Get GiftCard from GiftCard
// Provider by ID" leads with GET /giftcardproviders/{id}, which meets
// every word, while GET .../{id}/giftcards/{giftCardId} reads the gift
// card the request asks for. Running the leader would be a guess
// (ablation "object-head").
func (r *Router) headElsewhere(groups []group, first []hit, sc *scratch) bool {
	if len(first) < 2 || !r.tu.objectHead {
		return false
	}
	var buf [2 * maxGroups]uint32
	object := object(groups, sc.words, buf[:0])
	lead := first[0].d
	if h := r.idx.heads[lead]; h == noTerm || r.idx.kind(h)&collWord == 0 || slices.Contains(object, h) {
		return false
	}
	for _, h := range closeBehind(first) {
		if r.ops[h.d].Kind == r.ops[lead].Kind && r.idx.heads[h.d] != noTerm && slices.Contains(object, r.idx.heads[h.d]) && r.under(h.d, lead) {
			return true
		}
	}
	return false
}

// compoundElsewhere reports whether the request's object is a compound
// that a candidate close behind the leader of first, of its kind, is
// named for whole, and the leader acts on a thing under that one, whose
// head word the compound says only before its last word: "Get a specific
// `ReservationOrder`" meets GET
// /reservationOrders/{id}/reservations/{reservationId} in every word,
// with "specific" from its summary, while GET /reservationOrders/{id}
// reads the order the request asks for, "reservation" being what kind of
// order (ablation "compound-objects"). A modifier that no rival is
// named for together with the head ("parent nodes" of
// /nodes/{id}/parents, "child registrations") says which ones and leaves
// the leader running. headElsewhere stops the converse, a leader over the
// thing asked for.
func (r *Router) compoundElsewhere(groups []group, first []hit, sc *scratch) bool {
	if len(first) < 2 || !r.tu.compoundObjects {
		return false
	}
	start, end := objectSpan(groups, sc.words)
	if start == 0 || start == end {
		return false
	}
	// The terms of the compound's last word, and of the words before it.
	var lastBuf, beforeBuf [2 * maxGroups]uint32
	last, before := lastBuf[:0], beforeBuf[:0]
	for _, g := range groups {
		if g.at == 0 || int(g.at) < start || int(g.at) > end || len(g.variants) == 0 || strings.IndexByte(g.surface, ' ') >= 0 || g.bigram {
			continue
		}
		if int(g.at) == end {
			last = append(last, g.variants[0].t)
			last = append(last, g.res[:g.nres]...)
		} else {
			before = append(before, g.variants[0].t)
			before = append(before, g.res[:g.nres]...)
		}
	}
	lead := first[0].d
	if h := r.idx.heads[lead]; h == noTerm || r.idx.kind(h)&collWord == 0 || slices.Contains(last, h) || !slices.Contains(before, h) {
		return false
	}
	// The compound run together ("reservationorder"), as a path segment
	// writes it.
	var phraseBuf, nounBuf [64]byte
	phrase := phraseBuf[:0]
	for k := start; k <= end && k <= len(sc.words); k++ {
		phrase = foldWord(phrase, sc.words[k-1])
	}
	for _, h := range closeBehind(first) {
		op := r.ops[h.d]
		if op.Kind == r.ops[lead].Kind && op.HTTP != nil && slices.Contains(last, r.idx.heads[h.d]) && r.under(lead, h.d) &&
			bytes.Contains(foldWord(nounBuf[:0], pathNoun(op.HTTP.Path)), phrase) {
			return true
		}
	}
	return false
}

// unnamedWrite reports whether operation d changes state and its name,
// the literal segments of its HTTP path and its resource (the id segment
// before its name), says no word of the request: neither what the request
// names nor its verb, or the verb it undoes ("untag" is said by /tags).
// What d changes is then not what the request asked to change, whatever
// its description and parameters met: "Delete a Resource" meets DELETE
// /{resourceUri}/providers/Microsoft.Advisor/recommendations/{id}/suppressions/{name}
// in a parameter's name, and "Create API" meets a search domain's
// document upload in its description. Running a write on that is a guess
// the caller cannot undo (ablation "unnamed-writes"). A parameter the
// request names is said too (setsField), and so is the caller ("my") by
// a path that names the caller (PATCH /user). A read may still run: a
// wrong read costs a second call, and on the tune split a version that
// read reads too stopped 9 more right runs and no more wrong ones.
//
// A word is said when its term is one of the name's, or when the word,
// singular or stemmed, is inside a segment with the segment's separators
// dropped: the index splits run-together names ("clickwraps" is click and
// wrap where no text says "clickwrap") and folds plurals by rule
// ("movies" to "movy"), while "clickwrap", "movie" and "voicemail" are in
// /clickwraps, /movies and /voice_mails as written. A name's word of four
// letters or more that begins the word abbreviates it (/repos names a
// repository). A synonym does not say it: a user is not the account of
// API Gateway's PATCH /account, whatever the lexicon relates.
func (r *Router) unnamedWrite(groups []group, d uint32, mask uint64) bool {
	op := r.ops[d]
	if !r.tu.unnamedWrites || op.Kind == operations.KindRead || !namesWhat(op) {
		return false
	}
	address, res := r.address(d), r.idx.resTerms.of(d)
	inName := func(t uint32) bool { return slices.Contains(address, t) || slices.Contains(res, t) }
	var buf [256]byte
	name := nameText(op, buf[:0])
	if namesCaller(groups, mask) {
		return false
	}
	for _, g := range groups {
		if g.at == 0 || g.bigram || len(g.variants) == 0 {
			continue // not one word of the request
		}
		if inName(g.variants[0].t) { // the word as said (its other variants are synonyms)
			return false
		}
		w := g.surface
		if base, ok := reversalBase(w); ok && g.verb {
			w = base // the verb it undoes; the class's other verbs are not in the name
		}
		if len(w) >= 3 && (inNameText(name, plural(w)) || abbreviates(name, w) || inNameText(name, r.stemOf(w))) {
			return false
		}
	}
	return !r.setsField(groups, op)
}

// setsField reports whether a parameter of op (a request body's property
// too) is named, whole, by a word the request says other than its verb:
// "update my bio" changes the bio of PATCH /user, a field of what its
// name says.
func (r *Router) setsField(groups []group, op *operations.Operation) bool {
	found := false
	var buf [64]byte
	paramFields(op.Input, paramDepth, func(f field, text string) {
		if found || f != fParam || len(text) > len(buf) {
			return
		}
		key := foldWord(buf[:0], text)
		found = slices.ContainsFunc(groups, func(g group) bool {
			return g.at > 0 && !g.verb && !g.bigram && (string(key) == g.surface || string(key) == plural(g.surface))
		})
	})
	return found
}

// namesCaller reports whether the request's "my" (the caller group
// callerTerm adds) is among the groups in mask, the ones an operation
// met: its path names the caller (callerPaths), which "my" names.
func namesCaller(groups []group, mask uint64) bool {
	for gi := range groups {
		if groups[gi].surface == callerWord && groups[gi].at == 0 && mask&(1<<uint(gi)) != 0 {
			return true
		}
	}
	return false
}

// unnamedHead reports whether the request names neither the resource the
// leader d acts on, the head word of its HTTP path (index.heads), nor
// the head word of the group its id files it under (its resource
// segment, an API's tag): a run of d would then be a guess at what the
// request acts on, however well its other words met it (ablation
// "unnamed-heads"). "Dial" meets POST
// /conferences/{id}/actions/dial_participant in its verb alone, and
// "gets user" meets GET /get_users_for_topic in the users its name
// reads; neither says a participant or a topic. A word names a head as
// saysWord reads it; "my" names what a path for the caller reads (PATCH
// /user for "update my bio"). A path whose head is no collection's word
// ("/releases/latest", "/ships/{id}/refuel") is left to the other rules.
func (r *Router) unnamedHead(groups []group, d uint32, mask uint64) bool {
	h := r.idx.heads[d]
	if !r.tu.unnamedHeads || h == noTerm || r.idx.kind(h)&collWord == 0 || r.saysWord(groups, h) {
		return false
	}
	if namesCaller(groups, mask) {
		return false
	}
	var buf [64]byte
	last, _ := lastWord(resourceSegment(r.ops[d].ID), buf[:0])
	t, ok := r.idx.terms[plural(last)]
	return last == "" || !ok || !r.saysWord(groups, t)
}

// saysWord reports whether a word of the request says term t: t is one of
// the word's variants (as said, a synonym, a learned neighbour) or a
// resource it names; the word, singular or stemmed, is inside t's text
// (wordIn), or t's text inside the word ("voicemail" says the mail of
// /voice_mails, which the index splits); the two share a stem
// ("register" and /registrations); or the word undoes t ("unfollow" and
// /follows).
func (r *Router) saysWord(groups []group, t uint32) bool {
	text := []byte(r.idx.vocab[t])
	stem := r.stemOf(string(text))
	var buf [64]byte
	for gi := range groups {
		g := &groups[gi]
		if slices.ContainsFunc(g.variants, func(v variant) bool { return v.t == t }) || slices.Contains(g.res[:g.nres], t) {
			return true
		}
		if g.at == 0 || g.bigram {
			continue
		}
		w := foldWord(buf[:0], g.surface)
		if r.wordIn(text, g.surface) || len(text) >= 2 && bytes.Contains(w, text) {
			return true
		}
		if stem != "" && r.stemOf(string(w)) == stem {
			return true
		}
		if base, ok := reversalBase(string(w)); ok && r.wordIn(text, base) {
			return true
		}
	}
	return false
}

// stemOf returns w's stem as the index holds it ("movi" for "movies";
// stemTerm caches it), "" when no text of the catalog has it: the search
// does not run the stemmer again.
func (r *Router) stemOf(w string) string {
	if t, ok := r.idx.stemTerm(w); ok {
		return strings.TrimPrefix(r.idx.vocab[t], "~")
	}
	return ""
}

// inNameText reports whether name (nameText) holds w, a word ("" is none).
func inNameText(name []byte, w string) bool {
	var buf [64]byte
	return w != "" && len(w) <= len(buf) && bytes.Contains(name, append(buf[:0], w...))
}

// abbreviates reports whether a word of name (nameText) of four letters or
// more, without a plural's "s", begins w: /repos names a repository.
func abbreviates(name []byte, w string) bool {
	for len(name) > 0 {
		seg := name
		if i := bytes.IndexByte(name, ' '); i >= 0 {
			seg, name = name[:i], name[i+1:]
		} else {
			name = nil
		}
		seg = bytes.TrimSuffix(seg, []byte("s"))
		if len(seg) >= 4 && len(seg) < len(w) && w[:len(seg)] == string(seg) {
			return true
		}
	}
	return false
}

// nameText appends to dst the words of op's name that unnamedWrite reads,
// each segment folded (foldWord): its address (addressText) and its
// resource, a space between segments.
func nameText(op *operations.Operation, dst []byte) []byte {
	return foldWord(append(addressText(op, dst), ' '), resourceSegment(op.ID))
}

// addressText appends to dst op's HTTP path's literal segments (its id's
// name without a path), each folded (foldWord), a space before each.
func addressText(op *operations.Operation, dst []byte) []byte {
	if op.HTTP == nil || op.HTTP.Path == "" {
		return foldWord(append(dst, ' '), op.ID[strings.LastIndexByte(op.ID, '.')+1:])
	}
	for path := op.HTTP.Path; path != ""; {
		seg := path
		if i := strings.IndexByte(path, '/'); i >= 0 {
			seg, path = path[:i], path[i+1:]
		} else {
			path = ""
		}
		if literalSegment(seg) {
			dst = foldWord(append(dst, ' '), seg)
		}
	}
	return dst
}

// foldWord appends s to dst lower-cased with everything but its letters
// and digits dropped: "voice_mails" is "voicemails", "Content-Type"
// "contenttype".
func foldWord(dst []byte, s string) []byte {
	for _, c := range []byte(s) {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if isASCIIAlnum(c) || c >= utf8.RuneSelf {
			dst = append(dst, c)
		}
	}
	return dst
}

// under reports whether operation d's HTTP path extends parent's by one
// or more segments, any parameter standing for any other (paths): GET
// /providers/{providerID}/giftcards/{cardId} is under GET
// /providers/{providerId}.
func (r *Router) under(d, parent uint32) bool {
	c, p := r.paths.of(int(d)), r.paths.of(int(parent))
	return len(p) > 0 && len(c) > len(p) && slices.Equal(c[:len(p)], p)
}

// saysObject reports whether the leader d met a word of the request
// other than its verb, or has the verb in its address: "Delete" and
// "register" say what to do and not to what, and an operation that meets
// the verb alone in its description or params, even in a catalog of one,
// is a guess at the object; POST /register is named for it (ablation
// "verb-alone").
func (r *Router) saysObject(groups []group, d uint32, sc *scratch) bool {
	if !r.tu.verbAlone {
		return true
	}
	for gi := range groups {
		g := &groups[gi]
		if sc.mask[d]&(1<<uint(gi)) == 0 {
			continue
		}
		if !g.verb || len(g.variants) > 0 && slices.Contains(r.address(d), g.variants[0].t) {
			return true
		}
	}
	return false
}

// namedObject reports whether the word right after the request's verb is
// a name the catalog does not say ("put Bluefin Retail on the premium
// SLA", "move Acme to the EU region"): what the request acts on is
// something named, and its words do not say what kind of thing it is; the
// operation that meets its other words acts on something else as often
// as not (the SLA's policy, where the request changes an organisation's
// plan). Running it would be a guess (ablation "named-object").
func (r *Router) namedObject(groups []group, sc *scratch) bool {
	if !r.tu.namedObject {
		return false
	}
	i := requestVerb(groups)
	if i < 0 {
		return false
	}
	at := int(groups[i].at) // the verb's place + 1: the next word's index in sc.words
	named := func(k int) bool {
		return k < len(sc.words) && slices.Contains(sc.names, sc.words[k]) && slices.ContainsFunc(groups, func(g group) bool {
			return int(g.at) == k+1 && len(g.variants) == 0 && g.cov == 0
		})
	}
	if !named(at) {
		return false
	}
	for at < len(sc.words) && named(at) {
		at++
	}
	// "show Marcus's tickets": a possessive name says whose, and its
	// object follows.
	return at == len(sc.words) || sc.words[at] != "s"
}

// requestVerb returns the index in groups of the request's verb as one
// of its words (the lexicon's class of it, not a phrasal verb's or a
// synonym's group), -1 when it has none.
func requestVerb(groups []group) int {
	return slices.IndexFunc(groups, func(g group) bool { return g.verb && g.at > 0 })
}

// decisive reports whether a word of the request sets the leader of
// first apart from its nearest rival: the leader matched a word (or
// phrase) other than the request's verb that the rival did not, and the
// rival none the leader did not. Two operations that matched the same
// words differ only in where those words sit (field weights, length,
// priors), which ranks them but cannot tell which one the caller meant:
// "list coaches" matches the list of every coach and the coaches of one
// patient alike, and running either would be a guess.
//
// A rival is a later candidate (of the next few) that is as good a
// reading of the request: it is of the leader's kind (a read does not
// rival a delete), and its address names no more words the request left
// out than the leader's does (unasked). "delete gist 3" runs the gist's
// delete although the delete of a gist's comment matched the same words:
// the comment is not in the request.
//
// A rival whose address names fewer words the request left out is a
// better reading than the leader, whatever it matched (ablation
// "fewer-unasked"): "Creates a spreadsheet" does not run the copy of one
// of its sheets, which led on the request's other words, while POST
// /v4/spreadsheets is close behind.
func (r *Router) decisive(groups []group, first []hit, sc *scratch) bool {
	if len(first) < 2 || !r.tu.decisive {
		return true
	}
	// The request's verb does not set the leader apart: "Retrieve
	// target" matched "retrieve" in GET /targets/{id}/scans/retrieve_page
	// and not in GET /targets/{id}, but says which target, not which of
	// the two; the verb's fit is runAgrees' business.
	var verbs uint64
	if r.tu.verbNotDeciding {
		for gi := range groups {
			if groups[gi].verb {
				verbs |= 1 << uint(gi)
			}
		}
	}
	lead := first[0].d
	extra := r.unasked(lead, sc)
	for _, h := range closeBehind(first) {
		if r.ops[h.d].Kind != r.ops[lead].Kind {
			continue
		}
		un := r.unasked(h.d, sc)
		if r.tu.fewerUnasked && un < extra {
			return false
		}
		if un > extra {
			continue
		}
		a, b := sc.mask[lead], sc.mask[h.d]
		return a&^b&^verbs != 0 && b&^a == 0
	}
	return true
}

// namedElsewhere reports whether one of the candidates after the leader
// of first (of the next few, of any kind) has in its address the
// request's action word, which the leader's address lacks. An API that has
// an operation named for the action the request asks is where a caller
// who asked it most likely meant to go, even when the other words rank
// another first: "Reset a server" ranks the server's delete first
// ("reset" is learned as a delete), while POST /servers/{id}/actions/reset
// says "reset"; "Detach volume" ranks DELETE /volumes/{id} over
// .../actions/detach. Running the leader would be a guess, so the answer
// is choose, with both listed.
//
// An address says the word inflected too (ablation "named-stems"): "Pin
// a List" ranks PUT /2/lists/{id} first (a pin is learned as an update)
// while POST /2/users/{id}/pinned_lists says it; "unpin" is about pins
// (reversalBase). Only a past participle counts: a noun made from a verb
// ("removal", "listings") names a thing, not the action, and the
// participle of a verb a class is searched as ("deleted", "updated") a
// state or an event (generalVerb).
//
// A word in the verb's place that the lexicon does not know counts when a
// candidate close behind is a change on an item whose path ends with it
// (actsOnItem, ablation "action-segments"): "Hold conference
// participants" does not run the participants' list while POST
// /conferences/{id}/actions/hold is second.
func (r *Router) namedElsewhere(groups []group, first []hit) bool {
	if len(first) < 2 || !r.tu.namedElsewhere {
		return false
	}
	lead := r.address(first[0].d)
	for _, g := range groups {
		if r.tu.actionSegments && g.action && !g.verb && g.at > 0 && len(g.variants) > 0 && !slices.Contains(lead, g.variants[0].t) {
			// A word in the verb's place the lexicon does not know
			// ("Hold conference participants") is an action when a
			// change on an item is named for it (actsOnItem).
			for _, h := range closeBehind(first) {
				if actsOnItem(r.ops[h.d], g.surface) {
					return true
				}
			}
		}
		if !g.verb || len(g.variants) == 0 {
			continue
		}
		t := g.variants[0].t // the word as said (or its stem)
		var verb [2]string   // the verb said, and what it undoes
		if r.tu.namedStems {
			if v := plural(g.surface); !generalVerb(v) {
				verb[0] = v
			}
			verb[1], _ = reversalBase(g.surface)
		}
		if r.says(lead, t, verb) {
			continue
		}
		for _, h := range closeBehind(first) {
			if r.says(r.address(h.d), t, verb) {
				return true
			}
		}
	}
	return false
}

// actsOnItem reports whether op is an HTTP change whose path ends with a
// segment w names, after a parameter: an action on an item, such as POST
// /conferences/{id}/actions/hold for "hold" (ablation "action-segments").
// A first word the lexicon does not know is more often a noun ("Text -
// Convert case", "Season calendar"); an item's action segment says it is
// a verb there.
func actsOnItem(op *operations.Operation, w string) bool {
	h := op.HTTP
	if h == nil || strings.EqualFold(h.Method, "GET") {
		return false
	}
	path := strings.TrimRight(h.Path, "/")
	i := strings.LastIndexByte(path, '/')
	if i < 0 || !strings.Contains(path[:i], "{") {
		return false
	}
	var buf [64]byte
	seg := string(foldWord(buf[:0], path[i+1:]))
	return seg == w || plural(seg) == plural(w)
}

// says reports whether address holds term t, or a word that is one of
// verb or its past participle (namedElsewhere; "" is no verb).
func (r *Router) says(address []uint32, t uint32, verb [2]string) bool {
	for _, w := range address {
		if w == t {
			return true
		}
		for _, v := range verb {
			if v != "" && inflects(r.idx.vocab[w], v) {
				return true
			}
		}
	}
	return false
}

// generalVerb reports whether v is a word a verb class is searched as
// (verbExpansions): "deleted" and "updated" in a path name a state or an
// event ("/deletedcertificates", "/order-time-updated"), while "pinned"
// names what a pin makes.
func generalVerb(v string) bool {
	for _, vs := range verbExpansions {
		if slices.Contains(vs, v) {
			return true
		}
	}
	return false
}

// inflects reports whether word w is verb or its past participle
// ("pinned" of "pin", "created" of "create", "held" not).
func inflects(w, verb string) bool {
	if w == verb {
		return true
	}
	rest, ok := strings.CutSuffix(w, "ed")
	if !ok || len(verb) < 3 {
		return false // "need" is not of "ne"
	}
	n := len(rest)
	return rest == verb || rest+"e" == verb || n > 2 && rest[n-1] == rest[n-2] && rest[:n-1] == verb
}

// twinned reports whether one of the candidates after the leader of
// first (of the next few) is its twin: the same HTTP path, the same kind,
// another method, which the request's verb implies too. "Update a volume"
// where PUT replaces the volume and PATCH changes some of its fields asks
// for one of them without saying which; running the PUT on a guess would
// overwrite what the caller meant to keep. A request that says the extent
// of its change ("partially update a volume", changeExtent) says which,
// and so does one that names the leader's method in capitals (method,
// saidMethod: "connect OPTIONS requests to proxy of Pod"): its twin is no
// rival.
func (r *Router) twinned(qverb verbClass, first []hit, words []string, method string) bool {
	lead := r.ops[first[0].d]
	if len(first) < 2 || !r.tu.twins || lead.HTTP == nil {
		return false
	}
	if said, _ := changeExtent(words); r.tu.partOrWhole && said != "" && strings.EqualFold(said, lead.HTTP.Method) {
		return false // the request says which of the two it asks
	}
	if method != "" && strings.EqualFold(method, lead.HTTP.Method) {
		return false // the request names its method (saidMethod)
	}
	for _, h := range closeBehind(first) {
		op := r.ops[h.d]
		if op.HTTP != nil && op.HTTP.Path == lead.HTTP.Path && op.HTTP.Method != lead.HTTP.Method &&
			op.Kind == lead.Kind && r.idx.fits[h.d].methodAgrees(qverb) {
			return true
		}
	}
	return false
}

// namedFor reports whether operation d's address or id says the word in
// the request's verb place (see group.action).
func (r *Router) namedFor(groups []group, d uint32) bool {
	i := slices.IndexFunc(groups, func(g group) bool { return g.action })
	if i < 0 || len(groups[i].variants) == 0 {
		return false
	}
	t := groups[i].variants[0].t
	return slices.Contains(r.idx.pathTerms.of(d), t) || slices.Contains(r.idx.idTerms.of(d), t)
}

// address returns the words of operation d's address: the literal
// segments of its HTTP path, or without one its id's resource and name.
func (r *Router) address(d uint32) []uint32 {
	if words := r.idx.pathTerms.of(d); len(words) > 0 {
		return words
	}
	return r.idx.idTerms.of(d)
}

// rivalsChecked is how many candidates after the leader the run gate's
// rules (decisive, namedElsewhere, twinned) look through.
const rivalsChecked = 4

// closeBehind returns the candidates of first after its leader that the
// run gate's rules look through.
func closeBehind(first []hit) []hit {
	return first[1:min(len(first), rivalsChecked+1)]
}

// unasked counts the words of operation d's address that the request
// does not name: the literal segments of its HTTP path, or without one
// the words of its id's resource and name. Named means among the query's
// terms as score collected them (sc.qterms), the set the re-ranker's
// path_unsaid and id_share features read.
func (r *Router) unasked(d uint32, sc *scratch) int {
	words := r.address(d)
	return len(words) - sc.qterms.count(words)
}

// coverage is the share of the query weight that the groups in mask carry.
func (r *Router) coverage(groups []group, mask uint64, total float32) float64 {
	var got float32
	for gi := range groups {
		if mask&(1<<uint(gi)) != 0 {
			got += groups[gi].cov
		}
	}
	if total <= 0 {
		return 0
	}
	return math.Min(1, float64(got/total))
}

// explainer builds the explanations of one result's candidates in one
// shared array, sized up front: one allocation per result, not two or
// more per candidate.
type explainer struct {
	groups        []group
	words, fields []string
}

// newExplainer sizes the array for the documents of hits: words in its
// first part, fields in the rest. Each part's capacity ends where the
// other's begins, so neither can write over the other.
func (r *Router) newExplainer(groups []group, hits []hit, sc *scratch) explainer {
	nw, nf := 0, 0
	for _, h := range hits {
		nw += bits.OnesCount64(sc.mask[h.d])
		nf += bits.OnesCount16(r.matchFields(groups, h.d, sc))
	}
	buf := make([]string, nw+nf)
	return explainer{groups: groups, words: buf[:0:nw], fields: buf[nw : nw : nw+nf]}
}

// explain lists the query words in mask (those that matched a document)
// and the fields in fm (those they matched in).
func (e *explainer) explain(mask uint64, fm uint16) (matched, fields []string) {
	w0 := len(e.words)
	for m := mask; m != 0; m &= m - 1 {
		g := &e.groups[bits.TrailingZeros64(m)]
		if !g.bigram && !g.method && !slices.Contains(e.words[w0:], g.surface) {
			e.words = append(e.words, g.surface)
		}
	}
	f0 := len(e.fields)
	for f := range numFields {
		if fm&(1<<f) != 0 && !slices.Contains(e.fields[f0:], fieldNames[f]) {
			e.fields = append(e.fields, fieldNames[f])
		}
	}
	return e.words[w0:len(e.words):len(e.words)], e.fields[f0:len(e.fields):len(e.fields)]
}

// idLike reports whether q looks like an operation id rather than prose:
// one token with a dot or an underscore.
func idLike(q string) bool {
	q = strings.TrimSpace(q)
	return q != "" && !strings.ContainsAny(q, " \t\n") && strings.ContainsAny(q, "._")
}

// runAgrees reports whether operation d does what the query's verb asks,
// which a run needs on top of confidence: a read never runs a write ("what's
// the default branch" is not rename_branch), a write never runs a read
// ("who deleted ticket 12" is not tickets.delete), and a list of many
// never runs a read of one, nor the other way round (and see listsOne). A request whose
// action the lexicon does not know runs a write only when the operation is
// named for the word in the verb's place: "accept the quote" runs POST
// /quotes/{quote}/accept, but "Single Environment" does not run the
// environment's DELETE, which led on its words: deleting it is a guess at
// what the caller wants done.
func (r *Router) runAgrees(groups []group, qverb verbClass, d uint32) bool {
	if !r.tu.runAgree {
		return true
	}
	kind := r.ops[d].Kind
	if kind == "" {
		kind = operations.KindRead
	}
	if qverb == verbNone {
		return kind == operations.KindRead || !r.tu.verblessWrites || r.namedFor(groups, d)
	}
	if qverb.kind() != kind {
		return false
	}
	ov := r.verbs[d]
	one := slices.ContainsFunc(groups, func(g group) bool { return g.item })
	switch {
	case qverb == verbList && ov == verbRead && !one:
		return false
	case qverb == verbRead && ov == verbList && one:
		return false
	}
	return true
}

// listsOne reports whether operation d lists a collection where the
// request, a read, names one thing of some resource of the catalog ("get
// the invoice"; group.one) and no collection: no plural of one, no "list"
// or "all" among its words. "Gets a runtime version" leads with GET
// .../runtimeVersions on its words where the item's own read is GET
// /v1/{name}, which says no resource word; running the list would be a
// guess (ablation "one-not-list").
func (r *Router) listsOne(groups []group, words []string, qverb verbClass, d uint32) bool {
	return r.tu.oneNotList && r.verbs[d] == verbList && readsOne(groups, words, qverb)
}

// readsOne reports whether a request reads one thing of some resource of
// the catalog ("get the invoice"; group.one) and names no collection: no
// plural of one, no "list" or "all" among its words.
func readsOne(groups []group, words []string, qverb verbClass) bool {
	if qverb != verbRead || slices.Contains(words, "list") || slices.Contains(words, "all") {
		return false
	}
	one := false
	for i := range groups {
		g := &groups[i]
		if g.many && g.nres > 0 {
			return false
		}
		one = one || g.one && g.nres > 0
	}
	return one
}

// objectElsewhere reports whether the request's object is missing from
// the address of the leader of first, which names something else, and
// said by the address of a candidate close behind it. The object is the
// phrase at the first word after the verb that names some operation's
// resource, with the words right after it ("Config rule" of "Deletes the
// specified Config rule and all of its evaluation results", "content" of
// "Creates the content of a dataset"): what the request acts on, where
// its other words say whose or which. A leader whose address says none of
// it acts on something else, however many of the request's words its
// description meets: DeleteEvaluationResults for the rule's delete, POST
// /datasets for the content's. Running it would be a guess (ablation
// "object-elsewhere").
func (r *Router) objectElsewhere(groups []group, first []hit, sc *scratch) bool {
	if len(first) < 2 || !r.tu.objectElsewhere || !namesWhat(r.ops[first[0].d]) {
		return false
	}
	var buf [2 * maxGroups]uint32
	object := object(groups, sc.words, buf[:0])
	if len(object) == 0 {
		return false
	}
	says := func(d uint32) bool {
		words := r.address(d)
		return slices.ContainsFunc(object, func(t uint32) bool { return slices.Contains(words, t) })
	}
	if says(first[0].d) {
		return false
	}
	return slices.ContainsFunc(closeBehind(first), func(h hit) bool { return says(h.d) })
}

// searchText returns the groups (as a mask) of the text a search
// request searches for: the words after its object ("search repositories
// about vector databases", "search issues mentioning memory leak"). They
// are the search's query, a value, which the catalog need not say for the
// request to be about something here, whatever other operations those
// words meet (ablation "search-text"). The object starts where
// objectSpan's does, at a word naming a resource of the catalog ("search
// articles about X" has none where articles are a "kb"), and holds the
// words after it that name resources too.
func (r *Router) searchText(groups []group, qverb verbClass, words []string) uint64 {
	if qverb != verbSearch || !r.tu.searchText {
		return 0
	}
	// The verb opens the request: in "The News Search API lets you send
	// a search query to Bing", what follows "search" describes an API.
	v := requestVerb(groups)
	if v < 0 || slices.ContainsFunc(words[:groups[v].at-1], func(w string) bool { return !isStopWord(w) }) {
		return 0
	}
	start, _ := objectSpan(groups, words)
	if start == 0 {
		return 0
	}
	// The object is its words that name resources ("pull requests",
	// "audit log entries"): "mentioning", "located" or "about" starts
	// what is searched for.
	end := start
	for slices.ContainsFunc(groups, func(g group) bool { return int(g.at) == end+1 && g.nres > 0 && !g.verb }) {
		end++
	}
	var text uint64
	for gi, g := range groups {
		if int(g.at) > end && !g.verb {
			text |= 1 << uint(gi)
		}
	}
	return text
}

// calledName returns the groups (as masks) of a name the request gives
// a thing of a kind the catalog has, and of the word that gives it:
// "create a team called platform", "a repo named dotfiles". The name is
// a value, whatever the catalog says of the word, and "called" says
// nothing of what the request asks (ablation "called-names").
func (r *Router) calledName(groups []group, words []string) (names, naming uint64) {
	if !r.tu.calledNames {
		return 0, 0
	}
	for i := 1; i+1 < len(words) && i+2 < 256; i++ {
		if !namingWord(words[i]) {
			continue
		}
		if !r.isResource(words[i-1]) || isStopWord(words[i+1]) {
			continue // "is called when", "explicitly named badges", "Performs named-entity recognition", "named after the"
		}
		for gi, g := range groups {
			switch int(g.at) {
			case i + 1:
				naming |= 1 << uint(gi)
			case i + 2:
				names |= 1 << uint(gi)
			}
		}
	}
	return names, naming
}

// namingWord reports whether w gives the name of what precedes it.
func namingWord(w string) bool { return w == "called" || w == "named" || w == "titled" }

// object appends to dst the terms of the request's object: the words
// (as said, and the resources they name) of the phrase of adjacent words
// that starts at the first word after the verb naming some operation's
// resource, and the compounds the catalog makes of them ("target group":
// targetgroups). A possessive's "s" between two words joins them ("a
// customer's configurations"). words are the request's words, which
// group.at counts.
func object(groups []group, words []string, dst []uint32) []uint32 {
	start, end := objectSpan(groups, words)
	if start == 0 {
		return dst
	}
	for _, g := range groups {
		if g.at == 0 || int(g.at) < start || int(g.at) > end || len(g.variants) == 0 {
			continue
		}
		dst = append(dst, g.variants[0].t)
		dst = append(dst, g.res[:g.nres]...)
	}
	return dst
}

// objectSpan returns the group.at span of the request's object (object),
// 0, 0 when it has none.
func objectSpan(groups []group, words []string) (start, end int) {
	verbAt := 0 // the verb's, when it is a word of the request
	if i := slices.IndexFunc(groups, func(g group) bool { return g.verb }); i >= 0 {
		verbAt = int(groups[i].at)
	}
	for _, g := range groups {
		if g.at == 0 || strings.IndexByte(g.surface, ' ') >= 0 {
			continue // not one word of the request (a bigram's at is 0; a compound's surface is two words)
		}
		at := int(g.at)
		if start == 0 {
			if !g.verb && g.nres > 0 && at > verbAt {
				start, end = at, at
			}
			continue
		}
		if g.verb || at != end+1 && (at != end+2 || words[end] != "s") {
			break
		}
		end = at
	}
	return start, end
}

// namesWhat reports whether op's address says what it acts on: an
// operation without an HTTP path is named by its id; a path, by a literal
// segment that is not a version ("/v1beta1/{name}" and
// "/v1/{name}:pause" say nothing of what they pause or read).
func namesWhat(op *operations.Operation) bool {
	if op.HTTP == nil || op.HTTP.Path == "" {
		return true
	}
	noun := pathNoun(strings.TrimRight(op.HTTP.Path, "/"))
	return noun != "" && !versionSegment(noun)
}

// versionSegment reports whether a path segment is an API version: v1,
// v1beta1, v2.1, 2022-01-01.
func versionSegment(seg string) bool {
	s := strings.TrimPrefix(strings.ToLower(seg), "v")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// namesSomething reports whether op's address has a word: a segment of
// its HTTP path with no parameter in it that is no API version, or,
// without a path, its id. Unlike namesWhat, which reads the last literal
// segment, a segment with a parameter in it ("v{version}") is no word.
func namesSomething(op *operations.Operation) bool {
	if op.HTTP == nil {
		return true
	}
	for seg := range strings.SplitSeq(op.HTTP.Path, "/") {
		if seg != "" && !strings.Contains(seg, "{") && !versionSegment(seg) {
			return true
		}
	}
	return false
}
