package router

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// The analyze stage: an intent becomes groups of terms (a word and every
// term it is searched as), the query's verb class, and what it says about
// one item or many.

// maxGroups is the number of query words scored; the rest of a very long
// query is ignored (64 fits the per-document match mask).
const maxGroups = 64

// namesCaller reports whether the catalog names the caller, so that
// first-person words mean it: as "the authenticated user", often enough
// (callerPhrase), or as "me" in an operation's HTTP path (callerTerm).
func (r *Router) namesCaller() bool { return r.callerPhrase || r.callerTerm != noTerm }

// findCaller sets callerPhrase, when the catalog speaks of "the
// authenticated user" in at least selfMinShare of its operations (and 3),
// and callerTerm, the term of callerWord when some operation's HTTP path
// says it (noTerm otherwise).
func (r *Router) findCaller() {
	r.callerTerm = noTerm
	if t, ok := r.idx.terms[callerWord]; ok {
		r.callerTerm = t
	}
	t, ok := r.idx.terms["authenticated"]
	if !ok {
		return
	}
	n := r.idx.post.start[t+1] - r.idx.post.start[t]
	r.callerPhrase = n >= 3 && float64(n) >= selfMinShare*float64(len(r.ops))
}

// findMethods sets methodTerms from the index.
func (r *Router) findMethods() {
	for c, ms := range classMethods {
		for _, m := range ms {
			if t, ok := r.idx.terms[methodKey(m)]; ok {
				r.methodTerms[c] = append(r.methodTerms[c], t)
			}
		}
	}
}

// addCaller adds the group that means the caller, once: "me" in an
// HTTP path (callerTerm) and, when phrase is set, the catalog's "the
// authenticated user".
func (r *Router) addCaller(groups []group, phrase bool, sc *scratch) []group {
	if slices.ContainsFunc(groups, func(g group) bool { return g.surface == callerWord }) {
		return groups
	}
	g := group{surface: callerWord, variants: sc.variantSpace()}
	if phrase && r.callerPhrase {
		r.addPhrase(&g, "authenticated user", r.tu.syn)
	}
	if r.callerTerm != noTerm {
		addVariant(&g, r.callerTerm, 1)
	}
	if len(g.variants) == 0 {
		return groups
	}
	g.cov = r.idx.idf[g.variants[0].t] * selfWeight
	g.known = true
	return append(groups, g)
}

// callerNamed reports whether words[i] names the caller in the third
// person: a word that says who is calling ("authenticated", "current",
// "logged in", "signed in") before callerNoun ("user").
func callerNamed(words []string, i int) bool {
	switch words[i] {
	case "authenticated", "current", "currently", "logged", "signed":
	default:
		return false
	}
	for _, n := range words[i+1 : min(len(words), i+3)] {
		if n != "in" {
			return plural(n) == callerNoun
		}
	}
	return false
}

// signedInAs reports whether words[i] opens "logged in" or "signed in"
// that ends the request or goes on with "as" or "with": the caller,
// named by how it called ("who am I logged in as"). Before a noun the
// phrase describes the noun ("the logged in user"; callerNamed), and
// before anything else it may be a word of the request ("errors
// logged in the last hour").
func signedInAs(words []string, i int) bool {
	if w := words[i]; w != "logged" && w != "signed" || i+1 >= len(words) || words[i+1] != "in" {
		return false
	}
	return i+2 == len(words) || words[i+2] == "as" || words[i+2] == "with"
}

// designation returns a bit per word of words (the first 64) that a
// request designates one item of in words rather than by a value: the
// words after "a specific (single, particular, individual)" ("find a
// specific call broadcast"), and the singular words before "by (its) id"
// ("returns Block based on ID", "get a language by its id"), each run up
// to a stop word or three words (before "by", to a verb or a plural
// too). The words between "by" and "id" are designated too ("by contact
// id").
func designation(words []string) uint64 {
	var bits uint64
	mark := func(from, step int) {
		for j, n := from, 0; j >= 0 && j < len(words) && j < 64 && n < 3; j, n = j+step, n+1 {
			w := words[j]
			if isStopWord(w) || isNumber(w) || step < 0 && (verbLexicon[w] != verbNone || plural(w) != w) {
				return
			}
			bits |= 1 << uint(j)
		}
	}
	for i, w := range words {
		switch w {
		case "specific", "single", "particular", "individual":
			mark(i+1, 1)
		case "by", "with", "using", "via", "on":
			if w == "on" && (i == 0 || words[i-1] != "based") {
				continue
			}
			k := i + 1
			for k < len(words) && k <= i+3 && !idWords[words[k]] {
				k++
			}
			if k >= len(words) || !idWords[words[k]] {
				continue
			}
			before := i - 1
			if w == "on" {
				before-- // "based on"
			}
			mark(before, -1)
			for j := i + 1; j < k && j < 64; j++ {
				if !isStopWord(words[j]) && !designators[words[j]] {
					bits |= 1 << uint(j)
				}
			}
		}
	}
	return bits
}

// idWords name an identifier; designators are the words that may stand
// between "by" and one ("by its unique id").
var (
	idWords     = map[string]bool{"id": true, "identifier": true, "uuid": true, "guid": true}
	designators = map[string]bool{"given": true, "specified": true, "provided": true, "unique": true, "specific": true, "corresponding": true, "own": true}
)

// selfMinShare: see namesCaller.
const selfMinShare = 0.02

// selfWords are the first-person words that mean the caller.
var selfWords = map[string]bool{"me": true, "my": true, "mine": true, "myself": true, "i": true}

