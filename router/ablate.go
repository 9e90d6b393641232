package router

import (
	"fmt"
	"slices"
	"strings"
)

// Ablations are the names Options.Ablate accepts, one per part of the
// method that can be switched off to measure what it is worth. "bm25"
// switches every one of them off: plain BM25F over the same fields with
// the same tokenizer, the baseline of the benchmarks.
var Ablations = []string{
	"bm25", "stem", "synonyms", "fuzzy", "field-weights", "verbs", "bigrams",
	"clauses", "names", "feedback", "diversify", "services", "repeats",
	"values", "agent-nouns", "one-item", "namespace", "resources", "boosts",
	"questions", "singular", "learned-verbs", "neighbours", "semantic", "rerank",
	"reversals", "split-words", "path-ranker", "name-scope",
	"run-gate", "slugs", "decisive", "request-clause", "modifiers", "named-elsewhere", "twins", "verb-not-deciding", "unsaid-verb", "verbless-writes",
	"filler-resources", "caller-address", "clause-rerank", "caller-paths", "caller-phrases",
	"addresses", "designation", "pool-gaps", "unknown-verbs", "event-words", "who-is-in", "reads-first", "read-orders", "open-sense", "title-verbs", "rpc-calls", "file-names", "filtered-runs", "catalog-words", "hidden-actions", "hidden-only", "hidden-reads", "preambles", "neutral-verbs", "title-case", "verb-only", "verb-not-plural", "fewer-unasked", "returns", "upserts", "one-not-list", "object-elsewhere", "verb-idf", "example-values", "named-object", "make-sense", "writes-first", "relative-clause", "parts-of", "items-first", "sibling-reads", "data-questions", "result-fields", "head-nouns", "verb-alone", "sub-collections", "method-verbs", "object-head", "list-of", "value-places", "named-stems", "unknown-object", "search-text", "called-names", "unnamed-writes", "enabling-verbs", "change-words", "fitted-names", "listed-heads", "params-only", "part-or-whole", "request-addresses", "named-endpoints", "another-user", "current-first", "unset-deletes", "signed-in", "pointed-at", "refined-elsewhere", "undone-relations", "action-segments", "lists-first", "versions", "generic-heads", "unnamed-heads", "compound-objects", "said-methods", "header-reads", "agent-participles", "done-to", "named-someone", "format-suffixes", "acronyms", "lower-acronyms",
}

// CheckAblations reports the first name that is not in Ablations.
func CheckAblations(names []string) error {
	for _, n := range names {
		if !slices.Contains(Ablations, n) {
			return fmt.Errorf("unknown ablation %q (want one of %s)", n, strings.Join(Ablations, ", "))
		}
	}
	return nil
}

