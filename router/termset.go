package router

import "slices"

// termSet is a small set of term ids for per-document membership tests in
// the scoring loop: a 512-bit filter on the id's low bits rejects most
// non-members without scanning the list.
type termSet struct {
	bits  [8]uint64
	terms []uint32
}

func (s *termSet) reset() {
	s.bits = [8]uint64{}
	s.terms = s.terms[:0]
}

func (s *termSet) add(t uint32) {
	if s.has(t) {
		return
	}
	s.bits[t>>6&7] |= 1 << (t & 63)
	s.terms = append(s.terms, t)
}

func (s *termSet) has(t uint32) bool {
	return s.bits[t>>6&7]&(1<<(t&63)) != 0 && slices.Contains(s.terms, t)
}

// count counts the terms of ts in s.
func (s *termSet) count(ts []uint32) int {
	n := 0
	for _, t := range ts {
		if s.has(t) {
			n++
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
