package router

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/intentsrv/intentsrv/internal/vecfile"
	"github.com/intentsrv/intentsrv/operations"
)

// LearnCase is one catalog and queries labelled with its operation ids,
// for Learn.
type LearnCase struct {
	Ops     []*operations.Operation
	Queries []Query
	// Group names where the catalog comes from (its provider): Learn
	// weighs each group's queries by one over a power of their number
	// (LearnOptions.GroupPower), so that a provider with hundreds of
	// catalogs in one house style does not teach its style as the way
	// every API talks.
	Group string
}

// LearnOptions tune Learn. The zero value uses the defaults, and weighs
// every query alike (GroupPower 0; cmd/vecgen fits with 0.5).
type LearnOptions struct {
	// Epochs of full-batch gradient descent (default 300).
	Epochs int
	// L2 is the weight decay (default 1e-3).
	L2 float64
	// Hidden is the number of tanh units added to the linear term (0: a
	// linear re-ranker).
	Hidden int
	// Seed picks the hidden units' starting weights. Fits that differ
	// only in Seed measure how much of a change between two fits is the
	// fit's own noise. The shipped fit starts from seed 1 (vecgen's
	// default; see BENCHMARKS.md, router round 14).
	Seed uint64
	// PoolBlind keeps the weights of the features that compare a
	// candidate with the rest of its pool (coverage_gap ... method_rel)
	// at zero: the weights then read each candidate on its own.
	PoolBlind bool
	// GroupPower p weighs each query by 1/n^p, n the number of its
	// group's queries: 0 (the zero value) weighs every query alike, 1
	// every group alike, 0.5 a group by the square root of its size.
	GroupPower float64
}

// Pools are what the re-ranker learns from: for each labelled query, the
// features of the candidates of its re-ranked pool and which of them are
// labels. A query whose labels are outside its pool is kept, to be counted
// as a miss by Top1.
type Pools struct {
	qs []learnQuery
}

// learnQuery is one query's re-ranked pool: each candidate's features (its
// lexical log score among them), and which candidates are labels.
type learnQuery struct {
	x      [][numFeatures]float32
	label  []bool
	group  string
	weight float64 // set by Learn
}

// PoolOptions tune CollectPools.
type PoolOptions struct {
	// Vectors replace the embedded word vectors. A generator passes
	// vectors that did not see the cases' APIs: pools routed with vectors
	// that learned the very summaries being asked are easier than any
	// catalog the router will serve, and weights fitted on them learn to
	// trust what the leak made reliable.
	Vectors *vecfile.Vectors
}

// CollectPools routes every query of cases within its own catalog, up to
// the re-ranker, and records its pool. The routers it builds use no
// weights, so what is learned from the pools is exactly the correction the
// re-ranker applies.
func CollectPools(cases []LearnCase, o PoolOptions) *Pools {
	p := &Pools{}
	for _, c := range cases {
		r := New(c.Ops, Options{noRerank: true, vectors: o.Vectors})
		for _, q := range c.Queries {
			rows, docs := r.poolFeatures(q.Query)
			lq := learnQuery{x: rows, label: make([]bool, len(docs)), group: c.Group}
			for i, d := range docs {
				lq.label[i] = slices.Contains(q.Labels, r.ops[d].ID)
			}
			p.qs = append(p.qs, lq)
		}
	}
	return p
}

// JoinPools returns the queries of ps as one set.
func JoinPools(ps ...*Pools) *Pools {
	out := &Pools{}
	for _, p := range ps {
		out.qs = append(out.qs, p.qs...)
	}
	return out
}

// Len is the number of queries.
func (p *Pools) Len() int { return len(p.qs) }