// analyze turns the intent into scored groups and the query's verb class.
func (r *Router) analyze(intent string, sc *scratch) (groups []group, qverb verbClass) {
	ix := r.idx
	sc.items = itemNouns(intent, sc.items[:0])
	sc.slug = r.tu.slugBoost > 0 && hasSlug(intent, func(w string) bool { _, ok := ix.stemTerm(w); return ok })
	// A file named in the request (namesAFile), read before values are
	// masked out of it.
	file := r.tu.fileNames && namesAFile(intent)
	raw := intent
	if r.tu.values {
		intent = maskValues(intent)
	}
	words := sc.words[:0]
	splitWordsParts(intent, false, func(w string) { words = append(words, w) })
	sc.names = properNames(intent, sc.names[:0])
	sc.heads = sc.heads[:0]
	if r.tu.headNouns {
		sc.heads = headNouns(words, sc.names, sc.heads, r.isResource, r.tu.listedHeads)
	}
	sc.titled = r.tu.titleCase && titleCase(intent)
	sc.method = ""
	if r.tu.saidMethods {
		sc.method = saidMethod(raw)
	}
	sc.changes = false
	sc.words = words
	knows := asksToKnow(words)
	sc.question = knows || len(words) > 0 && whWords[words[0]]
	groups = sc.groups[:0]
	sc.variants = sc.variants[:0]
	seen := func(t uint32) int {
		for i := range groups {
			if len(groups[i].variants) > 0 && groups[i].variants[0].t == t {
				return i
			}
		}
		return -1
	}
	if !r.opts.noVerbs && r.tu.questions && knows {
		// "is issue 5 open", "did the build fail", "how many repos did I
		// star": a question about state reads, whatever verbs it holds;
		// they are words to match, not the action.
		qverb = verbRead
	}
	// After a request marker the action is the word in the verb's
	// place ("I'm organizing a party and need quotes. Can you fetch one
	// by id?"): the words before the marker tell the caller's situation,
	// and the verbs after that place are words to match ("can you
	// suggest a plant that adds colour" asks for no change). -1: no
	// marker, the first verb anywhere is the action.
	slot := -1
	if r.tu.requestClause {
		slot = verbSlot(words)
	}
	// After a preamble the action is a verb in the third person
	// ("Permanently deletes a folder", "This operation deletes a vault",
	// "Use this method to stop a job"), which the learned verb table
	// reads only in the first place otherwise.
	preamble := false
	if slot < 0 && r.tu.preambles && !r.opts.noVerbs {
		if slot = preambleSlot(words); slot < 0 {
			slot = clauseSlot(intent, words)
		}
		preamble = slot >= 0
	}
	// "Enables an authenticated app to find an installation", "This
	// method allows you to obtain your plans": what the request does is
	// the verb after "to"; the enabling verb is the caller's permission,
	// not the action (ablation "enabling-verbs").
	if r.tu.enablingVerbs && !r.opts.noVerbs {
		if j := enabledAction(words, max(slot, 0)); j >= 0 {
			slot, preamble = j, true
		}
	}
	actionSeen := false
	unknownAction := false
	verbAt := -1 // the index in words of the query's verb
	var designated uint64
	if r.tu.designation {
		designated = designation(words)
	}
	for i := 0; i < len(words) && len(groups) < maxGroups; i++ {
		w := words[i]
		if r.tu.signedIn && !r.opts.noSynonyms && r.namesCaller() && signedInAs(words, i) {
			// "who am I logged in as", "the account I'm signed in
			// with": the phrase says who is calling, as "me" does,
			// and nothing of what is asked; "logged" is no log.
			groups = r.addCaller(groups, true, sc)
			i++ // "in"
			continue
		}
		// Only the first verb is the query's action ("list all open
		// tickets": list, and open is a word to match).
		vc := verbNone
		pv := ""
		opensToRead := false
		if !r.opts.noVerbs && qverb == verbNone && (slot < 0 || i == slot) && !(r.tu.modifiers && i > 0 && modifies(words[i-1]) && !(preamble && i == slot)) {
			vc = verbLexicon[w]
			if vc == verbNone && r.tu.reversals {
				vc = reversedVerb(w)
			}
			if vc == verbNone && (i == 0 || preamble) && r.tu.learnedVerbs && !(r.tu.titleVerbs && r.namesCollection(w) && verbLast(words)) {
				// The first word in the third person ("Creates a
				// webhook", "Uninstalls a plugin") or one the corpus
				// says starts summaries of one kind of method. Not a
				// collection of the catalog before a title's verb
				// ("Tags List", "Domains Create"): that is its noun.
				vc = learnedVerb(w)
				// "Accept a repository invitation", "Resets the
				// counter": a word the corpus says changes state, of
				// no class. Not a collection of the catalog ("Order
				// status" over an API of orders): that is its noun.
				if vc == verbNone && r.tu.changeWords && learnedWrite(w) && !r.namesCollection(w) {
					sc.changes = true
				}
			}
			if vc == verbCreate && w == "open" && r.tu.openSense {
				if vc = openSense(words, i); vc == verbRead || opensAValue(raw) {
					// "open ticket 42" is not about open tickets:
					// the word means the operation verb, as "pull
					// up" does; a file is read.
					vc, pv, opensToRead = verbRead, "get", true
					if file {
						pv = "read"
					}
				}
			}
			if vc == verbCreate && w == "make" && r.tu.makeSense {
				vc = makeSense(words, i, sc.names)
			}
			for j := i + 1; j < len(words) && j <= i+1+maxParticleGap; j++ {
				if p, ok := phrasalVerbs[w+" "+words[j]]; ok {
					vc, pv = p.class, p.op
					break
				}
			}
			qverb = vc
			if vc != verbNone {
				verbAt = i
			}
		} else if r.tu.upserts && qverb == verbCreate && i == verbAt+2 && orUpdates(words, verbAt) {
			// The second verb of "creates or updates" is a verb too,
			// not a word an operation named for updating matches.
			vc = verbUpdate
		}
		if pv != "" && (isStopWord(w) || isQueryFiller(w) || opensToRead) {
			// "get rid of", "pull up": the verb itself is a stop word or
			// a filler; its meaning is the operation verb.
			g := group{surface: w, verb: true, known: true, variants: sc.variantSpace()}
			for _, x := range ix.lookup(pv, r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, x.t, r.tu.verb*x.w)
			}
			if len(g.variants) > 0 {
				g.cov = ix.idf[g.variants[0].t] * verbGroupWeight
				groups = append(groups, g)
			}
			continue
		}
		if selfWords[w] && !r.opts.noSynonyms && r.namesCaller() {
			// "my repositories", "who am I": APIs name the caller "the
			// authenticated user" (GitHub, GitLab, Slack...) or "me" in
			// their paths (GET /me/messages, GET /user/repos). When the
			// catalog does, a first-person word means that.
			groups = r.addCaller(groups, true, sc)
			continue
		}
		if r.tu.callerPhrases && r.callerTerm != noTerm && !r.opts.noSynonyms && len(groups)+1 < maxGroups && callerNamed(words, i) {
			// "the authenticated user's webhooks", "the current user's
			// profile": the caller in the third person. The words stay
			// words of the request as well (room is left for this one's
			// group).
			groups = r.addCaller(groups, w != "authenticated", sc)
		}
		if isStopWord(w) || isNumber(w) || isQueryFiller(w) && !r.namesResource(w) {
			continue
		}
		// Multi-word synonyms ("pull request" → pr) become an extra group.
		for l := min(r.syn.maxLen, len(words)-i); l >= 2 && r.syn.starts[w]; l-- {
			phrase := strings.Join(words[i:i+l], " ")
			if alts, ok := r.syn.lookup(phrase); ok {
				g := group{surface: phrase, variants: sc.variantSpace()}
				for _, a := range alts {
					r.addPhrase(&g, a, r.tu.syn)
				}
				if len(g.variants) > 0 {
					g.cov = 0 // the words of the phrase carry the coverage
					g.known = true
					groups = append(groups, g)
				}
				break
			}
		}
		g := group{surface: w, verb: vc != verbNone, item: vc == verbNone && slices.Contains(sc.items, w), at: uint8(min(i+1, 255))}
		g.designated = r.tu.designation && (g.item || i < 64 && designated&(1<<uint(i)) != 0)
		g.action = qverb == verbNone && !actionSeen && (slot < 0 || i == slot)
		actionSeen = actionSeen || g.action
		// A word in the action's place before a determiner is a verb,
		// known or not ("Applies the specified tags", "ping the
		// server"): not a noun that says one item or many, and the
		// request's action is that verb, not one its nouns imply. A
		// collection of the catalog there is the noun it seems
		// ("tickets the customer opened").
		unknownVerb := g.action && r.tu.unknownVerbs && i+1 < len(words) && determines(words[i+1]) && !(r.namesCollection(w) && plural(w) != w)
		unknownAction = unknownAction || unknownVerb
		g.verbed = unknownVerb
		if vc == verbNone && i > 0 && r.tu.eventWords && !afterBe(words, i) {
			g.event = r.past(w)
		}
		g.many = vc == verbNone && !unknownVerb && !g.item && plural(w) != w
		g.one = vc == verbNone && !unknownVerb && !g.item && plural(w) == w && r.tu.singular
		g.variants = ix.lookup(w, r.tu.stem, sc.variantSpace())
		agent := false
		if vc == verbNone && r.tu.derive > 0 && r.tu.agentParticiples && agentPlace(words, i) {
			// "the people following the specified user" are its
			// followers, not whom it follows: the word means who does
			// it, and meets only the catalog's words for that.
			if t, ok := ix.stemTerm(w); ok && len(ix.agents[t]) > 0 {
				g.variants = g.variants[:0]
				for _, a := range ix.agents[t] {
					addVariant(&g, a, 1)
				}
				agent = true
			}
		}
		if b, ok := undoes(w); ok && r.tu.reversals && !agent {
			// "uninvite" is about invites: the request meets the
			// catalog's word for what it undoes, as the index does
			// (alsoWords), and the verb says which of those operations.
			for _, v := range ix.lookup(b, r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, v.t, v.w)
			}
		}
		if len(g.variants) == 0 && vc == verbNone && r.tu.splitWords {
			// "username" where the catalog says "user name" (or
			// userName): the word meets the pair as one.
			if t, ok := ix.spelledApart(w); ok {
				g.variants = append(g.variants, variant{t: t, w: 1})
			}
		}
		ownWord := len(g.variants) > 0 && g.variants[0].w >= 1
		if len(g.variants) > 0 {
			if k := seen(g.variants[0].t); k >= 0 {
				groups[k].repeats++ // repeated word
				continue
			}
			g.cov = ix.idf[g.variants[0].t]
			g.known = true
		} else if !r.opts.noNames && !sc.titled && slices.Contains(sc.names, w) && !slices.Contains(sc.heads, w) {
			// A capitalised word the catalog does not know is a value
			// (a person, a company): it is neither corrected nor counted
			// against the coverage of the operations. Not in a title,
			// whose every word is capitalised: "Driving License" asks
			// about licenses, and a catalog that does not say the word
			// does not serve it.
			g.cov = 0
		} else {
			g.cov = ix.maxIDF
			// A verb the lexicon knows is spelled right: the catalog
			// not saying it is no typo to correct. Nor is a capitalised
			// kind of thing (headNouns): like a name, it is written as
			// meant.
			if !r.opts.noFuzzy && (vc == verbNone || !r.tu.unsaidVerb) && !slices.Contains(sc.heads, w) {
				sc.corr = ix.corrections(w, 3, sc.corr[:0])
				for _, t := range sc.corr {
					g.variants = append(g.variants, variant{t: t, w: r.tu.corr})
				}
			}
			// "the acme organization", "user torvalds": a word the
			// catalog does not say, in a name's place, is a value
			// written in lower case, as agents write them.
			g.value = len(g.variants) == 0 && vc == verbNone && r.valuePlace(words, i)
		}
		if i := alphaPrefix(w); i >= 3 && i < len(w) {
			for _, v := range ix.lookup(w[:i], r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, v.t, weightAlphaPrefix*v.w)
			}
		}
		if r.tu.derive > 0 && vc == verbNone && !agent && !(r.tu.doneTo && doneTo(words, i)) {
			r.addAgentNouns(&g, w)
		}
		if alts, ok := r.syn.lookup(w); ok {
			n0 := len(g.variants)
			for _, a := range alts {
				r.addPhrase(&g, a, r.tu.syn)
			}
			r.shareIDF(&g, n0)
		}
		if vc == verbNone && r.sem != nil && r.tu.neighbours > 0 && !ownWord && len(groups) < maxGroups-1 {
			// Only a word the catalog does not say reaches out to its
			// neighbours: a word it does say already matches, and its
			// neighbours would pull a long request off topic. The
			// neighbours are a group of their own with no coverage: they
			// find candidates, but a match through them alone leaves
			// the word unmatched, so the answer stays low-confidence.
			ng := group{surface: w, learned: true, variants: sc.variantSpace()}
			r.sem.addNeighbours(&ng, w, r.tu.neighbours)
			if len(ng.variants) > 0 {
				ng.known = true
				groups = append(groups, ng)
			}
		}
		if pv != "" {
			for _, x := range ix.lookup(pv, r.tu.stem, sc.vbuf[:0]) {
				addVariant(&g, x.t, r.tu.verb*x.w)
			}
		}
		if vc != verbNone {
			n0 := len(g.variants)
			for _, v := range verbExpansions[vc] {
				for _, x := range ix.lookup(v, r.tu.stem, sc.vbuf[:0]) {
					addVariant(&g, x.t, r.tu.verb*x.w)
				}
			}
			if ownWord && r.tu.verbIDF {
				capAtWord(&g, n0, ix.idf)
			}
			g.cov *= verbGroupWeight
			if len(g.variants) == 0 && r.tu.unsaidVerb {
				// A verb the catalog never says, nor any verb of its
				// class, is no sign that the catalog cannot serve the
				// request ("list all targets" where every operation is
				// a target's and none says "list"): the no-match
				// decision leaves it out (decide). It still counts
				// against a run, which needs the request's words met.
				g.unsaid = true
			}
		}
		if len(g.variants) > 0 {
			g.known = true
		}
		if vc == verbNone {
			for _, v := range g.variants {
				if v.w >= 0.5 {
					g.addRes(ix, v.t)
				}
			}
		}
		groups = append(groups, g)
		if ts := r.methodTerms[vc]; len(ts) > 0 && r.tu.methodVerbs && len(groups) < maxGroups-1 {
			// The methods that do what the verb asks, a group of their
			// own with no coverage, scored like learned neighbours: they
			// order the operations the request's words meet, and a
			// request is no better met for them (decide).
			mg := group{surface: g.surface, verb: true, method: true, known: true, variants: sc.variantSpace()}
			for _, t := range ts {
				addVariant(&mg, t, r.tu.verb)
			}
			groups = append(groups, mg)
		}
	}
	if r.tu.qtf > 0 {
		for i := range groups {
			if n := groups[i].repeats; n > 0 {
				m := 1 + r.tu.qtf*float32(min(n, maxRepeats))
				for k := range groups[i].variants {
					groups[i].variants[k].w *= m
				}
			}
		}
	}
	if !r.opts.noBigrams && r.tu.bigram > 0 {
		prev := noTerm
		for _, w := range words {
			if isStopWord(w) || isNumber(w) {
				continue
			}
			st, ok := ix.stemTerm(w)
			if !ok || isQueryFiller(w) {
				prev = noTerm
				continue
			}
			if prev != noTerm && len(groups) < maxGroups {
				if t := ix.bigram(prev, st, false); t != noTerm {
					g := group{surface: w, variants: append(sc.variantSpace(), variant{t: t, w: r.tu.bigram}), bigram: true}
					if st, ok := ix.wordTerm(w); ok {
						g.addRes(ix, st)
					}
					groups = append(groups, g)
				}
			}
			prev = st
		}
	}
	if r.tu.acronyms {
		r.acronyms(words, sc.names, groups, verbAt)
	}
	if r.tu.compound > 0 {
		groups = r.compounds(words, groups, sc)
	}
	if r.tu.whoIsIn && len(groups) < maxGroups && asksWhoIsIn(words) {
		// "who is in the golang org", "who's on the billing team": the
		// people in a group are its members, a word the request does
		// not say, and they are many. Like a synonym, the group finds
		// and ranks; it adds no coverage, since the request's own words
		// are stop words.
		g := group{surface: "members", known: true, variants: sc.variantSpace()}
		r.addPhrase(&g, "members", r.tu.syn)
		if len(g.variants) > 0 {
			groups = append(groups, g)
		}
		if qverb == verbRead {
			qverb = verbList
		}
	}
	if file && len(groups) < maxGroups && !slices.Contains(words, "file") && !slices.Contains(words, "files") {
		// "open config.yaml", "move old.txt to new.txt": a name with
		// an extension is a file's, a word the request does not say
		// (the name itself is a value, masked out of its words). Like
		// a synonym it finds and ranks, and adds no coverage.
		g := group{surface: "file", known: true, variants: sc.variantSpace()}
		r.addPhrase(&g, "file", r.tu.syn)
		if len(g.variants) > 0 {
			groups = append(groups, g)
		}
	}
	if r.tu.genericHeads {
		genericHeads(groups)
	}
	if r.tu.listOf && listedAfter(words, groups) && qverb == verbRead {
		qverb = verbList // "Retrieve a list of ...": a read of a list lists
	}
	sc.implied = false
	if qverb == verbNone && !r.opts.noVerbs && !unknownAction {
		qverb = r.impliedVerbOf(words, -1, groups)
		sc.implied = qverb != verbNone
	} else if qverb == verbRead && r.tu.pluralList && r.impliedVerbOf(words, r.verbSkipped(verbAt), groups) == verbList {
		// "show me open tickets": a read of a plural is a list. The
		// verb is no plural: "Gets a course" reads one.
		qverb = verbList
	}
	if r.tu.upserts && qverb == verbCreate && orUpdates(words, verbAt) {
		// "Creates or updates a scaling policy": either change, which
		// one operation that stores what it names serves: a PUT, or a
		// Put call (PutScalingPolicy), both of the update class.
		qverb = verbUpdate
	}
	if !qverb.reads() || unknownAction {
		// A change named in a request to make one is the request's
		// business ("create an issue for the failed build" still creates;
		// "Activates an archived read set" is a change, its verb unknown).
		for i := range groups {
			groups[i].event = change{}
		}
	}
	sc.groups = groups
	sc.services = sc.services[:0]
	if r.tu.svc > 0 {
		sc.services = r.namedServices(words, sc.names, sc.services)
	}
	return groups, qverb
}

