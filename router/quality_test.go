package router_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/router"
)

// Quality floors on the project's labelled intents over the embedded
// helpdesk catalog, set just under what the router reaches (see
// BENCHMARKS.md, "Router"). A change that lowers them must say why.
const (
	floorTop1    = 0.64 // reached: 0.658 (0.671 before the re-ranker's path and field features; see BENCHMARKS.md)
	floorRecall5 = 0.88 // reached: 0.884
	// The no-match floors fell by one request in round 28: "cancel
	// Bluefin's subscription" was answered "nothing here" only because
	// the customer's create had "Bluefin" in an example's values, which
	// the index no longer reads as the operation's words (exampleWords);
	// "cancel Acme's subscription" was already answered with candidates.
	floorNoMatchPrec  = 0.36 // reached: 0.368
	floorNoMatchRec   = 0.46 // reached: 0.467
	floorRunPrecision = 0.94 // reached: 0.952
	// maxEmptyRate: find answers with nothing to at most this share of
	// the requests some operation serves (reached: 0.008).
	maxEmptyRate = 0.01
)

func TestHelpdeskQuality(t *testing.T) {
	path := filepath.Join("..", "testdata", "intents", "helpdesk.jsonl")
	qs, err := router.LoadQueries(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s does not exist yet", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	r := router.New(reg.All(), router.Options{})
	rep := router.Evaluate(r, qs, router.EvalOptions{Misses: true})
	m := rep.All
	t.Logf("%d queries (%d labelled, %d no-match): top-1 %.3f recall@5 %.3f MRR %.3f nDCG@10 %.3f no-match P %.3f R %.3f run rate %.3f run P %.3f",
		m.N, m.NLabelled, m.NNoMatch, m.Top1, m.Recall5, m.MRR, m.NDCG10, m.NoMatchPrec, m.NoMatchRec, m.RunRate, m.RunPrecision)
	for _, x := range rep.Misses {
		t.Logf("miss: %q want %v got %v [%s]", x.Query, x.Labels, x.Got, x.Decision)
	}
	check := func(name string, got, floor float64) {
		if got < floor {
			t.Errorf("%s = %.3f, below the floor %.3f", name, got, floor)
		}
	}
	check("top-1", m.Top1, floorTop1)
	check("recall@5", m.Recall5, floorRecall5)
	if m.NNoMatch > 0 {
		check("no-match precision", m.NoMatchPrec, floorNoMatchPrec)
		check("no-match recall", m.NoMatchRec, floorNoMatchRec)
	}
	check("run precision", m.RunPrecision, floorRunPrecision)
	// The confidence labels mean something only in order: an agent
	// trusts a run (high) more than a choice (medium), and that more
	// than the closest candidates shown low (reached: 1.000 > 0.715 >
	// 0.391).
	if !(m.RunPrecision > m.Top1Choose && m.Top1Choose > m.Top1Low) {
		t.Errorf("top-1 by confidence label: run %.3f, choose %.3f, low %.3f; want each label more often right than the next", m.RunPrecision, m.Top1Choose, m.Top1Low)
	}
	if m.EmptyRate > maxEmptyRate {
		t.Errorf("find answered nothing to %.1f%% of in-scope requests; at most %.0f%% allowed", 100*m.EmptyRate, 100*maxEmptyRate)
	}
}