// Learn fits the re-ranker's weights on the pools. Every query whose label
// is in its pool, among two candidates or more, contributes the softmax
// cross-entropy of its labels over the pool, scored log(score) + f(x)
// (ListNet's top-one objective), weighted by its group (see LearnCase),
// with L2 decay: the loss falls only when a
// label moves towards the top. f is linear, plus o.Hidden tanh units when
// asked; the units start from small deterministic weights and contribute
// nothing until the fit gives them a use. Learn is deterministic.
func Learn(p *Pools, o LearnOptions) Weights {
	if o.Epochs <= 0 {
		o.Epochs = 300
	}
	if o.L2 <= 0 {
		o.L2 = 1e-3
	}
	var qs []learnQuery
	perGroup := map[string]int{}
	for _, q := range p.qs {
		if len(q.x) > 1 && slices.Contains(q.label, true) {
			qs = append(qs, q)
			perGroup[q.group]++
		}
	}
	var total float64
	for i := range qs {
		qs[i].weight = math.Pow(float64(perGroup[qs[i].group]), -o.GroupPower)
		total += qs[i].weight
	}
	// Parameters, flat: the linear weights, then per hidden unit its
	// weights, its bias and its output weight.
	const F = numFeatures
	H := max(o.Hidden, 0)
	stride := F + 2
	theta := make([]float64, F+H*stride)
	theta[featLogScore] = 1 // start from the lexical ranking
	rng := rand.New(rand.NewPCG(1+2*o.Seed, 2+2*o.Seed))
	for h := range H {
		u := theta[F+h*stride:]
		for k := range F {
			u[k] = rng.Float64() - 0.5
		}
	}
	// blind holds the parameters that read a pool feature, in the linear
	// term and in each unit: they and their gradients are kept at zero.
	var blind []int
	if o.PoolBlind {
		for k := firstPoolFeature; k <= lastPoolFeature; k++ {
			blind = append(blind, k)
			for h := range H {
				blind = append(blind, F+h*stride+k)
			}
		}
	}
	for _, i := range blind {
		theta[i] = 0
	}
	m := make([]float64, len(theta))
	v := make([]float64, len(theta))
	grad := make([]float64, len(theta))
	z := make([]float64, rerankPool)
	act := make([]float64, rerankPool*H) // tanh of each unit, per candidate
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	for epoch := 1; epoch <= o.Epochs && len(qs) > 0; epoch++ {
		clear(grad)
		for _, q := range qs {
			// p = softmax(z); the loss is -log Σ_labels p; its gradient
			// in z_i is p_i - p_i·[label]/P_label.
			z = z[:0]
			top := math.Inf(-1)
			for i, x := range q.x {
				var s float64
				for k := range F {
					s += theta[k] * float64(x[k])
				}
				for h := range H {
					u := theta[F+h*stride:]
					a := u[F]
					for k := range F {
						a += u[k] * float64(x[k])
					}
					t := math.Tanh(a)
					act[i*H+h] = t
					s += u[F+1] * t
				}
				z = append(z, s)
				top = max(top, s)
			}
			var sum, lab float64
			for i := range z {
				z[i] = math.Exp(z[i] - top)
				sum += z[i]
				if q.label[i] {
					lab += z[i]
				}
			}
			for i, x := range q.x {
				c := z[i] / sum
				if q.label[i] {
					c -= z[i] / lab
				}
				c *= q.weight
				for k := range F {
					grad[k] += c * float64(x[k])
				}
				for h := range H {
					u, g := theta[F+h*stride:], grad[F+h*stride:]
					t := act[i*H+h]
					g[F+1] += c * t
					d := c * u[F+1] * (1 - t*t)
					g[F] += d
					for k := range F {
						g[k] += d * float64(x[k])
					}
				}
			}
		}
		for _, i := range blind {
			grad[i] = 0
		}
		for k := range theta {
			g := grad[k]/total + o.L2*theta[k]
			m[k] = b1*m[k] + (1-b1)*g
			v[k] = b2*v[k] + (1-b2)*g*g
			mh := m[k] / (1 - math.Pow(b1, float64(epoch)))
			vh := v[k] / (1 - math.Pow(b2, float64(epoch)))
			theta[k] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	round := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	out := Weights{Features: FeatureNames[:], W: make([]float64, F), Queries: len(qs)}
	for k := range F {
		out.W[k] = round(theta[k])
	}
	for h := range H {
		u := theta[F+h*stride:]
		unit := Unit{W: make([]float64, F), Bias: round(u[F]), Out: round(u[F+1])}
		for k := range F {
			unit.W[k] = round(u[k])
		}
		out.Hidden = append(out.Hidden, unit)
	}
	return out
}

// poolFeatures runs the query up to the re-ranker and returns, for each
// candidate of the pool, its features and its document.
func (r *Router) poolFeatures(intent string) (rows [][numFeatures]float32, docs []uint32) {
	sc := r.pool.Get().(*scratch)
	defer func() {
		sc.clear()
		r.pool.Put(sc)
	}()
	groups, qverb, hits, _, total := r.retrieve(intent, Filter{}, rerankPool, sc)
	q := r.shape(groups, qverb)
	for _, h := range hits[:min(len(hits), rerankPool)] {
		if h.s <= 0 {
			continue
		}
		x := r.features(&q, groups, h.d, total, sc)
		x[featLogScore] = float32(math.Log(float64(h.s / hits[0].s)))
		rows = append(rows, x)
		docs = append(docs, h.d)
	}
	if r.tu.poolGaps {
		poolRelative(rows)
	}
	return rows, docs
}

// Top1 is the share of the queries whose first candidate is a label once
// each pool is re-scored with w (the lexical ranking when w is nil),
// counted over every query: a query whose label is outside its pool is a
// miss either way. It lets a generator validate weights on pools they were
// not fitted on.
func (p *Pools) Top1(w *Weights) (float64, error) {
	m := &model{}
	m.w[featLogScore] = 1
	if w != nil {
		var err error
		if m, err = w.model(); err != nil {
			return 0, err
		}
	}
	if len(p.qs) == 0 {
		return 0, nil
	}
	right := 0
	for _, q := range p.qs {
		best, bz := -1, float32(math.Inf(-1))
		for i := range q.x {
			if s := m.score(&q.x[i]); s > bz {
				best, bz = i, s
			}
		}
		if best >= 0 && q.label[best] {
			right++
		}
	}
	return float64(right) / float64(len(p.qs)), nil
}