// compounds adds a group for each pair of adjacent query words that the
// catalog writes as one word: "zip codes" matches getZipcodeByCounty. The
// group carries no coverage of its own (its words do).
func (r *Router) compounds(words []string, groups []group, sc *scratch) []group {
	ix := r.idx
	var buf [64]byte
	for i := 0; i+1 < len(words) && len(groups) < maxGroups; i++ {
		a, b := words[i], words[i+1]
		if len(a) < minCompoundPart || len(b) < minCompoundPart || isNumber(a) || isNumber(b) || len(a)+len(b) > len(buf) {
			continue
		}
		k := append(append(buf[:0], a...), plural(b)...)
		t, ok := ix.terms[string(k)]
		if !ok {
			continue
		}
		g := group{surface: a + " " + b, known: true, variants: append(sc.variantSpace(), variant{t: t, w: r.tu.compound}), at: uint8(min(i+2, 255))}
		g.addRes(ix, t)
		groups = append(groups, g)
	}
	return groups
}

// shareIDF weighs a word's synonyms (variants from n0 on) so that none
// counts more than the word itself: a rare synonym ("issues" in one
// description) does not outrank the catalog's own word for the concept
// ("ticket"). The word keeps its own idf: "members" stays specific in a
// catalog where its synonym "user" is everywhere. A word the catalog does
// not know is weighed, with its synonyms, at the idf of the most frequent
// of them.
func (r *Router) shareIDF(g *group, n0 int) {
	if len(g.variants) <= n0 || n0 == 0 && len(g.variants) < 2 {
		return
	}
	idf := r.idx.idf
	if n0 > 0 && !r.tu.synMin {
		// The word keeps its own idf; a synonym counts at most as much.
		capAtWord(g, n0, idf)
		for _, v := range g.variants[n0:] {
			// Coverage is the concept's: a match through a common
			// synonym says less than the rare word would.
			g.cov = min(g.cov, idf[v.t])
		}
		return
	}
	low := float32(math.MaxFloat32)
	for _, v := range g.variants {
		low = min(low, idf[v.t])
	}
	for i := range g.variants {
		v := &g.variants[i]
		v.w *= low / idf[v.t]
	}
	g.cov = min(g.cov, low)
}

