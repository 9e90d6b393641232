package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestEmbeddedModelsLoad(t *testing.T) {
	v, err := loadVectors()
	if err != nil || len(v.Words) < 1000 || v.Dims == 0 {
		t.Fatalf("embedded vectors: %v (%d words)", err, len(v.Words))
	}
	w, err := loadWeights()
	if err != nil {
		t.Fatalf("embedded ranker weights: %v", err)
	}
	if w.w[featLogScore] <= 0 {
		t.Fatalf("the lexical score's weight is %v; the re-ranker would invert the ranking", w.w[featLogScore])
	}
	p, err := loadPathWeights()
	if err != nil {
		t.Fatalf("embedded ranker weights for pools with paths: %v", err)
	}
	if p.w[featLogScore] <= 0 || p.units() == 0 {
		t.Fatalf("the path weights have log-score weight %v and %d hidden units; want a positive weight and units", p.w[featLogScore], p.units())
	}
	if learnedVerb("creates") != verbCreate || learnedVerb("deletes") != verbDelete {
		t.Fatal("third-person verbs are not read as their class")
	}
}

// A word the catalog never says reaches it through a learned neighbour:
// the candidate is shown, flagged low, rather than nothing.
func TestNeighbourReachesAParaphrase(t *testing.T) {
	ops := []*operations.Operation{
		readOp("finance.invoices.list", "List invoices", ""),
		readOp("weather.forecast", "Weather forecast for a city", ""),
	}
	q := "money we are owed"
	res := New(ops, Options{}).Search(q, Filter{}, 5)
	if len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "finance.invoices.list" {
		t.Fatalf("%q: want finance.invoices.list first, got %+v", q, res.Candidates)
	}
	if res.Decision != DecisionNoMatch {
		t.Fatalf("a match through a neighbour alone should be low confidence, got %s", res.Decision)
	}
	if res := New(ops, Options{Ablate: []string{"semantic"}}).Search(q, Filter{}, 5); len(res.Candidates) != 0 {
		t.Fatalf("without vectors the query should meet nothing: %+v", res.Candidates)
	}
	if res := New(ops, Options{}).Search("zxqv blorp", Filter{}, 5); len(res.Candidates) != 0 {
		t.Fatalf("nonsense should meet nothing: %+v", res.Candidates)
	}
}
