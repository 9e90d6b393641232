// Package wordvec learns what words mean in APIs from a corpus of API
// descriptions: distributional word vectors, by positive pointwise mutual
// information over co-occurrence windows and a truncated SVD of that
// matrix (Levy, Goldberg and Dagan's recipe: smoothed context
// distribution, symmetric eigenvalue weighting), and each word's nearest
// neighbours.
//
// Training is deterministic: the same corpus and Config give the same
// vectors, byte for byte, whatever the number of cores.
package wordvec

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/intentsrv/intentsrv/internal/parallel"
	"github.com/intentsrv/intentsrv/internal/vecfile"
	"gonum.org/v1/gonum/mat"
)

// Config sets the training.
type Config struct {
	Dims       int     // vector length
	Window     int     // words on each side that count as context
	MinCount   int     // a word seen fewer times is not learned
	MinDocs    int     // nor one seen in fewer documents (APIs)
	MaxVocab   int     // at most this many words, the most frequent
	Alpha      float64 // context distribution smoothing (0.75)
	PowerIters int     // power iterations of the randomized SVD
	Neighbours int     // neighbours kept per word
	MinSim     float32 // neighbours below this cosine are dropped
	Seed       uint64
}

// DefaultConfig is the configuration of the shipped vectors.
var DefaultConfig = Config{
	Dims: 128, Window: 5, MinCount: 8, MinDocs: 3, MaxVocab: 16000,
	Alpha: 0.75, PowerIters: 3, Neighbours: 12, MinSim: 0.35, Seed: 1,
}

// Corpus is the training text: documents (one per API), each a list of
// sentences, each a list of words as the router tokenizes them.
type Corpus [][][]string

// Train learns vectors from c.
func Train(c Corpus, cfg Config) (*vecfile.Vectors, error) {
	words := vocabulary(c, cfg)
	if len(words) < cfg.Dims+16 {
		return nil, errors.New("wordvec: corpus too small for the requested dimensions")
	}
	id := make(map[string]int32, len(words))
	for i, w := range words {
		id[w] = int32(i)
	}
	m := ppmi(cooccurrences(c, id, cfg.Window), len(words), cfg.Alpha)
	vec := embed(m, len(words), cfg)
	v := &vecfile.Vectors{Words: words, Dims: cfg.Dims, Vec: vec}
	v.Neighbours = neighbours(v, cfg.Neighbours, cfg.MinSim)
	return v, nil
}

