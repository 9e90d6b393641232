package router

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// TestDevSets measures the router on the public dev sets when
// ROUTER_DEVSETS points at their directory (e.g. ../shared/bench).
// ROUTER_ABLATE=1 adds the ablation rows.
func TestDevSets(t *testing.T) {
	dir := os.Getenv("ROUTER_DEVSETS")
	if dir == "" {
		t.Skip("ROUTER_DEVSETS not set")
	}
	variants := []struct {
		name string
		o    Options
	}{{"full", Options{}}}
	if os.Getenv("ROUTER_ABLATE") != "" {
		variants = append(variants,
			struct {
				name string
				o    Options
			}{"no stemming", Options{noStem: true}},
			struct {
				name string
				o    Options
			}{"no synonyms", Options{noSynonyms: true}},
			struct {
				name string
				o    Options
			}{"no fuzzy", Options{noFuzzy: true}},
			struct {
				name string
				o    Options
			}{"flat field weights", Options{flatWeights: true}},
			struct {
				name string
				o    Options
			}{"no verb lexicon", Options{noVerbs: true}},
			struct {
				name string
				o    Options
			}{"no clause fusion", Options{noClauses: true}},
			struct {
				name string
				o    Options
			}{"no proper names", Options{noNames: true}},
			struct {
				name string
				o    Options
			}{"no feedback", Options{noFeedback: true}},
		)
		for _, v := range []struct {
			name string
			mod  func(*tuning)
		}{
			{"no diversification", func(tu *tuning) { tu.diversity = 0 }},
			{"no named services", func(tu *tuning) { tu.svc = 0 }},
			{"no repeat weight", func(tu *tuning) { tu.qtf = 0 }},
			{"no value masking", func(tu *tuning) { tu.values = false }},
			{"no agent nouns", func(tu *tuning) { tu.derive = 0 }},
			{"no one-item boost", func(tu *tuning) { tu.itemBoost = 0 }},
			{"synonyms at lowest idf", func(tu *tuning) { tu.synMin = true }},
		} {
			tu := defaultTuning()
			v.mod(&tu)
			variants = append(variants, struct {
				name string
				o    Options
			}{v.name, Options{tune: &tu}})
		}
	}
	for _, ds := range loadDevSets(t, dir) {
		if ds.name == "helpdesk" {
			for _, v := range variants {
				helpdeskRow(v.name, ds, v.o)
			}
			continue
		}
		for _, v := range variants {
			r := New(ds.ops, v.o)
			rep := Evaluate(r, ds.qs, EvalOptions{LabelOf: func(op *operations.Operation) string { return ds.lab[op] }, Misses: os.Getenv("ROUTER_MISSES") != ""})
			m := rep.All
			fmt.Printf("%-16s %-20s top1 %.3f top1s %.3f r@5 %.3f hit@5 %.3f fr@5 %.3f mrr %.3f ndcg %.4f p50 %.0fus p99 %.0fus\n", ds.name, v.name, m.Top1, m.Top1Single, m.Recall5, m.Hit5, m.FullRecall5, m.MRR, m.NDCG10, m.LatencyP50us, m.LatencyP99us)
			if os.Getenv("ROUTER_MISSES") != "" && v.name == "full" {
				f, _ := os.Create(filepath.Join(os.TempDir(), ds.name+"_misses.jsonl"))
				for _, ms := range rep.Misses {
					b, _ := json.Marshal(ms)
					f.Write(append(b, '\n'))
				}
				f.Close()
			}
		}
	}
}

// helpdeskRow prints the helpdesk metrics of one variant.
func helpdeskRow(name string, ds devSet, o Options) {
	m := Evaluate(New(ds.ops, o), ds.qs, EvalOptions{}).All
	fmt.Printf("%-16s %-20s top1 %.3f r@5 %.3f hit@5 %.3f ndcg %.4f no-match P %.3f R %.3f run rate %.3f P %.3f\n", "helpdesk", name, m.Top1, m.Recall5, m.Hit5, m.NDCG10, m.NoMatchPrec, m.NoMatchRec, m.RunRate, m.RunPrecision)
}