// capAtWord weighs g's variants from n0 on so that none counts more than
// the word itself (g.variants[0], idf by term): a rarer variant's weight
// is scaled by the word's idf over its own. shareIDF applies it to a
// word's synonyms; analyze to the verbs a user's verb is searched as,
// when the catalog says the verb ("follow" in a catalog with "Follow
// Artists or Users" is that operation's verb, and its class's "create",
// rarer there, must not rank "Create Playlist" above it; ablation
// "verb-idf"). A verb the catalog never says ("kill") keeps its
// expansions' own weights: they are its only way in.
func capAtWord(g *group, n0 int, idf []float32) {
	own := idf[g.variants[0].t]
	for i := n0; i < len(g.variants); i++ {
		if v := &g.variants[i]; idf[v.t] > own {
			v.w *= own / idf[v.t]
		}
	}
}

// addPhrase adds the words of phrase as variants of g.
func (r *Router) addPhrase(g *group, phrase string, w float32) {
	var buf [2]variant // lookup's most: the word and its stem
	splitWords(phrase, func(x string) {
		if isStopWord(x) {
			return
		}
		for _, v := range r.idx.lookup(x, r.tu.stem, buf[:0]) {
			addVariant(g, v.t, w*v.w)
		}
	})
}

func addVariant(g *group, t uint32, w float32) {
	for i := range g.variants {
		if g.variants[i].t == t {
			if w > g.variants[i].w {
				g.variants[i].w = w
			}
			return
		}
	}
	g.variants = append(g.variants, variant{t: t, w: w})
}

