package router

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/internal/apicorpus"
)

// prefixMismatch says how q's answer under limit differs from the first
// limit candidates and the decision of its answer under more ("" when it
// does not).
func prefixMismatch(r *Router, q string, limit, more int) string {
	few, many := r.Search(q, Filter{}, limit), r.Search(q, Filter{}, more)
	got, want := candidateIDs(few), candidateIDs(many)
	want = want[:min(limit, len(want))]
	if few.Decision != many.Decision || !slices.Equal(got, want) {
		return fmt.Sprintf("%q: limit %d answers %s %v, limit %d %s %v", q, limit, few.Decision, got, more, many.Decision, want)
	}
	return ""
}

// find shows the first k candidates of what a larger limit shows, with
// the same decision: an agent that asks for five sees the five that eval
// scores first among ten, and a request does not run, or go unmatched,
// by how many candidates its caller asked to see.
func TestASmallerLimitShowsTheFirstOfALargerOne(t *testing.T) {
	qs, err := LoadQueries(filepath.Join("..", "testdata", "intents", "helpdesk.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	r := New(reg.All(), Options{})
	for _, q := range qs {
		for _, limit := range []int{1, 3, 5} {
			if msg := prefixMismatch(r, q.Query, limit, 10); msg != "" {
				t.Error(msg)
			}
		}
	}
}

// The same over the real APIs of CI's corpus sample, every request of
// which is asked with find's default limit and with eval's.
func TestASmallerLimitShowsTheFirstOfALargerOneOnRealAPIs(t *testing.T) {
	bad := 0
	forSample(t, apicorpus.Load, func(sample []apicorpus.API, i int, c *apicorpus.Case, qs []Query) {
		r := New(c.Ops, Options{})
		for _, q := range qs {
			if msg := prefixMismatch(r, q.Query, 5, 10); msg != "" {
				if bad++; bad <= 10 {
					t.Errorf("%s: %s", sample[i].Name, msg)
				}
			}
		}
	})
	if bad > 10 {
		t.Errorf("%d requests in all", bad)
	}
}
