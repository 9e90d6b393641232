package router

import (
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// A request that names a service ("using the News Sentiment API", "on
// Twitter", "with the bitly API") means that service's operations, over
// others that share its words. The services of an operation are the first
// and the last segments of its namespace: its source ("github" in
// github.issues.list) and its API or resource ("news_sentiment" in
// news_sentiment.url, "issues"). A name counts as named when the query
// writes one of its words as a proper name or follows it with "API": said
// plainly, "news" or "issues" is what a request is about, not whose.
const (
	// serviceBoost multiplies by 1 + serviceBoost the score of an
	// operation whose service the query names.
	serviceBoost = 0.5
	// maxServiceWords bounds the words of a service name that are
	// matched; longer names are descriptions, not names.
	maxServiceWords = 4
)

// serviceIndex finds the services a query names.
type serviceIndex struct {
	of    [][2]int32         // operation → its services (source, API), -1 for none
	words [][]uint32         // service → its name's words, as exact terms
	first map[uint32][]int32 // first word → services whose name starts with it
}

// buildServices indexes the service names of ops over ix's vocabulary.
func (ix *index) buildServices(ops []*operations.Operation) {
	s := serviceIndex{of: make([][2]int32, len(ops)), first: map[uint32][]int32{}}
	byName := map[string]int32{}
	for d, op := range ops {
		s.of[d] = [2]int32{-1, -1}
		if op.Namespace == "" || op.Namespace == op.ID {
			continue
		}
		first, last := op.Namespace, op.Namespace
		if i := strings.IndexByte(first, '.'); i >= 0 {
			first = first[:i]
		}
		if i := strings.LastIndexByte(last, '.'); i >= 0 {
			last = last[i+1:]
		}
		s.of[d][0] = s.add(ix, first, byName)
		if last != first {
			s.of[d][1] = s.add(ix, last, byName)
		}
	}
	ix.svc = s
}

// add returns the service named ns, indexing it when new, or -1 when its
// name has no usable words.
func (s *serviceIndex) add(ix *index, ns string, byName map[string]int32) int32 {
	if k, ok := byName[ns]; ok {
		return k
	}
	var ws []uint32
	usable := true
	splitWords(ns, func(w string) {
		if isStopWord(w) || isNumber(w) || versionWord(w) {
			return
		}
		t, ok := ix.terms[plural(w)]
		if !ok {
			usable = false
			return
		}
		ws = append(ws, t)
	})
	k := int32(-1)
	if usable && len(ws) > 0 && len(ws) <= maxServiceWords {
		k = int32(len(s.words))
		s.words = append(s.words, ws)
		s.first[ws[0]] = append(s.first[ws[0]], k)
	}
	byName[ns] = k
	return k
}

// versionWord reports whether w is a version suffix ("v2", "v13").
func versionWord(w string) bool {
	return len(w) >= 2 && w[0] == 'v' && isNumber(w[1:])
}

// namedServices appends to out the services whose whole name the query's
// words say in order, written as a proper name or followed by "API".
func (r *Router) namedServices(words, names []string, out []int32) []int32 {
	sv := &r.idx.svc
	if len(sv.words) < 2 {
		return out // one service: naming it changes nothing
	}
	var seq [maxGroups]uint32
	var proper, api [maxGroups]bool
	n := 0
	for _, w := range words {
		if n == len(seq) {
			break
		}
		if isStopWord(w) || isNumber(w) || versionWord(w) {
			continue
		}
		t, ok := r.idx.wordTerm(w)
		if !ok {
			t = noTerm
		}
		seq[n], proper[n], api[n] = t, slices.Contains(names, w), w == "api" || w == "apis"
		n++
	}
	for i := range n {
		for _, k := range sv.first[seq[i]] {
			ws := sv.words[k]
			end := i + len(ws)
			if end > n || !slices.Equal(seq[i:end], ws) {
				continue
			}
			named := slices.Contains(proper[i:end], true) || api[end-1] || end < n && api[end]
			if named && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}