// asksWhoIsIn reports whether a request asks who belongs to something:
// "who is in ...", "who's on ...", "who belongs to ...", "who is part
// of ...", "who works at ...", also after other words ("can you tell me
// who is on the team").
func asksWhoIsIn(words []string) bool {
	i := slices.IndexFunc(words, func(w string) bool { return w == "who" || w == "whos" })
	if i < 0 || i+2 >= len(words) {
		return false
	}
	rest, be := words[i+1:], words[i] == "whos"
	if rest[0] == "is" || rest[0] == "are" || rest[0] == "s" {
		rest, be = rest[1:], true
	}
	switch {
	case len(rest) == 0:
		return false
	case be && (rest[0] == "in" || rest[0] == "on" || rest[0] == "inside"):
		return true
	case len(rest) < 2:
		return false
	case be && rest[0] == "part" && rest[1] == "of",
		(rest[0] == "belongs" || rest[0] == "belong") && rest[1] == "to",
		(rest[0] == "works" || rest[0] == "work") && (rest[1] == "at" || rest[1] == "for" || rest[1] == "in" || rest[1] == "on"):
		return true
	}
	return false
}

// whWords open a question.
var whWords = map[string]bool{"what": true, "whats": true, "which": true, "who": true, "whos": true, "whom": true, "whose": true, "when": true, "where": true, "why": true, "how": true}

// asksToKnow reports whether a query is a question about how things are
// rather than a request to do something: it opens with an auxiliary verb
// ("is", "are", "did", "does", "has", ...) or with "how many", "how much"
// and the like. Wh-words that the verb lexicon knows ("what", "who",
// "which") are left to it; "how do I create ..." and "can you delete ..."
// are requests, and their verb is the action.
func asksToKnow(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "is", "are", "was", "were", "does", "did", "has", "have", "had", "isn", "aren", "wasn", "weren", "doesn", "didn", "hasn", "haven":
		return true
	case "do":
		// "do I have open PRs" asks; "do a backup" does.
		return len(words) > 1 && (words[1] == "i" || words[1] == "we" || words[1] == "you" || words[1] == "they" || words[1] == "any")
	case "how":
		if len(words) > 1 {
			switch words[1] {
			case "many", "much", "long", "often", "old", "big", "large":
				return true
			}
		}
	case "when", "where", "why", "whose", "whom":
		return true
	}
	return false
}

// verbSlot returns the index of the word in the verb's place after the
// first request marker of words ("can you", "could you", "would you",
// "will you"): the first word after it that is not a stop word, a filler
// or the caller ("can you please help me fetch": fetch). It returns -1
// when there is no marker or no word after it, and when the request
// starts with a verb: an order's first word is its action ("delete ticket
// 4, can you confirm it is gone?" deletes), so the first verb anywhere
// is the action then.
func verbSlot(words []string) int {
	if len(words) == 0 || verbLexicon[words[0]] != verbNone {
		return -1
	}
	after := 0
	for i := 0; i+1 < len(words) && after == 0; i++ {
		if words[i+1] == "you" && requestModals[words[i]] {
			after = i + 2
		}
	}
	if after == 0 {
		return -1
	}
	for i := after; i < len(words); i++ {
		if w := words[i]; !isStopWord(w) && !isQueryFiller(w) && !selfWords[w] {
			return i
		}
	}
	return -1
}

// preambleSlot returns the index of the verb after a preamble that a
// description puts before its action, or -1: leading adverbs
// ("Permanently deletes a folder"); "this" as the subject ("This deletes
// alarms"); a subject of at most three words
// after "this" or "the" ("This operation deletes a vault", "The
// DeleteDomain operation deletes a domain"), where the verb is in the
// third person (before a determiner, or after a word for the operation:
// operationNouns); "use (call, invoke) this (or the) ... to" before the verb
// ("Use this method to stop a backfill job", "Call this endpoint to get
// the number of projects"). A request that starts with a verb has
// no preamble. The verb found must be one: the third person of a verb of
// the lexicon or of the learned table, after a subject or adverbs (not
// after a preposition or a determiner: "The number of issues" has none)
// and before a determiner ("the pending invites" is a noun phrase); any
// word after "to", past adverbs of manner ("to permanently delete").
func preambleSlot(words []string) int {
	if len(words) < 2 {
		return -1
	}
	if w := words[0]; (w == "use" || w == "call" || w == "invoke") && (words[1] == "this" || words[1] == "the") {
		for i := 2; i+1 < len(words) && i <= 5; i++ {
			if words[i] == "to" {
				return afterAdverbs(words, i+1)
			}
		}
		return -1
	}
	if learnedVerb(words[0]) != verbNone {
		return -1
	}
	thirdPerson := func(i int) bool { return !modifies(words[i-1]) && verbWithObject(words, i) }
	switch w := words[0]; {
	case adverb(w):
		i := 1
		for i < len(words)-1 && adverb(words[i]) {
			i++
		}
		if thirdPerson(i) {
			return i
		}
	case w == "this" && thirdPersonVerb(words[1]):
		// "This deletes alarms and timers": the pronoun is the subject.
		return 1
	case w == "this" || w == "the":
		for i := 2; i < len(words) && i <= 4; i++ {
			if thirdPerson(i) || operationNouns[words[i-1]] && thirdPersonVerb(words[i]) {
				return i
			}
			if modifies(words[i]) {
				break
			}
		}
	}
	return -1
}

// enabledAction returns the index of the verb after "to" when words[i]
// is a verb that grants an ability and a "to" follows it within a
// subject of at most six words ("enables administrative users to list
// carts", "allows to retrieve the invoice"), or -1.
func enabledAction(words []string, i int) int {
	if i >= len(words) || !enablingVerbs[words[i]] {
		return -1
	}
	for j := i + 1; j < len(words)-1 && j <= i+7; j++ {
		if words[j] == "to" {
			return afterAdverbs(words, j+1)
		}
	}
	return -1
}

// afterAdverbs returns the index of the first word from i on that is not
// an adverb of manner: the verb of "to permanently delete" is delete. An
// index past the end is returned as it is.
func afterAdverbs(words []string, i int) int {
	for i < len(words)-1 && adverb(words[i]) {
		i++
	}
	return i
}

// enablingVerbs grant an ability: after them and their subject, "to"
// introduces the action.
var enablingVerbs = map[string]bool{
	"enable": true, "enables": true, "allow": true, "allows": true,
	"let": true, "lets": true, "permit": true, "permits": true,
}

