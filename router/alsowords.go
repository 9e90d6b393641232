package router

import (
	"maps"
	"strings"

	"github.com/intentsrv/intentsrv/internal/vecfile"
	"github.com/intentsrv/intentsrv/operations"
)

// Words indexed beside a catalog's own, in the same field, so that a
// request meets what the catalog writes in another form:
//
//   - a word that undoes a verb also says that verb ("untag" → "tag"), so
//     "remove the tags" meets untag_resource on "tag" and the verb tells it
//     from tag_resource (ablation "reversals");
//   - a word that is several words run together says each of them
//     ("deleteschedulingpolicy" → delete, scheduling, policy;
//     "assetdatabases" → asset, databases), so a path written that way
//     meets a request that spells them apart (ablation "split-words").
type alsoWords struct {
	reversals bool
	// dict holds the words a run-together word may be split into: the
	// learned vectors' vocabulary (words of real API text); nil when
	// splitting is off.
	dict *vecfile.Vectors
	// prose holds the long words the catalog writes in its own summaries
	// and descriptions (proseWords): words of its language, whatever the
	// vectors know, so never split ("payouts" is not pay outs).
	prose map[string]bool
}

func newAlsoWords(opts Options) alsoWords {
	tu := opts.tuning()
	a := alsoWords{reversals: tu.reversals}
	if tu.splitWords {
		a.dict = opts.vectors
		if a.dict == nil {
			a.dict, _ = loadVectors()
		}
	}
	return a
}

// of returns the words to index beside w (lower case), or nil.
func (a alsoWords) of(w string) []string {
	var out []string
	if b, ok := undoes(w); ok && a.reversals {
		out = append(out, b)
	}
	if a.dict != nil {
		out = a.split(w, out)
	}
	return out
}

// Run-together words: only words of at least minSplitWord letters that
// are not words themselves are split, into pieces of minSplitPiece to
// maxSplitPiece letters, at most maxSplitPieces of them.
const (
	minSplitWord   = 7
	minSplitPiece  = 3
	maxSplitPiece  = 20
	maxSplitPieces = 4
)

// split appends to out the fewest known words that w is written as, when
// there are two to maxSplitPieces of them; among splits into as many
// pieces, the one whose last pieces are longest.
func (a alsoWords) split(w string, out []string) []string {
	n := len(w)
	if n < minSplitWord || n > maxSplitPieces*maxSplitPiece || !lowerASCII(w) || a.known(w) || a.prose[w] {
		return out
	}
	// pieces[i] is the fewest pieces w[:i] splits into (0: none found),
	// from[i] where its last piece starts.
	var pieces, from [maxSplitPieces*maxSplitPiece + 1]uint8
	for i := minSplitPiece; i <= n; i++ {
		for j := max(0, i-maxSplitPiece); j <= i-minSplitPiece; j++ {
			if j > 0 && pieces[j] == 0 {
				continue
			}
			if c := pieces[j] + 1; (pieces[i] == 0 || c < pieces[i]) && c <= maxSplitPieces && a.known(w[j:i]) {
				pieces[i], from[i] = c, uint8(j)
			}
		}
	}
	if pieces[n] < 2 {
		return out
	}
	k := len(out)
	for i := n; i > 0; i = int(from[i]) {
		out = append(out, w[from[i]:i])
	}
	for l, r := k, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// proseWords returns the words of at least minSplitWord letters that ops
// write in their summaries and descriptions, read in the build's chunks
// cs, when the catalog's words are folded in (ablation "catalog-words");
// nil otherwise.
func proseWords(ops []*operations.Operation, cs [][2]int, opts Options) map[string]bool {
	if tu := opts.tuning(); !tu.catalogWords || !tu.splitWords {
		return nil
	}
	sets := make([]map[string]bool, len(cs))
	eachChunk(cs, func(c, lo, hi int) {
		prose := make(map[string]bool)
		buf := make([]byte, 0, 64)
		for _, op := range ops[lo:hi] {
			for _, text := range [2]string{op.Summary, op.Description} {
				for tok := range strings.FieldsSeq(text) {
					// Only a word in letters, capitalised or not: a path,
					// a URL, an identifier quoted or in camelCase
					// ("/assetdatabases/{webId}", "order_status",
					// "*itemusages*", "orderStatus") is the address's
					// spelling, not a word of the prose.
					if w, ok := proseWord(strings.Trim(tok, ".,;:!?()[]"), buf); ok && !prose[string(w)] {
						prose[string(w)] = true
					}
				}
			}
		}
		sets[c] = prose
	})
	for _, s := range sets[1:] {
		maps.Copy(sets[0], s)
	}
	return sets[0]
}

// proseWord returns tok in lower case, written into buf, when it is a
// word of at least minSplitWord ASCII letters whose letters after the
// first are lower case.
func proseWord(tok string, buf []byte) ([]byte, bool) {
	if len(tok) < minSplitWord {
		return nil, false
	}
	buf = buf[:0]
	for i := 0; i < len(tok); i++ {
		b := tok[i]
		switch {
		case b >= 'a' && b <= 'z':
		case b >= 'A' && b <= 'Z' && i == 0:
			b += 'a' - 'A'
		default:
			return nil, false
		}
		buf = append(buf, b)
	}
	return buf, true
}

// known reports whether w is a word of the dictionary or a verb.
func (a alsoWords) known(w string) bool {
	if verbLexicon[w] != verbNone {
		return true
	}
	_, ok := a.dict.Index(plural(w))
	return ok
}

// spelledApart returns the term of the word pair that w, a word the
// catalog does not say, is written as when run together ("username" →
// the pair user name, which userName and "the user name" index), and
// whether the catalog says such a pair.
func (ix *index) spelledApart(w string) (uint32, bool) {
	if len(w) < minSplitWord || len(w) > 2*maxSplitPiece || !lowerASCII(w) {
		return noTerm, false
	}
	for i := len(w) - minSplitPiece; i >= minSplitPiece; i-- {
		a, ok := ix.terms[stemKey(stem(w[:i]))]
		if !ok {
			continue
		}
		b, ok := ix.terms[stemKey(stem(w[i:]))]
		if !ok {
			continue
		}
		if t := ix.bigram(a, b, false); t != noTerm {
			return t, true
		}
	}
	return noTerm, false
}

// lowerASCII reports whether w is made of the letters a to z only.
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
