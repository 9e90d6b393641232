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
// of the name, as it would had it said them (ablation "acronyms"). Only
// a name capitalised in the request is read so: the initials of
// lower-case words collide with the catalog's words too often
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
// words of a name, each capitalised in the request (names: "Rubrik
// Backup Service", "Certificate Signing Request"), none the request's
// verb (verbAt, -1: none), with no other word between them but "of":
// its initials are those of the capitalised words ("Registration of
// Vehicles Certificate": rvc) or of every word ("Terms of Service":
// tos). The acronym must be a word the catalog writes in capitals
// (capitals) and no word of the request. A name, not words: the
// initials of "a specific self-hosted runner" are no ssh, nor those of
// "transfer a repository" tar. Each word is searched as the longest
// acronym it is part of.
func (r *Router) acronyms(words, names []string, groups []group, verbAt int) {
	if len(r.capitals) == 0 || len(names) < 2 {
		return
	}
	ix := r.idx
	named := func(j int) bool { return j != verbAt && slices.Contains(names, words[j]) }
	var content, all [maxAcronym]byte
	for i := 0; i < len(words); i++ {
		if !named(i) {
			continue
		}
		nc, na := 0, 0
		bestEnd, best := -1, noTerm
		for j := i; j < len(words) && na < maxAcronym; j++ {
			w := words[j]
			of := w == "of" && j > i
			if !of && !named(j) {
				break
			}
			all[na] = w[0]
			na++
			if of {
				continue
			}
			content[nc] = w[0]
			nc++
			if nc >= minAcronym {
				if t, ok := r.acronymTerm(string(content[:nc]), words); ok {
					bestEnd, best = j, t
				}
			}
			if na > nc && na >= minAcronym {
				if t, ok := r.acronymTerm(string(all[:na]), words); ok {
					bestEnd, best = j, t
				}
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

// acronymTerm returns the catalog's term for the acronym s, when the
// catalog writes s in capitals ("GET" is not one: it is a verb) and s
// is no word of the request.
func (r *Router) acronymTerm(s string, words []string) (uint32, bool) {
	if !r.capitals[s] || isStopWord(s) || verbLexicon[s] != verbNone {
		return noTerm, false
	}
	for _, w := range words {
		if w == s {
			return noTerm, false
		}
	}
	return r.idx.wordTerm(s)
}

// capitalWords returns the words that the summaries and descriptions of
// ops write in capitals, lower-cased: three to seven ASCII letters or
// digits, a capital first, of which at most one letter is lower case
// ("CSR", "QoS", "JWKs").
func capitalWords(ops []*operations.Operation) map[string]bool {
	caps := map[string]bool{}
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
				if !caps[string(buf[:n])] {
					caps[string(buf[:n])] = true
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
