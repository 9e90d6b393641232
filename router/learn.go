package router

import (
	"math"
	"slices"

	"github.com/intentsrv/intentsrv/operations"
)

// LearnCase is one catalog and queries labelled with its operation ids,
// for Learn.
type LearnCase struct {
	Ops     []*operations.Operation
	Queries []Query
}

// LearnOptions tune Learn. The zero value uses the defaults.
type LearnOptions struct {
	// Epochs of full-batch gradient descent (default 300).
	Epochs int
	// L2 is the weight decay (default 1e-3).
	L2 float64
}

// learnQuery is one query's re-ranked pool: each candidate's features (its
// lexical log score among them), and which candidates are labels.
type learnQuery struct {
	x     [][numFeatures]float32
	label []bool
}

// Learn fits the re-ranker's weights on cases. Every query whose label the
// router ranks within its re-ranked pool contributes the softmax
// cross-entropy of its labels over the pool, scored log(score) + w·x
// (ListNet's top-one objective on a linear model), with L2 decay: the loss
// falls only when a label moves towards the top. The routers it builds use
// the embedded vectors and no weights, so it learns exactly the correction
// the re-ranker applies. Learn is deterministic.
func Learn(cases []LearnCase, o LearnOptions) Weights {
	if o.Epochs <= 0 {
		o.Epochs = 300
	}
	if o.L2 <= 0 {
		o.L2 = 1e-3
	}
	var qs []learnQuery
	for _, c := range cases {
		r := New(c.Ops, Options{noRerank: true})
		for _, q := range c.Queries {
			rows, docs := r.poolFeatures(q.Query)
			lq := learnQuery{x: rows, label: make([]bool, len(docs))}
			any := false
			for i, d := range docs {
				lq.label[i] = slices.Contains(q.Labels, r.ops[d].ID)
				any = any || lq.label[i]
			}
			if any && len(docs) > 1 {
				qs = append(qs, lq)
			}
		}
	}
	// Start from the lexical ranking: weight 1 on its log score.
	var w, m, v [numFeatures]float64
	w[featLogScore] = 1
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	z := make([]float64, rerankPool)
	for epoch := 1; epoch <= o.Epochs && len(qs) > 0; epoch++ {
		var grad [numFeatures]float64
		for _, q := range qs {
			// p = softmax(z); the loss is -log Σ_labels p; its gradient
			// is Σ_i (p_i - p_i·[label]/P_label) x_i.
			z = z[:0]
			top := math.Inf(-1)
			for _, x := range q.x {
				var s float64
				for k := range numFeatures {
					s += w[k] * float64(x[k])
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
				for k := range numFeatures {
					grad[k] += c * float64(x[k])
				}
			}
		}
		for k := range numFeatures {
			grad[k] = grad[k]/float64(len(qs)) + o.L2*w[k]
			m[k] = b1*m[k] + (1-b1)*grad[k]
			v[k] = b2*v[k] + (1-b2)*grad[k]*grad[k]
			mh := m[k] / (1 - math.Pow(b1, float64(epoch)))
			vh := v[k] / (1 - math.Pow(b2, float64(epoch)))
			w[k] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	out := Weights{Features: FeatureNames[:], W: make([]float64, numFeatures), Queries: len(qs)}
	for k := range numFeatures {
		out.W[k] = math.Round(w[k]*1e4) / 1e4
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
	return rows, docs
}

// PoolTop1 is the share of the queries of cases whose first candidate is a
// label once the pool is re-scored with w (the lexical ranking when w is
// nil), counted over every query: a query whose label is outside the pool
// is a miss either way. It lets a generator validate weights on cases
// they were not fitted on.
func PoolTop1(cases []LearnCase, w *Weights) float64 {
	var weights [numFeatures]float64
	weights[featLogScore] = 1
	if w != nil {
		copy(weights[:], w.W)
	}
	n, right := 0, 0
	for _, c := range cases {
		r := New(c.Ops, Options{noRerank: true})
		for _, q := range c.Queries {
			n++
			rows, docs := r.poolFeatures(q.Query)
			best, bz := -1, math.Inf(-1)
			for i, x := range rows {
				var s float64
				for k := range numFeatures {
					s += weights[k] * float64(x[k])
				}
				if s > bz {
					best, bz = i, s
				}
			}
			if best >= 0 && slices.Contains(q.Labels, r.ops[docs[best]].ID) {
				right++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(right) / float64(n)
}