// ablate applies Options.Ablate to o and tu.
func (o *Options) ablate(tu *tuning) {
	// The rules that are on or off, by their ablation names.
	rules := map[string]*bool{
		"values":            &tu.values,
		"learned-verbs":     &tu.learnedVerbs,
		"singular":          &tu.singular,
		"reversals":         &tu.reversals,
		"split-words":       &tu.splitWords,
		"questions":         &tu.questions,
		"modifiers":         &tu.modifiers,
		"request-clause":    &tu.requestClause,
		"preambles":         &tu.preambles,
		"enabling-verbs":    &tu.enablingVerbs,
		"change-words":      &tu.changeWords,
		"fitted-names":      &tu.fittedNames,
		"listed-heads":      &tu.listedHeads,
		"params-only":       &tu.paramsOnly,
		"part-or-whole":     &tu.partOrWhole,
		"request-addresses": &tu.requestAddresses,
		"named-endpoints":   &tu.namedEndpoints,
		"another-user":      &tu.anotherUser,
		"current-first":     &tu.currentFirst,
		"unset-deletes":     &tu.unsetDeletes,
		"signed-in":         &tu.signedIn,
		"pointed-at":        &tu.pointedAt,
		"refined-elsewhere": &tu.refinedElsewhere,
		"undone-relations":  &tu.undoneRelations,
		"action-segments":   &tu.actionSegments,
		"neutral-verbs":     &tu.neutralVerbs,
		"title-case":        &tu.titleCase,
		"verb-only":         &tu.verbOnly,
		"verb-not-plural":   &tu.verbNotPlural,
		"fewer-unasked":     &tu.fewerUnasked,
		"upserts":           &tu.upserts,
		"one-not-list":      &tu.oneNotList,
		"object-elsewhere":  &tu.objectElsewhere,
		"verb-idf":          &tu.verbIDF,
		"named-object":      &tu.namedObject,
		"make-sense":        &tu.makeSense,
		"writes-first":      &tu.writesFirst,
		"relative-clause":   &tu.relativeClause,
		"parts-of":          &tu.partsOf,
		"items-first":       &tu.itemsFirst,
		"lists-first":       &tu.listsFirst,
		"versions":          &tu.versions,
		"generic-heads":     &tu.genericHeads,
		"unnamed-heads":     &tu.unnamedHeads,
		"compound-objects":  &tu.compoundObjects,
		"said-methods":      &tu.saidMethods,
		"header-reads":      &tu.headerReads,
		"agent-participles": &tu.agentParticiples,
		"done-to":           &tu.doneTo,
		"named-someone":     &tu.namedSomeone,
		"acronyms":          &tu.acronyms,
		"lower-acronyms":    &tu.lowerAcronyms,
		"sibling-reads":     &tu.siblingReads,
		"data-questions":    &tu.dataQuestions,
		"head-nouns":        &tu.headNouns,
		"verb-alone":        &tu.verbAlone,
		"sub-collections":   &tu.subCollections,
		"method-verbs":      &tu.methodVerbs,
		"object-head":       &tu.objectHead,
		"value-places":      &tu.valuePlaces,
		"named-stems":       &tu.namedStems,
		"unknown-object":    &tu.unknownObject,
		"search-text":       &tu.searchText,
		"called-names":      &tu.calledNames,
		"unnamed-writes":    &tu.unnamedWrites,
		"list-of":           &tu.listOf,
		"decisive":          &tu.decisive,
		"named-elsewhere":   &tu.namedElsewhere,
		"twins":             &tu.twins,
		"verb-not-deciding": &tu.verbNotDeciding,
		"unsaid-verb":       &tu.unsaidVerb,
		"verbless-writes":   &tu.verblessWrites,
		"filler-resources":  &tu.fillerResources,
		"caller-address":    &tu.callerAddress,
		"clause-rerank":     &tu.clauseRerank,
		"caller-paths":      &tu.callerPaths,
		"caller-phrases":    &tu.callerPhrases,
		"addresses":         &tu.addresses,
		"designation":       &tu.designation,
		"pool-gaps":         &tu.poolGaps,
		"unknown-verbs":     &tu.unknownVerbs,
		"event-words":       &tu.eventWords,
		"who-is-in":         &tu.whoIsIn,
		"reads-first":       &tu.readsFirst,
		"read-orders":       &tu.readOrders,
		"open-sense":        &tu.openSense,
		"title-verbs":       &tu.titleVerbs,
		"rpc-calls":         &tu.rpcCalls,
		"file-names":        &tu.fileNames,
		"filtered-runs":     &tu.filteredRuns,
		"catalog-words":     &tu.catalogWords,
		"hidden-actions":    &tu.hiddenActions,
		"hidden-only":       &tu.hiddenOnly,
		"hidden-reads":      &tu.hiddenReads,
	}
	for _, name := range o.Ablate {
		all := name == "bm25"
		on := func(n string) bool { return all || name == n }
		for n, rule := range rules {
			if on(n) {
				*rule = false
			}
		}
		if on("stem") {
			o.noStem = true
		}
		if on("synonyms") {
			o.noSynonyms = true
			tu.compound = 0
		}
		if on("fuzzy") {
			o.noFuzzy = true
		}
		if on("field-weights") {
			o.flatWeights = true
		}
		if on("verbs") {
			o.noVerbs = true
			tu.vboost = 0
			tu.runAgree = false
		}
		if on("bigrams") {
			o.noBigrams = true
		}
		if on("returns") {
			o.noReturns = true
		}
		if on("example-values") {
			o.noExampleValues = true
		}
		if on("result-fields") {
			o.noResultFields = true
		}
		if on("clauses") {
			o.noClauses = true
		}
		if on("names") {
			o.noNames = true
		}
		if on("feedback") {
			o.noFeedback = true
		}
		if on("diversify") {
			tu.diversity = 0
		}
		if on("services") {
			tu.svc = 0
		}
		if on("repeats") {
			tu.qtf = 0
		}
		if on("agent-nouns") {
			tu.derive = 0
		}
		if on("one-item") {
			tu.itemBoost = 0
			tu.pluralList = false
		}
		if on("namespace") {
			tu.ns = 0
		}
		if on("resources") {
			tu.resMismatch, tu.resMiss = 0, 0
		}
		if on("boosts") {
			tu.idBoost, tu.sumBoost = 0, 0
		}
		if on("neighbours") {
			tu.neighbours = 0
		}
		if on("rerank") {
			o.noRerank = true
		}
		if on("path-ranker") {
			o.noPathRanker = true
		}
		if on("name-scope") {
			o.noNameScope = true
		}
		if on("format-suffixes") {
			o.noFormatSuffixes = true
		}
		if on("semantic") {
			o.noSemantic = true
		}
		if on("slugs") {
			tu.slugBoost = 0
		}
		if on("run-gate") {
			o.noRunGate = true
		}
	}
}
