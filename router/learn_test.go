package router

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// xorPools are pools a linear re-ranker cannot order: the label is the
// candidate whose verb and one-item features agree (both set or both
// clear), against one where they differ, so the verb feature alone points
// one way in half the queries and the other way in the rest.
func xorPools(n int) *Pools {
	cand := func(verb, one float32) [numFeatures]float32 {
		var x [numFeatures]float32
		x[featVerbAgrees], x[featItemOne] = verb, one
		return x
	}
	p := &Pools{}
	for i := range n {
		if i%2 == 0 {
			p.qs = append(p.qs, learnQuery{x: [][numFeatures]float32{cand(1, 0), cand(0, 0)}, label: []bool{false, true}})
		} else {
			p.qs = append(p.qs, learnQuery{x: [][numFeatures]float32{cand(0, 1), cand(1, 1)}, label: []bool{false, true}})
		}
	}
	return p
}

func TestLearnHiddenUnitsLearnWhatALinearRankerCannot(t *testing.T) {
	p := xorPools(200)
	linear := Learn(p, LearnOptions{})
	hidden := Learn(p, LearnOptions{Hidden: 4})
	lt, err := p.Top1(&linear)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := p.Top1(&hidden)
	if err != nil {
		t.Fatal(err)
	}
	if lt > 0.5 || ht < 0.99 {
		t.Fatalf("top-1 linear %.2f (want ≤ 0.50), hidden %.2f (want 1)", lt, ht)
	}
	if len(hidden.Hidden) != 4 || len(linear.Hidden) != 0 {
		t.Fatalf("hidden units: %d and %d, want 4 and 0", len(hidden.Hidden), len(linear.Hidden))
	}
}

func TestLearnIsDeterministicAndItsFileLoads(t *testing.T) {
	p := xorPools(40)
	a, b := Learn(p, LearnOptions{Hidden: 3, Epochs: 50}), Learn(p, LearnOptions{Hidden: 3, Epochs: 50})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two fits on the same pools differ")
	}
	if c := Learn(p, LearnOptions{Hidden: 3, Epochs: 50, Seed: 1}); reflect.DeepEqual(a.Hidden, c.Hidden) {
		t.Fatal("a fit from another seed starts its units where the first did")
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseWeights(raw)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := a.model()
	x := p.qs[1].x[1]
	if got, w := m.score(&x), want.score(&x); got != w {
		t.Fatalf("a loaded file scores %v, the fit %v", got, w)
	}
}

func TestParseWeightsRefusesAnotherShape(t *testing.T) {
	good := Learn(xorPools(4), LearnOptions{Hidden: 1, Epochs: 1})
	for name, mutate := range map[string]func(w *Weights){
		"a hidden unit of another length": func(w *Weights) { w.Hidden[0].W = w.Hidden[0].W[1:] },
		"another feature":                 func(w *Weights) { w.Features = append([]string{"x"}, w.Features[1:]...) },
		"fewer weights":                   func(w *Weights) { w.W = w.W[1:] },
	} {
		w := good
		w.Features = append([]string(nil), good.Features...)
		w.W = append([]float64(nil), good.W...)
		w.Hidden = []Unit{{W: append([]float64(nil), good.Hidden[0].W...)}}
		mutate(&w)
		raw, _ := json.Marshal(w)
		if _, err := parseWeights(raw); err == nil || !strings.Contains(err.Error(), "ranker") {
			t.Errorf("%s: err = %v, want a ranker shape error", name, err)
		}
	}
}

// gapPools are pools only a feature of the pool orders: the label is the
// candidate whose coverage is the pool's best, whatever its level.
func gapPools(n int) *Pools {
	p := &Pools{}
	for i := range n {
		low := float32(i%5) / 10
		rows := [][numFeatures]float32{{}, {}}
		rows[0][featCoverage], rows[1][featCoverage] = low+0.3, low+0.1
		if i%2 == 1 {
			rows[0], rows[1] = rows[1], rows[0]
		}
		poolRelative(rows)
		p.qs = append(p.qs, learnQuery{x: rows, label: []bool{i%2 == 0, i%2 == 1}})
	}
	return p
}

