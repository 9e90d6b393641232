// Package router turns natural-language intents into operation ids.
//
// It is a lexical router: no model, no network. New builds an immutable
// inverted index; Search is safe for concurrent use and allocation-light.
//
// # Method
//
//   - Tokenizer (splitWords): splits ids, camelCase, snake_case, kebab-case,
//     dotted and slash paths, and letter/digit runs; lower-cases; drops stop
//     words, conversational fillers (queries only) and numbers; stems with
//     the Snowball English stemmer (github.com/kljensen/snowball).
//   - BM25F over the fields of each operation: name (last id segment),
//     namespace, summary, description, tags, aliases, example intents,
//     parameter names, parameter descriptions, HTTP method and path. Each
//     field has a weight and a length normalisation (named constants in
//     index.go). Term contributions, idf included, are precomputed at New,
//     so a query only sums postings.
//   - Query expansion, scored as the best variant per query word (never a
//     sum, so a synonym cannot double-count): the verb lexicon maps user
//     verbs to operation verbs and classes (show/get/what → read,
//     list/all/which → list, create/add/open/new → create,
//     change/edit/rename/bump → update, delete/remove/kill/drop → delete);
//     domain synonyms (issue/ticket, pr/pull request, repo/repository, ...)
//     are data that Options.Synonyms extends per catalog; words that are not
//     in the index are corrected to index terms within one edit.
//   - Exact ids and aliases win through an O(1) map. Id-like queries that
//     are not exact ids, and Suggest, use edit distance and
//     github.com/sahilm/fuzzy subsequence matching over ids and aliases.
//   - An operation whose own verb class matches the query's gets a small
//     boost (verbBoost).
//
// # Confidence and decision
//
// A candidate's confidence is its coverage (the idf-weighted share of the
// query's words it matches, verbs discounted, unknown words at full
// weight) scaled by its score relative to the leader, and for the leader by
// its margin over the runner-up. Search answers DecisionNoMatch when the
// leader matches no content word or its coverage is below noMatchCoverage;
// DecisionRun only when the leader's confidence is at least runConfidence
// and its margin at least runMargin; DecisionChoose otherwise. The
// constants are in decide.go.
package router
