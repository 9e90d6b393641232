package router

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/intentsrv/intentsrv/internal/parallel"
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
// nothing until the fit gives them a use. Learn is deterministic, and
// gives the same weights on any number of processors: it sums the
// gradient in parallel over a fixed split of the queries (learnChunks).
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
	theta := make([]float64, F+H*unitStride)
	theta[featLogScore] = 1 // start from the lexical ranking
	rng := rand.New(rand.NewPCG(1+2*o.Seed, 2+2*o.Seed))
	for h := range H {
		u := theta[F+h*unitStride:]
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
				blind = append(blind, F+h*unitStride+k)
			}
		}
	}
	for _, i := range blind {
		theta[i] = 0
	}
	m := make([]float64, len(theta))
	v := make([]float64, len(theta))
	grad := make([]float64, len(theta))
	chunks := learnChunks(qs, len(theta), H)
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	for epoch := 1; epoch <= o.Epochs && len(qs) > 0; epoch++ {
		gradient(chunks, grad, theta, H)
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
		u := theta[F+h*unitStride:]
		unit := Unit{W: make([]float64, F), Bias: round(u[F]), Out: round(u[F+1])}
		for k := range F {
			unit.W[k] = round(u[k])
		}
		out.Hidden = append(out.Hidden, unit)
	}
	return out
}

// learnChunkCount is how many parts Learn splits the queries into, each
// part's gradient summed on its own and the parts' sums added in order.
// It is fixed, not the number of processors, so that a fit is the same
// on every machine; the parts run in parallel on as many processors as
// there are.
const learnChunkCount = 8

// learnChunk is one part of Learn's queries, with its gradient and
// working buffers.
type learnChunk struct {
	qs   []learnQuery
	grad []float64
	buf  learnBuffers
}

// learnChunks splits qs into learnChunkCount consecutive parts whose
// sizes differ by one at most, each with a gradient of n parameters and
// room for H hidden units' activations.
func learnChunks(qs []learnQuery, n, H int) []*learnChunk {
	out := make([]*learnChunk, learnChunkCount)
	for c := range out {
		lo, hi := c*len(qs)/learnChunkCount, (c+1)*len(qs)/learnChunkCount
		out[c] = &learnChunk{qs: qs[lo:hi], grad: make([]float64, n), buf: learnBuffers{act: make([]float64, rerankPool*H)}}
	}
	return out
}

// gradient sets grad to the sum of every query's weighted gradient in
// theta: each chunk's sum computed in parallel, then the chunks' sums
// added in their order, so the result does not depend on the processors.
func gradient(chunks []*learnChunk, grad, theta []float64, H int) {
	parallel.Each(len(chunks), func(c int) {
		ch := chunks[c]
		clear(ch.grad)
		for _, q := range ch.qs {
			ch.buf.addGradient(ch.grad, theta, H, q)
		}
	})
	clear(grad)
	for _, ch := range chunks {
		for k, g := range ch.grad {
			grad[k] += g
		}
	}
}

// learnBuffers hold one query's working values while Learn adds its
// gradient: each candidate's features as float64, its score, and the tanh
// of each hidden unit. A pool holds rerankPool candidates at most
// (poolFeatures).
type learnBuffers struct {
	x   [rerankPool][numFeatures]float64
	z   [rerankPool]float64
	act []float64 // rerankPool rows of H
}

// unitStride is a hidden unit's number of parameters in Learn's flat
// theta: its weights, its bias, its output weight.
const unitStride = numFeatures + 2

// addGradient adds q's weighted gradient of the loss in theta to grad
// (theta's layout: the linear weights, then H units of unitStride each).
// p = softmax(z); the loss is -log Σ_labels p; its gradient in z_i is
// p_i - p_i·[label]/P_label. The sums run in the same order for every
// call, so a fit is deterministic.
func (b *learnBuffers) addGradient(grad, theta []float64, H int, q learnQuery) {
	const F = numFeatures
	lin := (*[F]float64)(theta[:F])
	top := math.Inf(-1)
	n := len(q.x)
	for i := range n {
		x := &b.x[i]
		for k := range F {
			x[k] = float64(q.x[i][k])
		}
		var s float64
		for k := range F {
			s += lin[k] * x[k]
		}
		act := b.act[i*H : (i+1)*H]
		// Four units at a time: each unit's sum still runs in k's order,
		// but four sums in flight keep the processor from waiting on
		// each addition before the next (the fit's hot loop).
		h := 0
		for ; h+4 <= H; h += 4 {
			u0 := (*[unitStride]float64)(theta[F+h*unitStride:])
			u1 := (*[unitStride]float64)(theta[F+(h+1)*unitStride:])
			u2 := (*[unitStride]float64)(theta[F+(h+2)*unitStride:])
			u3 := (*[unitStride]float64)(theta[F+(h+3)*unitStride:])
			a0, a1, a2, a3 := u0[F], u1[F], u2[F], u3[F]
			for k := range F {
				xk := x[k]
				a0 += u0[k] * xk
				a1 += u1[k] * xk
				a2 += u2[k] * xk
				a3 += u3[k] * xk
			}
			act[h], act[h+1], act[h+2], act[h+3] = math.Tanh(a0), math.Tanh(a1), math.Tanh(a2), math.Tanh(a3)
		}
		for ; h < H; h++ {
			u := (*[unitStride]float64)(theta[F+h*unitStride:])
			a := u[F]
			for k := range F {
				a += u[k] * x[k]
			}
			act[h] = math.Tanh(a)
		}
		for h := range H {
			s += theta[F+h*unitStride+F+1] * act[h]
		}
		b.z[i] = s
		top = max(top, s)
	}
	var sum, lab float64
	for i := range n {
		b.z[i] = math.Exp(b.z[i] - top)
		sum += b.z[i]
		if q.label[i] {
			lab += b.z[i]
		}
	}
	glin := (*[F]float64)(grad[:F])
	for i := range n {
		x := &b.x[i]
		c := b.z[i] / sum
		if q.label[i] {
			c -= b.z[i] / lab
		}
		c *= q.weight
		for k := range F {
			glin[k] += c * x[k]
		}
		act := b.act[i*H : (i+1)*H]
		for h := range H {
			u := (*[unitStride]float64)(theta[F+h*unitStride:])
			g := (*[unitStride]float64)(grad[F+h*unitStride:])
			t := act[h]
			g[F+1] += c * t
			d := c * u[F+1] * (1 - t*t)
			g[F] += d
			for k := range F {
				g[k] += d * x[k]
			}
		}
	}
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