// clauseSlot returns the index in words (intent's) of the verb that opens
// the clause after a colon ("For Redis engine version 6.0 onwards:
// Creates a Redis user group") or after the comma that closes an opening
// phrase ("Given a device ID, initiates a claim request"; the phrase opens
// with a preposition or a conjunction), or -1. The clause's verb is one
// preambleSlot would find, or a verb in the third person with a
// determined object.
func clauseSlot(intent string, words []string) int {
	if len(words) < 3 || learnedVerb(words[0]) != verbNone {
		return -1
	}
	cut := strings.IndexByte(intent, ':')
	if c := strings.IndexByte(intent, ','); c >= 0 && (cut < 0 || c < cut) && clauseOpeners[words[0]] {
		cut = c
	}
	if cut < 0 {
		return -1
	}
	n := 0
	splitWordsParts(intent[:cut], false, func(string) { n++ })
	if n == 0 || n+2 > len(words) {
		return -1
	}
	clause := words[n:]
	if verbWithObject(clause, 0) {
		return n
	}
	if i := preambleSlot(clause); i >= 0 {
		return n + i
	}
	return -1
}

// verbWithObject reports whether words[i] is a verb in the third person
// (of the lexicon or the learned table) with a determined object after
// it. A plural before anything else is a noun ("the pending invites",
// "this repo's tags", "Weekly updates of the vaults").
func verbWithObject(words []string, i int) bool {
	return thirdPersonVerb(words[i]) && i+1 < len(words) && determines(words[i+1])
}

// operationNouns are the words a description calls its operation by: after
// one of them ("This call fetches details", "The endpoint returns
// users"), a verb in the third person is the action, with or without a
// determiner after it.
var operationNouns = map[string]bool{
	"endpoint": true, "operation": true, "method": true, "api": true, "call": true,
	"function": true, "request": true, "route": true, "service": true, "action": true,
}

// thirdPersonVerb reports whether w is the third person of a verb of the
// learned table ("deletes", "returns").
func thirdPersonVerb(w string) bool {
	return len(w) > 3 && w[len(w)-1] == 's' && plural(w) != w && learnedVerb(w) != verbNone
}

// clauseOpeners are the words that open a phrase a comma closes before
// the request's clause: prepositions and conjunctions ("Given a device
// ID, ...", "For a batch of controls, ...", "If the job failed, ...").
var clauseOpeners = map[string]bool{
	"given": true, "for": true, "if": true, "when": true, "after": true, "before": true, "once": true,
	"in": true, "on": true, "with": true, "using": true, "by": true, "as": true, "to": true, "from": true,
}

// adverb reports whether w reads as an adverb of manner before a verb
// ("permanently", "asynchronously"): a word in -ly that is no verb
// ("apply", "reply").
func adverb(w string) bool {
	return len(w) > 5 && strings.HasSuffix(w, "ly") && learnedVerb(w) == verbNone
}

// requestModals are the words that, before "you", ask for something.
var requestModals = map[string]bool{"can": true, "could": true, "would": true, "will": true}

// modifies reports whether w, before a word, makes that word part of a
// noun phrase rather than the request's verb: a determiner, a quantifier,
// a possessive or a preposition ("any new tickets", "count of new
// tickets", "the open queue"). "to" is not one: "I want to open a ticket".
func modifies(w string) bool {
	switch w {
	case "no", "that",
		"of", "in", "on", "for", "with", "by", "from", "at", "about":
		return true
	}
	return determines(w)
}

// determines reports whether w opens a noun phrase as a determiner, a
// quantifier or a possessive does. Unlike modifies, it leaves out "that"
// and "no" ("check that ...") and prepositions.
func determines(w string) bool {
	switch w {
	case "a", "an", "the", "any", "some", "all", "every", "each",
		"my", "our", "your", "their", "his", "her", "its",
		"this", "these", "those":
		return true
	}
	return false
}

// verbSkipped returns verbAt, the index of the query's verb, for
// impliedVerb to leave out, so that its third person is not taken for a
// plural ("Gets", "Returns"; ablation "verb-not-plural"); -1 when the
// rule is off.
func (r *Router) verbSkipped(verbAt int) int {
	if !r.tu.verbNotPlural {
		return -1
	}
	return verbAt
}

// impliedVerbOf is impliedVerb of the request's words up to a describing
// clause (clauseEnd), a plural of parts of one thing read as one
// (partsOf).
func (r *Router) impliedVerbOf(words []string, skip int, groups []group) verbClass {
	return impliedVerb(words[:r.clauseEnd(words)], skip, r.partsOf(words, groups))
}

// clauseEnd is the index in words of the first relative pronoun ("that",
// "which", "who", "whose", "where") or participle that opens a describing
// clause ("including", "containing"), len(words) when there is none: what
// follows describes the request's object and does not say how many it
// asks for. "Returns a ProfilingGroupDescription object that contains
// information" reads one object, whatever the plural-looking "contains"
// (ablation "relative-clause").
func (r *Router) clauseEnd(words []string) int {
	if !r.tu.relativeClause {
		return len(words)
	}
	for i, w := range words {
		switch w {
		case "that", "which", "who", "whose", "where", "including", "containing":
			if i > 0 {
				return i
			}
		}
	}
	return len(words)
}

// partsOf returns the test impliedVerb asks of a plural: whether the
// word at i is a plural that names no resource of the catalog, followed by
// "of" ("the details of an error frame", "the settings of a workspace"):
// the parts of one thing, whose number is the thing's; nil when the rule
// is off (ablation "parts-of"). A plural the catalog has as a resource
// ("the members of a team") is many of it.
func (r *Router) partsOf(words []string, groups []group) func(i int) bool {
	if !r.tu.partsOf {
		return nil
	}
	return func(i int) bool {
		if i+1 >= len(words) || words[i+1] != "of" {
			return false
		}
		return !slices.ContainsFunc(groups, func(g group) bool { return int(g.at) == i+1 && g.nres > 0 })
	}
}

// impliedVerb is the action of a query without a verb: a singular noun
// followed by a number ("ticket 42", "issue #8") names one thing, a read;
// a plural noun ("open tickets", "teams") asks for a list. The word at
// skip (-1: none) is read as if it were not there, and so is a plural
// that parts (when not nil) says is the parts of one thing.
func impliedVerb(words []string, skip int, parts func(i int) bool) verbClass {
	list := false
	for i, w := range words {
		if i == skip || isNumber(w) || isStopWord(w) || isQueryFiller(w) || parts != nil && parts(i) {
			continue
		}
		next := i + 1
		if next == skip {
			next++
		}
		if next < len(words) && isNumber(words[next]) && plural(w) == w {
			return verbRead
		}
		if plural(w) != w {
			list = true
		}
	}
	if list {
		return verbList
	}
	return verbNone
}

