package router

import (
	"fmt"
	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
)

// TestDebugQueries prints the ranking of the queries in ROUTER_Q (separated
// by "|") over the helpdesk catalog, for diagnosing the router by hand.
// ROUTER_READONLY=1 keeps read operations only.
func TestDebugQueries(t *testing.T) {
	qs := os.Getenv("ROUTER_Q")
	if qs == "" {
		t.Skip("ROUTER_Q not set")
	}
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	r := New(reg.All(), Options{})
	var f Filter
	if os.Getenv("ROUTER_READONLY") != "" {
		f.Kinds = []operations.Kind{operations.KindRead}
	}
	for _, q := range strings.Split(qs, "|") {
		res := r.Search(q, f, 5)
		fmt.Printf("%q → %s verb=%q\n", q, res.Decision, res.Verb)
		for _, c := range res.Candidates {
			fmt.Printf("   %-40s %6.2f conf %.2f %v\n", c.Op.ID, c.Score, c.Confidence, c.Matched)
		}
	}
}

// TestDebugSpec prints, for each query in ROUTER_Q (separated by "|") over
// the OpenAPI document at ROUTER_SPEC served whole (summaries and
// operationIds kept, as a user's request meets it; the corpus benchmark's
// view is internal/apicorpus's TestDebugCase), the query's groups, the
// lexical ranking and the final candidates; with ROUTER_FEAT=1, the
// re-ranker's features of the first three and what each adds.
// ROUTER_ABLATE switches parts off (comma-separated).
func TestDebugSpec(t *testing.T) {
	spec, qs := os.Getenv("ROUTER_SPEC"), os.Getenv("ROUTER_Q")
	if spec == "" || qs == "" {
		t.Skip("ROUTER_SPEC and ROUTER_Q not set")
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := openapi.Parse("api", data, openapi.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := cat.Operations(openapi.BindOptions{})
	ops := make([]*operations.Operation, len(list))
	for i := range list {
		ops[i] = &list[i]
	}
	if os.Getenv("ROUTER_TOOLS") != "" {
		// The corpus's tools view of the spec ("eval --queries-from
		// descriptions --keep-ids --as-tools"): first sentences and
		// summaries withheld, no HTTP method or path.
		c, err := apicorpus.LoadDescribedWithIDs(apicorpus.API{Name: spec, File: spec})
		if err != nil {
			t.Fatal(err)
		}
		ops = apicorpus.WithoutHTTP(c).Ops
	}
	var ablate []string
	if a := os.Getenv("ROUTER_ABLATE"); a != "" {
		ablate = strings.Split(a, ",")
	}
	r := New(ops, Options{Ablate: ablate})
	for _, q := range strings.Split(qs, "|") {
		// A scratch of its own, never returned to the pool: retrieve
		// leaves its per-document buffers describing this query.
		sc := newScratch(len(r.ops), r.idx.nsUnits, len(r.idx.vocab))
		groups, qverb, hits, _, total := r.retrieve(q, Filter{}, 10, sc)
		fmt.Printf("%q verb=%s\n", q, qverb.kind())
		for _, g := range groups {
			var vs []string
			for _, v := range g.variants {
				vs = append(vs, fmt.Sprintf("%s:%.2f", r.idx.vocab[v.t], v.w))
			}
			fmt.Printf("  group %q cov=%.2f verb=%v at=%d many=%v one=%v nres=%d %v\n", g.surface, g.cov, g.verb, g.at, g.many, g.one, g.nres, vs)
		}
		for _, h := range hits[:min(len(hits), 6)] {
			fmt.Printf("  lexical %-60s %.3f\n", r.ops[h.d].ID, h.s)
		}
		if os.Getenv("ROUTER_FEAT") != "" && r.weights != nil && len(hits) > 0 {
			shape := r.shape(groups, qverb)
			n := min(len(hits), rerankPool)
			xs := make([][numFeatures]float32, n)
			for i := range hits[:n] {
				xs[i] = r.features(&shape, groups, hits[i].d, total, sc)
				xs[i][featLogScore] = float32(math.Log(float64(hits[i].s / hits[0].s)))
			}
			poolRelative(xs)
			for i := range hits[:min(n, 3)] {
				fmt.Printf("  features of %s: z=%.2f\n", r.ops[hits[i].d].ID, r.weights.score(&xs[i]))
				for k, name := range FeatureNames {
					if xs[i][k] != 0 {
						fmt.Printf("     %-22s %6.2f × %6.2f = %6.2f\n", name, xs[i][k], r.weights.w[k], xs[i][k]*r.weights.w[k])
					}
				}
			}
		}
		res := r.Search(q, Filter{}, 6)
		fmt.Printf("  → %s\n", res.Decision)
		for _, c := range res.Candidates {
			fmt.Printf("  %-60s %7.3f conf %.2f %v %v\n", c.Op.ID, c.Score, c.Confidence, c.Matched, c.Fields)
		}
	}
}