func TestPoolBlindWeightsDoNotReadThePool(t *testing.T) {
	p := gapPools(100)
	for _, o := range []LearnOptions{{PoolBlind: true}, {PoolBlind: true, Hidden: 2, Epochs: 100}} {
		w := Learn(p, o)
		units := append([]Unit{{W: w.W}}, w.Hidden...)
		for _, u := range units {
			for k := firstPoolFeature; k <= lastPoolFeature; k++ {
				if u.W[k] != 0 {
					t.Errorf("hidden %d: weight of %s is %v, want 0", o.Hidden, FeatureNames[k], u.W[k])
				}
			}
		}
	}
	// Reading the pool is what orders these: the blind fit cannot.
	seeing := Learn(p, LearnOptions{})
	if w := seeing.W[featCoverageGap]; w <= 0 {
		t.Errorf("coverage_gap weight %v, want > 0: the best coverage is the label", w)
	}
	// The run gate reads the shipped linear weights: they are blind.
	var shipped Weights
	if err := json.Unmarshal(rankerFile, &shipped); err != nil {
		t.Fatal(err)
	}
	for k := firstPoolFeature; k <= lastPoolFeature; k++ {
		if shipped.W[k] != 0 {
			t.Errorf("ranker.json reads %s (%v): the run gate's probabilities were set on pool-blind weights", FeatureNames[k], shipped.W[k])
		}
	}
}

// GroupPower says how much a group's size counts: one group of 90
// queries says the label has the verb feature, one of 10 says it has the
// one-item feature. Weighed query by query (0) the large group wins;
// group by group (1), the two pull alike and the small group's feature
// weighs as much as the large one's.
func TestGroupPowerWeighsGroupsBySize(t *testing.T) {
	p := &Pools{}
	for i := range 100 {
		var label, other [numFeatures]float32
		group := "large"
		if i < 10 {
			group = "small"
			label[featItemOne] = 1
		} else {
			label[featVerbAgrees] = 1
		}
		p.qs = append(p.qs, learnQuery{x: [][numFeatures]float32{other, label}, label: []bool{false, true}, group: group})
	}
	ratio := func(power float64) float64 {
		w := Learn(p, LearnOptions{GroupPower: power})
		return w.W[featItemOne] / w.W[featVerbAgrees]
	}
	byQuery, bySqrt, byGroup := ratio(0), ratio(0.5), ratio(1)
	if !(byQuery < bySqrt && bySqrt < byGroup) || byGroup < 0.9 {
		t.Fatalf("one-item weight over verb weight: %.2f (power 0), %.2f (0.5), %.2f (1); want increasing, the last near 1", byQuery, bySqrt, byGroup)
	}
}

// benchPools are n queries shaped like the tune split's: full pools of
// rerankPool candidates with dense features in [0, 1), one label each,
// spread over groups of a few dozen queries.
func benchPools(n int) *Pools {
	rng := rand.New(rand.NewPCG(7, 11))
	p := &Pools{}
	for i := range n {
		q := learnQuery{x: make([][numFeatures]float32, rerankPool), label: make([]bool, rerankPool), group: strconv.Itoa(i / 37)}
		for j := range q.x {
			for k := range numFeatures {
				q.x[j][k] = rng.Float32()
			}
		}
		q.label[rng.IntN(rerankPool)] = true
		p.qs = append(p.qs, q)
	}
	return p
}

// BenchmarkLearnPaths is the fit of the weights for pools with HTTP paths
// (eight tanh units, vecgen's default), per epoch over 4,000 queries: the
// shipped fit runs 2,000 epochs over about 38,000.
func BenchmarkLearnPaths(b *testing.B) {
	p := benchPools(4000)
	b.ResetTimer()
	for range b.N {
		Learn(p, LearnOptions{Hidden: 8, Epochs: 1, GroupPower: 0.5})
	}
}

// TestLearnGradientIsTheSameOnAnyNumberOfProcessors: the fit's gradient,
// summed in parallel, is the same to the last bit whatever the number of
// processors, so the shipped weights reproduce on any machine.
func TestLearnGradientIsTheSameOnAnyNumberOfProcessors(t *testing.T) {
	p := benchPools(3000)
	for i := range p.qs {
		p.qs[i].weight = 1 + float64(i%5)/7
	}
	const H = 3
	theta := make([]float64, numFeatures+H*unitStride)
	rng := rand.New(rand.NewPCG(3, 5))
	for k := range theta {
		theta[k] = rng.Float64() - 0.5
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want []float64
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		grad := make([]float64, len(theta))
		gradient(learnChunks(p.qs, len(theta), H), grad, theta, H)
		if want == nil {
			want = grad
			continue
		}
		for k := range grad {
			if math.Float64bits(grad[k]) != math.Float64bits(want[k]) {
				t.Fatalf("GOMAXPROCS %d: gradient[%d] = %v, with 1 processor %v", procs, k, grad[k], want[k])
			}
		}
	}
}
