package router

import (
	"encoding/json"
	"reflect"
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
