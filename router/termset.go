package router

// termSet is a set of term ids for per-document membership tests in the
// scoring loop: a bitmap over the index's vocabulary, so a test is one
// load, and cleared term by term, so a query pays only for its own terms.
type termSet struct {
	bits  []uint64 // bit t is set when term t is in the set
	terms []uint32
}

// newTermSet returns an empty set for term ids below vocab.
func newTermSet(vocab int) termSet { return termSet{bits: make([]uint64, (vocab+63)/64)} }

func (s *termSet) reset() {
	for _, t := range s.terms {
		s.bits[t>>6] = 0
	}
	s.terms = s.terms[:0]
}

// add adds t; a term outside the vocabulary is never met, so it is left out.
func (s *termSet) add(t uint32) {
	w := int(t >> 6)
	if w >= len(s.bits) {
		return
	}
	if b := uint64(1) << (t & 63); s.bits[w]&b == 0 {
		s.bits[w] |= b
		s.terms = append(s.terms, t)
	}
}

func (s *termSet) has(t uint32) bool {
	w := int(t >> 6)
	return w < len(s.bits) && s.bits[w]&(1<<(t&63)) != 0
}

// count counts the terms of ts in s. Each term adds its bit, 0 or 1,
// with no branch on it: the boosts count an operation's words this way,
// and whether the next one is in s is anyone's guess.
func (s *termSet) count(ts []uint32) int {
	n := 0
	for _, t := range ts {
		if w := int(t >> 6); w < len(s.bits) {
			n += int(s.bits[w] >> (t & 63) & 1)
		}
	}
	return n
}

// any reports whether some term of ts is in s.
func (s *termSet) any(ts []uint32) bool {
	for _, t := range ts {
		if s.has(t) {
			return true
		}
	}
	return false
}