// orUpdates reports whether the verb at words[at] is followed by "or" or
// "and" and a verb of the update class ("creates or updates", "create
// and update").
func orUpdates(words []string, at int) bool {
	return at >= 0 && at+2 < len(words) && (words[at+1] == "or" || words[at+1] == "and") && learnedVerb(words[at+2]) == verbUpdate
}

// properNames appends to out the words of intent, lower-cased, that are
// capitalised but do not start a sentence ("assign to Marcus", "orgs at
// Bluefin Retail"): names of people, companies and places, which are
// parameter values rather than words of an operation. All-capital words
// (SLA, CSV) are acronyms, not names.
func properNames(intent string, out []string) []string {
	start := true
	for i := 0; i < len(intent); {
		c := intent[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			j := i
			for j < len(intent) && (intent[j] >= 'A' && intent[j] <= 'Z' || intent[j] >= 'a' && intent[j] <= 'z' || intent[j] >= '0' && intent[j] <= '9') {
				j++
			}
			w := intent[i:j]
			if !start && c >= 'A' && c <= 'Z' && len(w) > 1 && strings.ToUpper(w) != w {
				out = append(out, strings.ToLower(w))
			}
			start = false
			i = j
			continue
		}
		if c == '.' || c == '?' || c == '!' || c == '\n' || c == ':' || c == ';' || c == '"' || c == '(' {
			start = true
		}
		i++
	}
	return out
}

// headNouns appends to heads the names that end a phrase opened by an
// article, next to it or after one other word that is no resource of the
// catalog: "the default Datastore", "a specific ReservationOrder". A
// capital there marks a kind of thing, as an API writes its resource
// types, not a value: "Marcus" of "assign to Marcus" has no article,
// "Acme" of "the Acme org" does not end its phrase, and "Mojito" of "the
// album Mojito" names an album. A catalog that does not say such a word
// does not serve it, so it counts against coverage (ablation
// "head-nouns"). With listed, so is a name that "a list of" or "the
// collection of" lists ("Return a list of Divisions": a list holds kinds
// of things; ablation "listed-heads"). words are the request's words;
// resource reports whether the catalog names a resource by a word.
func headNouns(words, names, heads []string, resource func(string) bool, listed bool) []string {
	article := func(w string) bool { return w == "a" || w == "an" || w == "the" }
	for k, w := range words {
		if !slices.Contains(names, w) || k+1 < len(words) && !isStopWord(words[k+1]) {
			continue // no name, or its phrase goes on
		}
		if k >= 1 && article(words[k-1]) || k >= 2 && article(words[k-2]) && !isStopWord(words[k-1]) && !resource(words[k-1]) ||
			listed && k >= 2 && words[k-1] == "of" && (plural(words[k-2]) == "list" || plural(words[k-2]) == "collection") {
			heads = append(heads, w)
		}
	}
	return heads
}

