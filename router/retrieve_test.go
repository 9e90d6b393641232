package router

import (
	"math"
	"testing"
)

// TestPruningIsExact checks MaxScore's promise: scoring some frequent
// words on the already-touched operations only never changes which
// operations lead by their words. Each request is accumulated twice, once
// with the bound and once with every posting scored, and the two top
// lists must agree (up to float rounding between near-equal scores).
func TestPruningIsExact(t *testing.T) {
	for _, n := range []int{300, 2500} {
		ops := synthOps(n)
		r := New(ops, Options{})
		qs := benchQueries(ops, 300)
		sc := newScratch(len(r.ops), r.idx.nsUnits, len(r.idx.post.start)-1)
		const limit = 20
		restricted := 0
		for _, q := range qs {
			groups, _ := r.analyze(q, sc)
			top := func(slack float32) ([]hit, int) {
				sc.prune = pruning{r: r, sc: sc, limit: limit, slack: slack}
				a := accumulator{p: &r.idx.post, groups: groups, acc: sc.acc, best: sc.best, mask: sc.mask, touched: sc.touched[:0], gbuf: &sc.gtouched, ix: r.idx, mismatch: r.tu.resMismatch, heavyPostings: heavyLimit(len(r.ops))}
				accumulate(&a, &sc.prune)
				sc.touched = a.touched
				var out []hit // a ranking of its own: the two are compared
				h := r.selectTop(sc.touched, sc.acc, Filter{}, limit, sc, &out)
				touched := len(sc.touched)
				sc.clear()
				return h, touched
			}
			pruned, nPruned := top(pruneSlack)
			full, nFull := top(math.MaxFloat32)
			if nPruned < nFull {
				restricted++
			}
			if len(pruned) != len(full) {
				t.Fatalf("%d ops, %q: pruned ranking has %d hits, full %d", n, q, len(pruned), len(full))
			}
			for i := range full {
				ps, fs := pruned[i].s, full[i].s
				if math.Abs(float64(ps-fs)) > 1e-4*math.Max(1, float64(fs)) {
					t.Fatalf("%d ops, %q: rank %d scores %.5f pruned, %.5f in full", n, q, i+1, ps, fs)
				}
				if pruned[i].d != full[i].d && math.Abs(float64(full[i].s-full[min(i+1, len(full)-1)].s)) > 1e-4 && (i == 0 || math.Abs(float64(full[i].s-full[i-1].s)) > 1e-4) {
					t.Fatalf("%d ops, %q: rank %d is %s pruned, %s in full", n, q, i+1, r.ops[pruned[i].d].ID, r.ops[full[i].d].ID)
				}
			}
		}
		// The check means something only when the bound cut work.
		if restricted < len(qs)/10 {
			t.Fatalf("%d ops: the bound restricted only %d of %d requests", n, restricted, len(qs))
		}
		t.Logf("%d ops: the bound restricted %d of %d requests", n, restricted, len(qs))
	}
}

func TestReturnedName(t *testing.T) {
	for schema, want := range map[string]string{
		`{"$ref":"#/$defs/PolicyTag","$defs":{"PolicyTag":{"type":"object"}}}`: "PolicyTag",
		`{"type":"array","items":{"$ref":"#/$defs/Pet"}}`:                      "Pet",
		`{"type":"array","items":{"title":"Invoice","type":"object"}}`:         "Invoice",
		`{"title":"Balance","type":"object"}`:                                  "Balance",
		`{"type":"object","properties":{"id":{"type":"string"}}}`:              "",
		`{"type":"string"}`: "",
	} {
		if got := returnedName([]byte(schema)); got != want {
			t.Errorf("returnedName(%s) = %q, want %q", schema, got, want)
		}
	}
}
