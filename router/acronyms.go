package router

import (
	"slices"

	"github.com/intentsrv/intentsrv/operations"
)

// Acronyms. APIs name things by their initials where a request spells
// the name out: /profile/tfa/disable for "Two Factor Authentication",
// /host/rbs/install for "Rubrik Backup Service", /help/tos for "Terms of
// Service". A request that writes such a name meets the catalog's word
// through its initials: each word of the name is also searched as the
// acronym, so an operation that says only the acronym covers every word
// of the name, as it would had it said them (ablation "acronyms"). A
// name capitalised in the request is read so whenever the catalog writes
// its initials in capitals; words in lower case only when some operation
// of the catalog says them with the acronym (ablation "lower-acronyms"):
// the initials of any words meet the catalog's words by chance too often
// ("specific self-hosted" is no SSH; BENCHMARKS round 58).

const (
	// minAcronym and maxAcronym bound the length of an acronym matched:
	// two letters collide with too many words, and a phrase of more than
	// seven words is rarely abbreviated whole.
	minAcronym, maxAcronym = 3, 7
	// weightAcronym is the weight of the acronym as a variant of each
	// word of its phrase, as a synonym's.
	weightAcronym = weightSynonym
)

// acronyms adds to the groups of words that spell an acronym of the
// catalog the acronym as a variant. A phrase is three to seven adjacent
// words, none a number, a stop word but "of" between two others, or the
// request's verb (verbAt, -1: none). Its initials are those of its words
// but "of" ("Registration of Vehicles Certificate": rvc) or of every word
// ("Terms of Service": tos), and they spell an acronym when the catalog
// writes that word in capitals (caps) and the request does not say
// it. A name capitalised in the request (names: "Rubrik Backup Service")
// spells it as it is; other words only when some operation says them
// with the acronym (usedWith; ablation "lower-acronyms"): the initials
// of "a specific self-hosted runner" are no ssh, nor those of "transfer
// a repository" tar, where "client-side encryption" is the cse of
// /settings/cse/identities, whose text says it. Each word is searched as
// the longest acronym it is part of.
func (r *Router) acronyms(words, names []string, groups []group, verbAt int) {
	if len(r.caps.terms) == 0 || !r.tu.lowerAcronyms && len(names) < 2 {
		return
	}
	ix := r.idx
	named := func(j int) bool { return slices.Contains(names, words[j]) }
	var content, all [maxAcronym]byte
	for i := 0; i < len(words); i++ {
		if !acronymWord(words, i, verbAt) || !r.tu.lowerAcronyms && !named(i) {
			continue
		}
		nc, na := 0, 0
		capitalised := true
		bestEnd, best := -1, noTerm
		for j := i; j < len(words) && na < maxAcronym; j++ {
			w := words[j]
			of := w == "of" && j > i
			if !of && !acronymWord(words, j, verbAt) {
				break
			}
			if !of && !named(j) {
				if !r.tu.lowerAcronyms {
					break
				}
				capitalised = false
			}
			all[na] = w[0]
			na++
			if of {
				continue
			}
			content[nc] = w[0]
			nc++
			try := func(s []byte) {
				if t, ok := r.acronymTerm(s, words); ok && (capitalised || r.usedWith(t, words[i:j+1])) {
					bestEnd, best = j, t
				}
			}
			if nc >= minAcronym {
				try(content[:nc])
			}
			if na > nc && na >= minAcronym {
				try(all[:na])
			}
		}
		if bestEnd < 0 {
			continue
		}
		for k := range groups {
			g := &groups[k]
			if at := int(g.at) - 1; at < i || at > bestEnd || g.learned || g.bigram || g.verb || g.method || g.surface != words[at] {
				continue
			}
			w := float32(weightAcronym)
			if len(g.variants) > 0 {
				// Worth no more than the word itself: the acronym
				// stands for the word, among others.
				if own, idf := ix.idf[g.variants[0].t], ix.idf[best]; idf > own {
					w *= own / idf
				}
			}
			addVariant(g, best, w)
			g.addRes(ix, best)
			g.known = true
		}
		i = bestEnd
	}
}