// titleCase reports whether intent is written as a title: two words or
// more, and every word of four letters or more that is not an identifier
// (an inner capital: "articleId") or an acronym starts with a capital
// ("Driving License", "Get Article by articleId", "ID Card"). A request
// that writes a word in lower case ("assign to Marcus") is not. A
// sentence whose every long word is a name ("Give 32 to Marcus") reads as
// a title too: its names then count against coverage, which makes the
// answer less sure.
func titleCase(intent string) bool {
	words, long := 0, 0
	for i := 0; i < len(intent); {
		if !isLetter(intent[i]) {
			i++
			continue
		}
		j := i
		upper := 0
		for j < len(intent) && isAlnum(intent[j]) {
			if intent[j] >= 'A' && intent[j] <= 'Z' {
				upper++
			}
			j++
		}
		w := intent[i:j]
		i = j
		words++
		first := w[0] >= 'A' && w[0] <= 'Z'
		if len(w) < 4 || upper == len(w) || upper > 1 || !first && upper > 0 {
			continue // short, an acronym or an identifier
		}
		if !first {
			return false
		}
		long++
	}
	return words >= 2 && long >= 1
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' }

// agentSuffixes turn a verb's stem into the nouns of who does it:
// contribut+or, follow+er, assign+ee, creat+or, manag+er.
var agentSuffixes = [...]string{"or", "er", "ee"}

// addAgentNouns adds to g the catalog's words for who does what w says:
// "who contributed" → contributor, "who follows" → follower, "review" →
// reviewer. The English stemmer keeps agent nouns apart from their verbs.
// Those of a stem of the catalog were found at build (index.agents).
func (r *Router) addAgentNouns(g *group, w string) {
	if t, ok := r.idx.stemTerm(w); ok {
		for _, a := range r.idx.agents[t] {
			addVariant(g, a, r.tu.derive)
		}
		return
	}
	r.idx.agentNouns(stem(w), heavyLimit(len(r.ops)), func(t uint32) { addVariant(g, t, r.tu.derive) })
}

// peopleNouns are the words for people, or accounts, that a participle
// or a relative clause can say what they do (agentPlace).
var peopleNouns = map[string]bool{
	"people": true, "persons": true, "users": true, "members": true, "accounts": true,
	"customers": true, "everyone": true, "anyone": true, "those": true, "ones": true,
}

// agentPlace reports whether words[i] says what people do, by a
// participle after them ("the people following the specified user",
// "users watching a snippet") or a verb after "who" or "that" ("people
// who follow me"): they are the ones who do it, its agent nouns
// (followers, watchers), not what it is done to (following, watched).
func agentPlace(words []string, i int) bool {
	if i == 0 {
		return false
	}
	if w := words[i]; len(w) > 5 && strings.HasSuffix(w, "ing") && peopleNouns[words[i-1]] {
		return true
	}
	return i > 1 && (words[i-1] == "who" || words[i-1] == "that") && peopleNouns[words[i-2]] && !isStopWord(words[i])
}

// doneTo reports whether words[i] is a verb said of what is done to the
// things asked for, not of who does it: a passive ("users followed by
// the authenticated user", "repositories watched by a user") or the end
// of a relative clause or a question with a subject of its own ("the
// people who the specified user follows", "tags that the given user
// follows", "who does octocat follow"). Its agent nouns (followers) are
// then the other side of the relation.
func doneTo(words []string, i int) bool {
	if i+1 < len(words) && words[i+1] == "by" {
		return true
	}
	for j := i - 2; j >= max(0, i-5); j-- {
		switch words[j] {
		case "who", "whom", "that", "which", "what":
			n := words[j+1]
			return determines(n) || n == "do" || n == "does" || n == "did"
		}
	}
	return false
}

// namesResource reports whether the catalog names a resource by w, a word
// dropped from requests as conversational filler elsewhere: "Creates a new
// share" asks for PUT .../shares/{name}, "Describe the thing" for
// GET /things/{thingName}, though "can you share the report" and "any
// thing" say nothing.
func (r *Router) namesResource(w string) bool {
	return r.tu.fillerResources && r.isResource(w)
}

// isResource reports whether w, as a plural, is some operation's
// resource (resWord).
func (r *Router) isResource(w string) bool { return r.wordKind(w)&resWord != 0 }

// valuePlace reports whether words[i] stands where a name does: between
// "the" and a word that names a resource of the catalog ("the acme
// organization"), or right after such a word, ending the request or
// before a stop word ("user torvalds", "the org acme's members"), with
// the value-places rule on.
func (r *Router) valuePlace(words []string, i int) bool {
	if !r.tu.valuePlaces || i == 0 {
		return false
	}
	next := ""
	if i+1 < len(words) {
		next = words[i+1]
	}
	if words[i-1] == "the" {
		return next != "" && r.isResource(next)
	}
	return r.isResource(words[i-1]) && (next == "" || isStopWord(next) || next == "s")
}

// namesCollection reports whether w, as a plural, is a collection of the
// catalog: the resource of an operation on one of its items or on all.
func (r *Router) namesCollection(w string) bool {
	return r.wordKind(w)&collWord != 0
}

// wordKind is the index.resKind of w as a plural (0 for a word the
// catalog does not say).
func (r *Router) wordKind(w string) uint8 {
	if t, ok := r.idx.wordTerm(w); ok {
		return r.idx.kind(t)
	}
	return 0
}

// verbLast reports whether words end in a verb the way titles do ("Tags
// List", "Domain Records Create"): a verb of the lexicon after a word that
// is neither a determiner nor a stop word ("add to the list" ends in a
// noun).
func verbLast(words []string) bool {
	n := len(words)
	return n >= 2 && verbLexicon[words[n-1]] != verbNone && !determines(words[n-2]) && !isStopWord(words[n-2])
}

// opensAValue reports whether the word after the first "open" of intent
// is a value: a file name ("open config.yaml", "open README.md"), a URL,
// a number. What a value names exists, so "open" reads it; the analysis
// masks values out of its words, so openSense cannot see them.
func opensAValue(intent string) bool {
	next := false
	for f := range strings.FieldsSeq(intent) {
		f = trimPunct(strings.Trim(f, "'\"`("))
		if next {
			return isValueToken(f) || isFileName(f) || isNumber(f)
		}
		next = strings.EqualFold(f, "open")
	}
	return false
}

// namesAFile reports whether a word of intent is a file's name: a name
// with an extension ("config.yaml", "README.md"), not a URL nor a
// version ("3.0.x").
func namesAFile(intent string) bool {
	for f := range strings.FieldsSeq(intent) {
		f = trimPunct(strings.Trim(f, "'\"`("))
		if isFileName(f) && !strings.Contains(f, "://") && strings.ContainsFunc(f[:strings.LastIndexByte(f, '.')], unicode.IsLetter) {
			return true
		}
	}
	return false
}

// definite reports whether w determines a thing the reader knows: the
// definite article, a singular demonstrative or a possessive.
func definite(w string) bool {
	switch w {
	case "the", "this", "that", "my", "our", "your", "his", "her", "their", "its":
		return true
	}
	return false
}

// makeSense is what "make" at words[i] asks, by its object: "make a
// playlist", "make me a playlist" and "make my top tracks a new playlist"
// create one; "make my first playlist private" and "make Yusuf an admin"
// change a thing that exists, named or determined, into something else
// (ablation "make-sense"). names are the request's proper names.
func makeSense(words []string, i int, names []string) verbClass {
	j := i + 1
	if j >= len(words) {
		return verbCreate
	}
	// A thing that exists: determined ("my first playlist"), pointed at
	// ("those playlists", "it") or named.
	if w := words[j]; !definite(w) && w != "these" && w != "those" && w != "it" && w != "them" && !slices.Contains(names, w) {
		return verbCreate
	}
	if slices.Contains(words[j+1:], "new") {
		return verbCreate
	}
	return verbUpdate
}

// openSense is what "open" at words[i] asks, by its object: "open a
// ticket" creates one; "open ticket 42" and "open the refunds article"
// read one that exists; before a plural, "open" is the state of what is
// listed ("open tickets for Bluefin", "open pull requests"), and the
// request's nouns say its verb (verbNone). A bare singular ("open ticket
// for the printer outage") creates, as a headline says it.
func openSense(words []string, i int) verbClass {
	j := i + 1
	if j >= len(words) {
		return verbCreate
	}
	switch w := words[j]; {
	case w == "a" || w == "an" || w == "new" || w == "another":
		return verbCreate
	case definite(w):
		return verbRead
	}
	head := -1 // the object's last word before a stop word or a number
	for k := j; k < len(words) && !isStopWord(words[k]) && !isNumber(words[k]); k++ {
		head = k
	}
	switch {
	case head < 0:
		return verbCreate
	case plural(words[head]) != words[head]:
		return verbNone
	case head+1 < len(words) && isNumber(words[head+1]):
		return verbRead
	}
	return verbCreate
}

// genericHeads marks as many a singular word of the catalog's resources
// before a plural word for things of any kind (classNoun) that is no
// resource of the catalog: "Returns all Image objects", "List account
// records". The plural is the compound's head and says how many; the
// word before it says which things, and a modifier is singular whatever
// their number (ablation "generic-heads"). A plural that is a resource
// keeps the word before it one ("issue comments": the comments of one
// issue), and so does any other plural ("user details" are one user's:
// every plural after a resource, tried first, cost the report split's
// summaries 0.0003 of top-1 and two false runs).
func genericHeads(groups []group) {
	for i := range groups {
		g := &groups[i]
		if !g.one || g.nres == 0 || g.at == 0 {
			continue
		}
		for j := range groups {
			if h := &groups[j]; int(h.at) == int(g.at)+1 && h.many && !h.verb && h.nres == 0 && classNoun(h.surface) {
				g.one, g.many = false, true
				break
			}
		}
	}
}

// classNoun reports whether w names things of any kind: what a catalog's
// own word before it says which ("Image objects", "user records").
func classNoun(w string) bool {
	switch w {
	case "objects", "items", "records", "entries", "entities", "instances", "elements", "resources":
		return true
	}
	return false
}

// listedAfter marks as many the words of the phrase after "a list of"
// ("Retrieve a list of itemPhone objects from a user's profile", "the
// collection of channels"): they name the things listed, whatever their
// number, and the container's own word names no item either.
func listedAfter(words []string, groups []group) (listed bool) {
	set := func(at int, many bool) {
		for i := range groups {
			if g := &groups[i]; int(g.at) == at+1 && !g.item {
				g.many, g.one = many, false
			}
		}
	}
	for k := 0; k+1 < len(words); k++ {
		if w := plural(words[k]); (w != "list" && w != "collection") || words[k+1] != "of" {
			continue
		}
		set(k, false)
		listed = true
		j := k + 2
		for j < len(words) && isStopWord(words[j]) {
			j++
		}
		for ; j < len(words) && !isStopWord(words[j]); j++ {
			set(j, true)
		}
	}
	return listed
}