// vocabulary returns the learned words, sorted.
func vocabulary(c Corpus, cfg Config) []string {
	count := map[string]int{}
	docs := map[string]int{}
	for _, doc := range c {
		seen := map[string]bool{}
		for _, s := range doc {
			for _, w := range s {
				count[w]++
				if !seen[w] {
					seen[w] = true
					docs[w]++
				}
			}
		}
	}
	var words []string
	for w, n := range count {
		if n >= cfg.MinCount && docs[w] >= cfg.MinDocs && len(w) > 1 && len(w) <= 255 {
			words = append(words, w)
		}
	}
	slices.SortFunc(words, func(a, b string) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(words) > cfg.MaxVocab {
		words = words[:cfg.MaxVocab]
	}
	slices.Sort(words)
	return words
}

// cooccurrences counts, for each pair of vocabulary words, their
// co-occurrences within window words of each other in a sentence, each
// weighted by 1/distance. Both orders are counted.
func cooccurrences(c Corpus, id map[string]int32, window int) map[uint64]float64 {
	co := map[uint64]float64{}
	var ids []int32
	for _, doc := range c {
		for _, s := range doc {
			ids = ids[:0]
			for _, w := range s {
				if i, ok := id[w]; ok {
					ids = append(ids, i)
				} else {
					ids = append(ids, -1)
				}
			}
			for a, i := range ids {
				if i < 0 {
					continue
				}
				for d := 1; d <= window && a+d < len(ids); d++ {
					j := ids[a+d]
					if j < 0 || j == i {
						continue
					}
					x := 1 / float64(d)
					co[uint64(i)<<32|uint64(uint32(j))] += x
					co[uint64(j)<<32|uint64(uint32(i))] += x
				}
			}
		}
	}
	return co
}

// csr is a sparse symmetric matrix in compressed sparse rows.
type csr struct {
	start []int
	col   []int32
	val   []float64
}

// ppmi turns co-occurrence counts into the positive PMI matrix with a
// context distribution smoothed by alpha.
func ppmi(co map[uint64]float64, n int, alpha float64) *csr {
	// Sums in key order: floating-point addition depends on its order,
	// and map order differs between runs.
	keys := make([]uint64, 0, len(co))
	for k := range co {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	row := make([]float64, n)
	for _, k := range keys {
		row[k>>32] += co[k]
	}
	ctx := make([]float64, n)
	var ctxTotal float64
	for i, x := range row {
		ctx[i] = math.Pow(x, alpha)
		ctxTotal += ctx[i]
	}
	m := &csr{start: make([]int, n+1)}
	for _, k := range keys {
		i, j := int(k>>32), int(uint32(k))
		pmi := math.Log(co[k] * ctxTotal / (row[i] * ctx[j]))
		if pmi <= 0 {
			continue
		}
		m.col = append(m.col, int32(j))
		m.val = append(m.val, pmi)
		m.start[i+1]++
	}
	for i := range n {
		m.start[i+1] += m.start[i]
	}
	return m
}

// mulDense returns m × x for x of n rows and l columns, row-major.
func (m *csr) mulDense(x []float64, n, l int) []float64 {
	out := make([]float64, n*l)
	parallel.Each(n, func(i int) {
		o := out[i*l : (i+1)*l]
		for p := m.start[i]; p < m.start[i+1]; p++ {
			v := m.val[p]
			r := x[int(m.col[p])*l : (int(m.col[p])+1)*l]
			for k := range o {
				o[k] += v * r[k]
			}
		}
	})
	return out
}

// embed computes the rank-Dims truncated SVD of the symmetric matrix m by
// randomized subspace iteration and returns U·sqrt(S), rows normalised.
func embed(m *csr, n int, cfg Config) []float32 {
	l := cfg.Dims + 16
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	q := make([]float64, n*l)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	q = m.mulDense(q, n, l)
	orthonormalize(q, n, l)
	for range cfg.PowerIters {
		q = m.mulDense(q, n, l)
		orthonormalize(q, n, l)
	}
	// B = Qᵀ M; B Bᵀ = (M Q)ᵀ (M Q) = W Λ Wᵀ; M ≈ (Q W) sqrt(Λ) (...).
	mq := m.mulDense(q, n, l)
	c := mat.NewSymDense(l, nil)
	for a := range l {
		for b := a; b < l; b++ {
			var s float64
			for i := range n {
				s += mq[i*l+a] * mq[i*l+b]
			}
			c.SetSym(a, b, s)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(c, true) {
		panic("wordvec: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var w mat.Dense
	eig.VectorsTo(&w)
	out := make([]float32, n*cfg.Dims)
	for k := range cfg.Dims {
		col := l - 1 - k // largest first
		sv := math.Sqrt(math.Max(vals[col], 0))
		scale := math.Sqrt(sv)
		// The sign of a singular vector is arbitrary; fix it so the
		// largest entry is positive, for reproducible files.
		sign := 1.0
		var big float64
		for i := range n {
			var u float64
			for a := range l {
				u += q[i*l+a] * w.At(a, col)
			}
			if math.Abs(u) > math.Abs(big) {
				big = u
			}
			out[i*cfg.Dims+k] = float32(u * scale)
		}
		if big < 0 {
			sign = -1
		}
		if sign < 0 {
			for i := range n {
				out[i*cfg.Dims+k] = -out[i*cfg.Dims+k]
			}
		}
	}
	for i := range n {
		row := out[i*cfg.Dims : (i+1)*cfg.Dims]
		var norm float64
		for _, x := range row {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for j := range row {
				row[j] *= inv
			}
		}
	}
	return out
}

// orthonormalize makes the l columns of the n×l row-major matrix x
// orthonormal (modified Gram-Schmidt, twice for stability).
func orthonormalize(x []float64, n, l int) {
	for range 2 {
		for a := range l {
			for b := range a {
				var dot float64
				for i := range n {
					dot += x[i*l+a] * x[i*l+b]
				}
				for i := range n {
					x[i*l+a] -= dot * x[i*l+b]
				}
			}
			var norm float64
			for i := range n {
				norm += x[i*l+a] * x[i*l+a]
			}
			norm = math.Sqrt(norm)
			if norm == 0 {
				continue
			}
			for i := range n {
				x[i*l+a] /= norm
			}
		}
	}
}

// neighbours lists each word's k nearest words by cosine, at least minSim.
func neighbours(v *vecfile.Vectors, k int, minSim float32) [][]vecfile.Neighbour {
	n := len(v.Words)
	out := make([][]vecfile.Neighbour, n)
	parallel.Each(n, func(i int) {
		a := v.Row(i)
		var best []vecfile.Neighbour
		for j := range n {
			if j == i {
				continue
			}
			var s float32
			for d, x := range v.Row(j) {
				s += a[d] * x
			}
			if s < minSim || len(best) == k && s <= best[k-1].Sim {
				continue
			}
			pos, _ := slices.BinarySearchFunc(best, s, func(e vecfile.Neighbour, t float32) int { return cmp.Compare(t, e.Sim) })
			best = slices.Insert(best, pos, vecfile.Neighbour{Word: uint32(j), Sim: s})
			if len(best) > k {
				best = best[:k]
			}
		}
		out[i] = best
	})
	return out
}
