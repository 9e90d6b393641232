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

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

const evalUsage = `usage: intentsrv eval [--tools TOOLS.jsonl] --queries QUERIES.jsonl [--json] [--misses] [source flags]

Measures the router: top-1, recall@5, hit@5, MRR, nDCG@10 on labelled
queries, no-match precision/recall on queries with empty labels, and latency.
With --tools the operations are the tools of a dev set (formats of
../shared/bench/README.md); without it, the configured catalog.
`

// runEval implements "intentsrv eval". It returns 0 on success, 1 on
// failure and 2 on a usage error.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, evalUsage); fs.PrintDefaults() }
	tools := fs.String("tools", "", "tools JSONL file (id, name, description, params, ...); default: the configured catalog")
	queries := fs.String("queries", "", "queries JSONL file: {\"query\": ..., \"labels\": [ids]} (required)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	misses := fs.Bool("misses", false, "list the queries whose top-1 (or no-match decision) is wrong")
	var src sourceFlags
	src.register(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *queries == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	qs, err := router.LoadQueries(*queries)
	if err != nil {
		fmt.Fprintf(stderr, "eval: %v\n", err)
		return 1
	}
	var ops []*operations.Operation
	labelOf := func(op *operations.Operation) string { return op.ID }
	if *tools != "" {
		var ids []string
		ops, ids, err = router.LoadTools(*tools)
		if err != nil {
			fmt.Fprintf(stderr, "eval: %v\n", err)
			return 1
		}
		m := make(map[*operations.Operation]string, len(ops))
		for i, op := range ops {
			m[op] = ids[i]
		}
		labelOf = func(op *operations.Operation) string { return m[op] }
	} else {
		log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		reg, _, err := buildRegistry(ctx, &src, log)
		if err != nil {
			fmt.Fprintf(stderr, "eval: %v\n", err)
			return 1
		}
		ops = reg.All()
	}
	t0 := time.Now()
	r := router.New(ops, router.Options{})
	build := time.Since(t0)
	rep := router.Evaluate(r, qs, router.EvalOptions{LabelOf: labelOf, Misses: *misses})
	if *asJSON {
		out := struct {
			router.Report
			BuildMS float64 `json:"build_ms"`
		}{rep, float64(build.Microseconds()) / 1e3}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "eval: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%d operations (index built in %s), %d queries\n\n", rep.NumOps, build.Round(time.Millisecond), rep.Queries)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "set\tn\ttop-1\ttop-1 single\trecall@5\thit@5\tMRR\tnDCG@10\tno-match P\tno-match R\trun rate\trun P\tp50 µs\tp99 µs\t")
	row := func(name string, m router.Metrics) {
		nm := func(v float64, n int) string {
			if n == 0 {
				return "–"
			}
			return fmt.Sprintf("%.3f", v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t%.3f\t%.3f\t%.0f\t%.0f\t\n",
			name, m.N, m.Top1, nm(m.Top1Single, m.NSingle), m.Recall5, m.Hit5, m.MRR, m.NDCG10,
			nm(m.NoMatchPrec, m.NNoMatch), nm(m.NoMatchRec, m.NNoMatch), m.RunRate, m.RunPrecision,
			m.LatencyP50us, m.LatencyP99us)
	}
	row("all", rep.All)
	groups := make([]string, 0, len(rep.Groups))
	for g := range rep.Groups {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		row(g, rep.Groups[g])
	}
	tw.Flush()
	if *misses {
		fmt.Fprintf(stdout, "\n%d misses:\n", len(rep.Misses))
		for _, m := range rep.Misses {
			labels := strings.Join(m.Labels, ",")
			if labels == "" {
				labels = "(no match)"
			}
			fmt.Fprintf(stdout, "- %q\n    want %s, got %s [%s], first label at rank %d\n", m.Query, labels, strings.Join(m.Got, ","), m.Decision, m.Rank)
		}
	}
	return 0
}
