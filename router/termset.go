package router

// termSet is a small set of term ids for per-document membership tests in
// the scoring loop: an open-addressing table with linear probing, cleared
// term by term, so that a long query's sixty terms cost one or two probes
// per test, not a scan.
type termSet struct {
	slot  [termSetSlots]uint32 // term id + 1; 0 is empty
	terms []uint32
}

// termSetSlots bounds the set: maxGroups words with their variants fit
// well under half of it.
const termSetSlots = 1 << 11

func termSlot(t uint32) uint32 { return (t * 0x9E3779B1) >> (32 - 11) }

func (s *termSet) reset() {
	for _, t := range s.terms {
		for i := termSlot(t); ; i = (i + 1) & (termSetSlots - 1) {
			if s.slot[i] == 0 {
				break
			}
			s.slot[i] = 0
		}
	}
	s.terms = s.terms[:0]
}

func (s *termSet) add(t uint32) {
	if len(s.terms) >= termSetSlots/2 {
		return // full: the query's later words are not boosted
	}
	for i := termSlot(t); ; i = (i + 1) & (termSetSlots - 1) {
		switch s.slot[i] {
		case t + 1:
			return
		case 0:
			s.slot[i] = t + 1
			s.terms = append(s.terms, t)
			return
		}
	}
}

func (s *termSet) has(t uint32) bool {
	for i := termSlot(t); ; i = (i + 1) & (termSetSlots - 1) {
		switch s.slot[i] {
		case t + 1:
			return true
		case 0:
			return false
		}
	}
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
