package router

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
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
