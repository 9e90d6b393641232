package apicorpus

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/router"
)

// TestDebugCase prints the ranking of the queries in APICORPUS_Q (separated
// by "|") over the withheld catalog of the API file APICORPUS_FILE, for
// diagnosing the benchmark by hand.
func TestDebugCase(t *testing.T) {
	file, qs := os.Getenv("APICORPUS_FILE"), os.Getenv("APICORPUS_Q")
	if file == "" || qs == "" {
		t.Skip("APICORPUS_FILE and APICORPUS_Q not set")
	}
	c, err := Load(API{Name: "debug", File: file})
	if err != nil {
		t.Fatal(err)
	}
	var ablate []string
	if a := os.Getenv("APICORPUS_ABLATE"); a != "" {
		ablate = strings.Split(a, ",")
	}
	r := router.New(c.Ops, router.Options{Ablate: ablate})
	for _, q := range strings.Split(qs, "|") {
		res := r.Search(q, router.Filter{}, 5)
		fmt.Printf("%q → %s verb=%q\n", q, res.Decision, res.Verb)
		for _, c := range res.Candidates {
			fmt.Printf("   %-60s %6.2f conf %.2f %v %v\n", c.Op.ID, c.Score, c.Confidence, c.Matched, c.Fields)
		}
	}
}
