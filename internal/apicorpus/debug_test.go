package apicorpus

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

// TestDebugCase prints the ranking of the queries in APICORPUS_Q (separated
// by "|") over the withheld catalog of the API file APICORPUS_FILE, for
// diagnosing the benchmark by hand (APICORPUS_DESCRIBED: the index of
// --queries-from descriptions; APICORPUS_IDS too: of --keep-ids). With
// APICORPUS_READS set it routes
// among reads only, as intent-only ask does on a read-only server.
func TestDebugCase(t *testing.T) {
	file, qs := os.Getenv("APICORPUS_FILE"), os.Getenv("APICORPUS_Q")
	if file == "" || qs == "" {
		t.Skip("APICORPUS_FILE and APICORPUS_Q not set")
	}
	c, err := debugLoad()(API{Name: "debug", File: file})
	if err != nil {
		t.Fatal(err)
	}
	var ablate []string
	if a := os.Getenv("APICORPUS_ABLATE"); a != "" {
		ablate = strings.Split(a, ",")
	}
	r := router.New(c.Ops, router.Options{Ablate: ablate})
	for _, q := range strings.Split(qs, "|") {
		f := router.Filter{}
		if os.Getenv("APICORPUS_READS") != "" {
			f.Kinds = []operations.Kind{operations.KindRead}
		}
		res := r.Search(q, f, 5)
		fmt.Printf("%q → %s verb=%q\n", q, res.Decision, res.Verb)
		if res.Hidden != nil {
			fmt.Printf("   hidden: %s\n", res.Hidden.ID)
		}
		for _, c := range res.Candidates {
			fmt.Printf("   %-60s %6.2f conf %.2f %v %v\n", c.Op.ID, c.Score, c.Confidence, c.Matched, c.Fields)
		}
	}
}

// TestDebugRunChanges lists, over the split APICORPUS_SPLIT of the package
// in APICORPUS_DIR, every request whose run decision the ablation
// APICORPUS_ABLATE changes, and whether the run it removes (or adds) was
// right: how a rule of the run gate is judged before it is kept. 5 foreign
// requests per API are asked too (as eval --foreign 5 asks them): any run
// of one is wrong. With APICORPUS_DESCRIBED set the requests are the
// descriptions' sentences; APICORPUS_IDS and APICORPUS_TOOLS choose the
// other views (debugLoad).
func TestDebugRunChanges(t *testing.T) {
	counts := map[string]int{}
	eachChange(t, 5, func(api string, q Query, with, without router.Result) {
		ranWith, ranWithout := with.Decision == router.DecisionRun, without.Decision == router.DecisionRun
		if ranWith == ranWithout {
			return
		}
		res, what := without, "removed"
		if ranWith {
			res, what = with, "added"
		}
		if slices.Contains(q.Labels, res.Candidates[0].Op.ID) {
			what += " right"
		} else {
			what += " wrong"
		}
		want := "(no match)"
		if len(q.Labels) > 0 {
			want = q.Labels[0]
		} else {
			what += ", foreign"
		}
		counts[what]++
		fmt.Printf("%s\t%s\t%q\twant %s\tran %s\n", what, api, q.Text, want, res.Candidates[0].Op.ID)
	})
	fmt.Printf("runs %v\n", counts)
}

// TestDebugLowChanges is TestDebugRunChanges for the low decision
// (DecisionNoMatch), over the split's requests and 5 foreign ones per API
// (out of scope, as eval --foreign 5 asks them; no labels): how a rule
// of the low decision is judged.
func TestDebugLowChanges(t *testing.T) {
	counts := map[string]int{}
	eachChange(t, 5, func(api string, q Query, with, without router.Result) {
		lowWith, lowWithout := with.Decision == router.DecisionNoMatch, without.Decision == router.DecisionNoMatch
		if lowWith == lowWithout {
			return
		}
		what := "made low"
		if !lowWith {
			what = "no longer low"
		}
		if len(q.Labels) == 0 {
			what += ", foreign"
		}
		counts[what]++
		fmt.Printf("%s\t%s\t%q\n", what, api, q.Text)
	})
	fmt.Printf("low %v\n", counts)
}

// eachChange routes every request of the split APICORPUS_SPLIT (tune by
// default) of the package in APICORPUS_DIR, and foreign of another
// provider's per API, with the router whole and with APICORPUS_ABLATE
// switched off, and calls f with both answers. APICORPUS_DESCRIBED asks
// the descriptions' sentences instead.
func eachChange(t *testing.T, foreign int, f func(api string, q Query, with, without router.Result)) {
	dir, split, ablate := os.Getenv("APICORPUS_DIR"), os.Getenv("APICORPUS_SPLIT"), os.Getenv("APICORPUS_ABLATE")
	if dir == "" || ablate == "" {
		t.Skip("APICORPUS_DIR and APICORPUS_ABLATE not set")
	}
	apis, err := List(dir, cmp.Or(split, SplitTune))
	if err != nil {
		t.Fatal(err)
	}
	load := debugLoad()
	for i, a := range apis {
		c, err := load(a)
		if err != nil || len(c.Queries) == 0 {
			continue
		}
		on := router.New(c.Ops, router.Options{})
		off := router.New(c.Ops, router.Options{Ablate: strings.Split(ablate, ",")})
		qs := c.Queries
		for _, text := range Foreign(apis, i, foreign, c.Queries) {
			qs = append(qs, Query{Text: text})
		}
		for _, q := range qs {
			f(a.Name, q, on.Search(q.Text, router.Filter{}, 10), off.Search(q.Text, router.Filter{}, 10))
		}
	}
}

// debugLoad returns the loader of the view the debug tests read: the
// summaries, or with APICORPUS_DESCRIBED the description sentences of
// --queries-from descriptions, and with APICORPUS_IDS too the index of
// --keep-ids; with APICORPUS_TOOLS, the view of --keep-ids --as-tools
// (no HTTP method or path).
func debugLoad() func(API) (*Case, error) {
	switch {
	case os.Getenv("APICORPUS_TOOLS") != "":
		return func(a API) (*Case, error) {
			c, err := LoadDescribedWithIDs(a)
			if err != nil {
				return nil, err
			}
			return WithoutHTTP(c), nil
		}
	case os.Getenv("APICORPUS_DESCRIBED") == "":
		return Load
	case os.Getenv("APICORPUS_IDS") != "":
		return LoadDescribedWithIDs
	}
	return LoadDescribed
}