// acronymWord reports whether words[i] may be a word of an acronym's
// phrase: one that starts with a letter, and no number, stop word or
// the request's verb.
func acronymWord(words []string, i, verbAt int) bool {
	w := words[i]
	return i != verbAt && w != "" && w[0] >= 'a' && w[0] <= 'z' && !isNumber(w) && !isStopWord(w)
}

// acronymTerm returns the catalog's term for the acronym s, when the
// catalog writes s in capitals (caps) and s is no word of the request.
func (r *Router) acronymTerm(s []byte, words []string) (uint32, bool) {
	if !r.caps.mayStart(s) {
		return noTerm, false
	}
	t, ok := r.caps.terms[string(s)]
	if !ok {
		return noTerm, false
	}
	for _, w := range words {
		if w == string(s) {
			return noTerm, false
		}
	}
	return t, true
}

// usedWith reports whether some operation says acronym t with every word
// of phrase but "of" (as written, plurals folded), so that the catalog
// itself ties the acronym to the words: /settings/cse/identities,
// "Lists the client-side encrypted identities".
func (r *Router) usedWith(t uint32, phrase []string) bool {
	ix := r.idx
	var terms [maxAcronym]uint32
	n := 0
	for _, w := range phrase {
		if w == "of" {
			continue
		}
		wt, ok := ix.wordTerm(w)
		if !ok {
			return false
		}
		terms[n] = wt
		n++
	}
	p := &ix.post
	ops := uint32(len(r.ops))
	for _, d := range p.doc[p.start[t]:p.start[t+1]] {
		if d >= ops {
			break // namespaces, which say every word of their operations
		}
		all := true
		for _, wt := range terms[:n] {
			if _, ok := slices.BinarySearch(p.doc[p.start[wt]:p.start[wt+1]], d); !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// capitalSet is the words a catalog writes in capitals (catalogCapitals).
type capitalSet struct {
	terms map[string]uint32 // lower-cased word → its term
	// starts has a bit for each three letters a word of terms starts
	// with, so that most initials are ruled out without a map lookup.
	starts [(26*26*26 + 63) / 64]uint64
}

// mayStart reports whether some word of c starts with the first three
// letters of s.
func (c *capitalSet) mayStart(s []byte) bool {
	k, ok := trigram(s)
	return ok && c.starts[k/64]&(1<<(k%64)) != 0
}

// trigram is the index of the first three letters of s among [a-z]³.
func trigram(s []byte) (int, bool) {
	if len(s) < 3 {
		return 0, false
	}
	k := 0
	for _, c := range s[:3] {
		if c < 'a' || c > 'z' {
			return 0, false
		}
		k = k*26 + int(c-'a')
	}
	return k, true
}

// catalogCapitals returns the words that the summaries and descriptions
// of ops write in capitals, with their terms in ix: three to seven ASCII
// letters or digits, a capital first, of which at most one letter is
// lower case ("CSR", "QoS", "JWKs"). Stop words and verbs are none ("GET"
// is a method, "AND" a word).
func catalogCapitals(ops []*operations.Operation, ix *index) capitalSet {
	caps := capitalSet{terms: map[string]uint32{}}
	seen := map[string]bool{}
	var buf [maxAcronym]byte
	add := func(text string) {
		for i := 0; i < len(text); {
			if !isUpper(text[i]) {
				for i < len(text) && isAlnum(text[i]) {
					i++ // the rest of a word that starts lower case
				}
				i++
				continue
			}
			j, lower := i, 0
			for j < len(text) && isAlnum(text[j]) {
				if c := text[j]; c >= 'a' && c <= 'z' {
					lower++
				}
				j++
			}
			if n := j - i; n >= minAcronym && n <= maxAcronym && lower <= 1 && lower < n-1 {
				for k := range n {
					c := text[i+k]
					if isUpper(c) {
						c += 'a' - 'A'
					}
					buf[k] = c
				}
				if w := buf[:n]; !seen[string(w)] {
					seen[string(w)] = true
					t, ok := ix.wordTerm(string(w))
					if ok && !isStopWord(string(w)) && verbLexicon[string(w)] == verbNone {
						caps.terms[string(w)] = t
						if k, ok := trigram(w); ok {
							caps.starts[k/64] |= 1 << (k % 64)
						}
					}
				}
			}
			i = j + 1
		}
	}
	for _, op := range ops {
		add(op.Summary)
		add(op.Description)
	}
	return caps
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
