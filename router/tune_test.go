package router

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
)

type devSet struct {
	name string
	ops  []*operations.Operation
	lab  map[*operations.Operation]string
	qs   []Query
}

func loadDevSets(t testing.TB, dir string) []devSet {
	var out []devSet
	for _, set := range []string{"stabletoolbench", "seal_tools"} {
		ops, labels, err := LoadTools(filepath.Join(dir, set, "tools.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		qs, err := LoadQueries(filepath.Join(dir, set, "queries.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lab := map[*operations.Operation]string{}
		for i, op := range ops {
			lab[op] = labels[i]
		}
		out = append(out, devSet{set, ops, lab, qs})
	}
	if spec := os.Getenv("INTENTSRV_GITHUB_SPEC"); spec != "" {
		if ds, err := githubDevSet(spec); err == nil {
			out = append(out, ds)
		} else {
			t.Fatal(err)
		}
	}
	if reg, err := helpdesk.Catalog(); err == nil {
		if qs, err := LoadQueries(filepath.Join("..", "testdata", "intents", "helpdesk.jsonl")); err == nil {
			lab := map[*operations.Operation]string{}
			for _, op := range reg.All() {
				lab[op] = op.ID
			}
			out = append(out, devSet{"helpdesk", reg.All(), lab, qs})
		}
	}
	return out
}

// TestTune prints dev-set metrics for variations of the tuning constants
// (ROUTER_TUNE=1 with ROUTER_DEVSETS set).
func TestTune(t *testing.T) {
	dir := os.Getenv("ROUTER_DEVSETS")
	if dir == "" || os.Getenv("ROUTER_TUNE") == "" {
		t.Skip("ROUTER_DEVSETS and ROUTER_TUNE not set")
	}
	sets := loadDevSets(t, dir)
	base := defaultTuning()
	type variantT struct {
		name string
		mod  func(*tuning)
	}
	var vs []variantT
	vs = append(vs, variantT{"base", func(*tuning) {}})
	for _, x := range []float32{0, 0.15, 0.6, 1.0} {
		vs = append(vs, variantT{fmt.Sprintf("ns=%.2f", x), func(tu *tuning) { tu.ns = x }})
	}
	for _, x := range []float32{0, 0.3} {
		vs = append(vs, variantT{fmt.Sprintf("verb=%.2f", x), func(tu *tuning) { tu.verb = x }})
	}
	vs = append(vs, variantT{"vboost=0", func(tu *tuning) { tu.vboost = 0 }})
	for _, x := range []float64{0.6, 0.9, 1.6, 2.2} {
		vs = append(vs, variantT{fmt.Sprintf("k1=%.1f", x), func(tu *tuning) { tu.k1 = x }})
	}
	for f := range numFields {
		for _, m := range []float64{0.5, 2} {
			vs = append(vs, variantT{fmt.Sprintf("w[%s]x%.1f", fieldNames[f], m), func(tu *tuning) { tu.w[f] *= m }})
		}
	}
	for _, x := range []float32{0, 0.15, 0.5, 0.8} {
		vs = append(vs, variantT{fmt.Sprintf("idb=%.2f", x), func(tu *tuning) { tu.idBoost = x }})
	}
	for _, x := range []float32{0, 0.25, 1, 1.5} {
		vs = append(vs, variantT{fmt.Sprintf("bigram=%.2f", x), func(tu *tuning) { tu.bigram = x }})
	}
	for _, x := range []float32{0.5, 0.9} {
		vs = append(vs, variantT{fmt.Sprintf("stem=%.2f", x), func(tu *tuning) { tu.stem = x }})
	}
	for _, x := range []float32{0, 0.3, 0.7} {
		vs = append(vs, variantT{fmt.Sprintf("resmm=%.2f", x), func(tu *tuning) { tu.resMismatch = x }})
	}
	for _, x := range []float32{0.1, 0.2, 0.3, 0.5} {
		vs = append(vs, variantT{fmt.Sprintf("resmiss=%.2f", x), func(tu *tuning) { tu.resMiss = x }})
		vs = append(vs, variantT{fmt.Sprintf("resmiss0=%.2f", x), func(tu *tuning) { tu.resMiss = x; tu.resMismatch = 0 }})
	}
	for _, x := range []float32{0, 0.2, 0.3, 0.5} {
		vs = append(vs, variantT{fmt.Sprintf("prf=%.2f", x), func(tu *tuning) { tu.prf = x }})
	}
	for _, x := range []int{2, 3, 5, 10} {
		vs = append(vs, variantT{fmt.Sprintf("prfdocs=%d", x), func(tu *tuning) { tu.prfDocs = x }})
	}
	for _, x := range []int{3, 8, 12, 20} {
		vs = append(vs, variantT{fmt.Sprintf("prfterms=%d", x), func(tu *tuning) { tu.prfTerms = x }})
	}
	for _, x := range []float32{0, 0.2, 0.3, 0.5} {
		vs = append(vs, variantT{fmt.Sprintf("prfcov=%.2f", x), func(tu *tuning) { tu.prfMinCov = x }})
	}
	for _, x := range []int{0, 2, 6} {
		vs = append(vs, variantT{fmt.Sprintf("prfgroups=%d", x), func(tu *tuning) { tu.prfMinGroups = x }})
	}
	for _, x := range []float32{0, 0.25, 1, 1.5} {
		vs = append(vs, variantT{fmt.Sprintf("compound=%.2f", x), func(tu *tuning) { tu.compound = x }})
	}
	for _, x := range []float32{0, 0.2, 0.3, 0.5} {
		vs = append(vs, variantT{fmt.Sprintf("sumboost=%.2f", x), func(tu *tuning) { tu.sumBoost = x }})
	}
	for _, x := range []float32{0, 0.1, 0.2, 0.3, 0.5, 0.7} {
		vs = append(vs, variantT{fmt.Sprintf("div=%.2f", x), func(tu *tuning) { tu.diversity = x }})
	}
	for _, x := range []float32{0, 0.25, 0.75} {
		vs = append(vs, variantT{fmt.Sprintf("divdecay=%.2f", x), func(tu *tuning) { tu.coveredDecay = x }})
	}
	for _, x := range []float32{0, 0.15, 0.3, 0.5, 1} {
		vs = append(vs, variantT{fmt.Sprintf("qtf=%.2f", x), func(tu *tuning) { tu.qtf = x }})
	}
	for _, x := range []float32{0, 0.15, 0.4, 0.6} {
		vs = append(vs, variantT{fmt.Sprintf("clause=%.2f", x), func(tu *tuning) { tu.clause = x }})
	}
	for _, dv := range []float32{0.3, 0.5} {
		for _, cl := range []float32{0.1, 0.15, 0.2} {
			for _, dc := range []float32{0.5, 0.75} {
				vs = append(vs, variantT{fmt.Sprintf("grid d%.1f c%.2f k%.2f", dv, cl, dc), func(tu *tuning) { tu.diversity, tu.clause, tu.coveredDecay = dv, cl, dc }})
			}
		}
	}
	for _, x := range []float32{0, 0.15, 0.5, 1} {
		vs = append(vs, variantT{fmt.Sprintf("svc=%.2f", x), func(tu *tuning) { tu.svc = x }})
	}
	vs = append(vs, variantT{"values=off", func(tu *tuning) { tu.values = false }})
	for _, x := range []float32{0.35, 0.5, 0.7} {
		vs = append(vs, variantT{fmt.Sprintf("derive=%.2f", x), func(tu *tuning) { tu.derive = x }})
	}
	for _, x := range []float32{0, 0.15, 0.5} {
		vs = append(vs, variantT{fmt.Sprintf("item=%.2f", x), func(tu *tuning) { tu.itemBoost = x }})
	}
	vs = append(vs, variantT{"plurallist=off", func(tu *tuning) { tu.pluralList = false }})
	vs = append(vs, variantT{"runagree=off", func(tu *tuning) { tu.runAgree = false }})
	only := os.Getenv("ROUTER_TUNE")
	for _, v := range vs {
		if only != "1" && only != v.name[:min(len(only), len(v.name))] && v.name != "base" {
			continue
		}
		tu := base
		v.mod(&tu)
		line := fmt.Sprintf("%-22s", v.name)
		for _, s := range sets {
			r := New(s.ops, Options{tune: &tu})
			rep := Evaluate(r, s.qs, EvalOptions{LabelOf: func(op *operations.Operation) string { return s.lab[op] }})
			m := rep.All
			if s.name == "helpdesk" || s.name == "github" {
				line += fmt.Sprintf(" | %s top1 %.3f r@5 %.3f hit@5 %.3f nmP %.2f nmR %.2f runP %.2f runR %.2f", s.name[:4], m.Top1, m.Recall5, m.Hit5, m.NoMatchPrec, m.NoMatchRec, m.RunPrecision, m.RunRate)
				continue
			}
			line += fmt.Sprintf(" | %s top1 %.3f r@5 %.3f hit@5 %.3f ndcg %.4f", s.name[:4], m.Top1, m.Recall5, m.Hit5, m.NDCG10)
		}
		fmt.Println(line)
	}
}

// githubDevSet loads GitHub's OpenAPI spec at path and the project's
// GitHub intents.
func githubDevSet(path string) (devSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return devSet{}, err
	}
	cat, err := openapi.Parse("github", data, openapi.ParseOptions{})
	if err != nil {
		return devSet{}, err
	}
	list := cat.Operations(openapi.BindOptions{})
	ops := make([]*operations.Operation, len(list))
	lab := map[*operations.Operation]string{}
	for i := range list {
		ops[i] = &list[i]
		lab[ops[i]] = ops[i].ID
	}
	qs, err := LoadQueries(filepath.Join("..", "testdata", "intents", "github.jsonl"))
	if err != nil {
		return devSet{}, err
	}
	return devSet{"github", ops, lab, qs}, nil
}
