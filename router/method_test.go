package router

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/operations"
)

func TestClauseSpans(t *testing.T) {
	q := "Check example.com. Also get its DNS records? Thanks"
	var got []string
	for _, sp := range clauseSpans(q, nil) {
		got = append(got, q[sp[0]:sp[1]])
	}
	want := []string{"Check example.com", " Also get its DNS records", " Thanks"}
	if !slices.Equal(got, want) {
		t.Fatalf("clauseSpans = %q, want %q", got, want)
	}
}

func TestOrUpdates(t *testing.T) {
	for q, want := range map[string]bool{
		"creates or updates a rule": true, "create and update the hook": true, "create or replace a table": true,
		"create a rule or update it": false, "create or delete a rule": false, "update or create a rule": false,
	} {
		if got := orUpdates(strings.Fields(q), 0); got != want {
			t.Errorf("orUpdates(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestImpliedVerbAndNames(t *testing.T) {
	if v := impliedVerb([]string{"ticket", "42"}, -1, nil); v != verbRead {
		t.Errorf("ticket 42: %v, want read", v)
	}
	if v := impliedVerb([]string{"open", "tickets"}, -1, nil); v != verbList {
		t.Errorf("open tickets: %v, want list", v)
	}
	if got := properNames("Give 32 to Marcus at Bluefin. SLA for CSV", nil); !slices.Equal(got, []string{"marcus", "bluefin"}) {
		t.Errorf("properNames = %q", got)
	}
}

func TestResultVerbAndHiddenWrites(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	r := New(reg.All(), Options{})
	for q, want := range map[string]operations.Kind{
		"delete ticket 4": operations.KindDestructive, "open a new ticket": operations.KindWrite,
		"list teams": operations.KindRead, "ticket 42": "", "pull up issue 8": operations.KindRead,
	} {
		if got := r.Search(q, Filter{}, 5).Verb; got != want {
			t.Errorf("%q: Verb %q, want %q", q, got, want)
		}
	}
	ro := Filter{Kinds: []operations.Kind{operations.KindRead}}
	// A run needs the operation to do what the verb asks.
	for _, q := range []string{"who deleted ticket 12?", "what webhooks are configured"} {
		if res := r.Search(q, Filter{}, 5); res.Decision == DecisionRun {
			t.Errorf("%q runs %s", q, res.Candidates[0].Op.ID)
		}
	}
	// A read of a plural is a list; of one numbered item, a get.
	for q, want := range map[string]string{"show me open tickets for Bluefin": "helpdesk.tickets.list", "show ticket 42": "helpdesk.tickets.get"} {
		if res := r.Search(q, ro, 5); len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
			t.Errorf("%q (read-only): first is not %s: %+v", q, want, res.Candidates)
		}
	}
	if res := r.Search("delete ticket", ro, 5); res.Decision != DecisionNoMatch || res.Verb != operations.KindDestructive {
		t.Errorf("delete ticket (read-only): %s verb %q, want no_match destructive", res.Decision, res.Verb)
	}
	if res := r.Search("show ticket 4", ro, 5); res.Decision == DecisionNoMatch {
		t.Errorf("show ticket 4 (read-only): no_match")
	}
}

// TestActionIsWhatTheRequestAsks: a request that tells its situation
// before asking ("I'm planning a party and want to create a playlist. Can
// you show me the open tickets?") asks for what follows the request
// marker, in the verb's place; verbs before the marker, or after that
// place, are words to match. Without a marker the first verb is the
// action, as before.
func TestActionIsWhatTheRequestAsks(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]operations.Kind{
		"I'm planning a party and want to create a playlist. Can you show me the open tickets?":        operations.KindRead,
		"I am writing a report on our backlog; could you please list the tickets that mention billing": operations.KindRead,
		"Delete ticket 4, can you confirm it is gone?":                                                 operations.KindDestructive,
		"Can you suggest a macro that adds a tag to ticket 4?":                                         "",
		"My manager is reviewing our queue. Could you delete ticket 4?":                                operations.KindDestructive,
		"I want to create a ticket for the printer outage":                                             operations.KindWrite,
		// A word after a determiner or a preposition is part of a noun
		// phrase, not the action.
		"any new tickets nobody has picked up?":    "",
		"daily count of new tickets since March 1": "",
		"new ticket for the printer outage":        operations.KindWrite,
	}
	r := New(reg.All(), Options{})
	for q, want := range cases {
		if got := r.Search(q, Filter{}, 5).Verb; got != want {
			t.Errorf("%q: Verb %q, want %q", q, got, want)
		}
	}
	off := New(reg.All(), Options{Ablate: []string{"request-clause"}})
	q := "I'm planning a party and want to create a playlist. Can you show me the open tickets?"
	if got := off.Search(q, Filter{}, 5).Verb; got != operations.KindWrite {
		t.Errorf("request-clause off: Verb %q; the test no longer shows what the rule does", got)
	}
	if got := New(reg.All(), Options{Ablate: []string{"modifiers"}}).Search("any new tickets nobody has picked up?", Filter{}, 5).Verb; got != operations.KindWrite {
		t.Errorf("modifiers off: Verb %q; the test no longer shows what the rule does", got)
	}
}

// TestSummaryStatedInFull: GitHub-shaped operations where the short
// summary the query states in full must beat longer summaries that only
// contain its words, and an acronym plural ("PRs") must reach pull
// requests.
func TestSummaryStatedInFull(t *testing.T) {
	mk := func(id, summary, _, path string) *operations.Operation { return readOp(id, summary, path) }
	ops := []*operations.Operation{
		mk("gh.repos.get", "Get a repository", "GET", "/repos/{owner}/{repo}"),
		mk("gh.security_advisories.get_repository_advisory", "Get a repository security advisory", "GET", "/repos/{owner}/{repo}/security-advisories/{ghsa_id}"),
		mk("gh.repos.get_repository_values", "Get all custom property values for a repository", "GET", "/repos/{owner}/{repo}/properties/values"),
		mk("gh.pulls.list", "List pull requests", "GET", "/repos/{owner}/{repo}/pulls"),
		mk("gh.pull_request_stacks.list", "List pull request stacks", "GET", "/repos/{owner}/{repo}/pull-stacks"),
		mk("gh.issues.list_for_repo", "List repository issues", "GET", "/repos/{owner}/{repo}/issues"),
		mk("gh.users.get_authenticated", "Get the authenticated user", "GET", "/user"),
		mk("gh.users.get_by_username", "Get a user", "GET", "/users/{username}"),
		mk("gh.activity.list_notifications_for_authenticated_user", "List notifications for the authenticated user", "GET", "/notifications"),
		mk("gh.repos.list_for_authenticated_user", "List repositories for the authenticated user", "GET", "/user/repos"),
		mk("gh.codespaces.list_in_repository_for_authenticated_user", "List codespaces in a repository for the authenticated user", "GET", "/repos/{owner}/{repo}/codespaces"),
		mk("gh.migrations.list_repos_for_authenticated_user", "List repositories for a user migration", "GET", "/user/migrations/{migration_id}/repositories"),
	}
	expectFirst(t, New(ops, Options{}), map[string]string{
		"get a repository":              "gh.repos.get",
		"list pull requests for a repo": "gh.pulls.list",
		"list the PRs of a repo":        "gh.pulls.list",
		// The catalog calls the caller "the authenticated user".
		"who am I":              "gh.users.get_authenticated",
		"show my notifications": "gh.activity.list_notifications_for_authenticated_user",
		// A plural reaches its singular's synonyms: repositories → repo.
		"list my repositories": "gh.repos.list_for_authenticated_user",
	})
}

// TestDiversifyCoversEveryAsk: a request for several things ranks an
// operation for each thing near the top, not several operations for the
// first thing; the leader is unchanged.
func TestDiversifyCoversEveryAsk(t *testing.T) {
	mk := func(id, summary string) *operations.Operation { return readOp(id, summary, "") }
	ops := []*operations.Operation{
		mk("social.tweets.search", "Search tweets by keyword"),
		mk("social.tweets.search_latest", "Search the latest tweets by keyword"),
		mk("social.tweets.search_media", "Search tweets with photos by keyword"),
		mk("social.tweets.search_users", "Search users by keyword"),
		mk("social.tweets.shared_by", "Users who retweeted a tweet"),
		mk("social.tweets.likes", "Users who liked a tweet"),
		mk("social.weather.forecast", "Weather forecast for a city"),
	}
	q := "search the latest tweets by keyword about the election, with photos, and the users who retweeted them"
	top := func(o Options, k int) []string {
		var ids []string
		for _, c := range New(ops, o).Search(q, Filter{}, k).Candidates {
			ids = append(ids, c.Op.ID)
		}
		return ids
	}
	// The learned re-ranker, trained on one-request queries, is off on
	// both sides: this is diversification's contract. So is what the
	// names say (name-scope), which boosts search_latest and search_users
	// for "latest" and "users" before diversification sees the pool.
	flat := defaultTuning()
	flat.diversity = 0
	plain, div := top(Options{tune: &flat, noRerank: true, noNameScope: true}, 6), top(Options{noRerank: true, noNameScope: true}, 6)
	if len(plain) == 0 || len(div) == 0 || plain[0] != div[0] {
		t.Fatalf("leader changed: plain %v, diversified %v", plain, div)
	}
	t.Logf("plain %v\ndiversified %v", plain, div)
	if k := slices.Index(div, "social.tweets.shared_by"); k < 0 || k > 1 || k >= slices.Index(plain, "social.tweets.shared_by") {
		t.Errorf("retweeters at %d of %v (plain ranking %v), want second and higher than plain", k, div, plain)
	}
}

// TestNamedService: a query that names a service as a proper name or as
// "<name> API" prefers that service's operations; the same words said
// plainly do not pick a service.
func TestNamedService(t *testing.T) {
	mk := func(id, summary string) *operations.Operation { return readOp(id, summary, "") }
	ops := []*operations.Operation{
		mk("link_tools.shorten", "Shorten a long URL into a short link"),
		mk("bitly.shorten", "Shorten a URL"),
		mk("social_feed.posts", "Latest posts from the social feed"),
		mk("twitter.posts", "Latest posts"),
		mk("world_news.latest", "Latest news headlines"),
		mk("news_digest.latest", "Latest headlines"),
	}
	expectFirst(t, New(ops, Options{}), map[string]string{
		"shorten a long url into a short link":   "link_tools.shorten",
		"shorten a long url using the bitly API": "bitly.shorten",
		"show the latest posts on Twitter":       "twitter.posts",
		"show the latest news headlines":         "world_news.latest",
		"latest headlines from the News Digest":  "news_digest.latest",
	})
}

// TestGitHubShapedIntents: a value in the request ("octocat/hello-world")
// is not a word to match; an agent noun is found from its verb ("who
// contributed" → contributors); a word keeps its own weight when its
// synonym is everywhere ("members" next to "user").
func TestGitHubShapedIntents(t *testing.T) {
	mk := readOp
	ops := []*operations.Operation{
		mk("gh.meta.get_octocat", "Get the Octocat as ASCII art saying hello world", "/octocat"),
		mk("gh.repos.get", "Get a repository", "/repos/{owner}/{repo}"),
		mk("gh.repos.list_contributors", "List repository contributors", "/repos/{owner}/{repo}/contributors"),
		mk("gh.projects.get_for_org", "Get project for organization", "/orgs/{org}/projectsV2/{project_number}"),
		mk("gh.projects.list_for_user", "List projects for user", "/users/{username}/projectsV2"),
		mk("gh.orgs.list_members", "List organization members", "/orgs/{org}/members"),
		mk("gh.orgs.get_membership_for_user", "Get organization membership for a user", "/orgs/{org}/memberships/{username}"),
		mk("gh.users.get_by_username", "Get a user", "/users/{username}"),
		mk("gh.users.list", "List users", "/users"),
		mk("gh.users.list_followers_for_user", "List followers of a user", "/users/{username}/followers"),
		mk("gh.users.list_following_for_user", "List the people a user follows", "/users/{username}/following"),
		mk("gh.issues.get", "Get an issue", "/repos/{owner}/{repo}/issues/{issue_number}"),
		withParam(mk("gh.issues.list_comments", "List issue comments", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
			"since", "Only show results that were last updated after the given time."),
		withParam(mk("gh.issues.list", "List issues assigned to the authenticated user", "/issues"),
			"state", "Indicates the state of the issues to show."),
		mk("gh.issues.get_comment", "Get an issue comment", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
		{ID: "gh.issues.create_comment", Namespace: "gh.issues", Summary: "Create an issue comment", Kind: operations.KindWrite,
			HTTP: &operations.HTTPBinding{Method: "POST", Path: "/repos/{owner}/{repo}/issues/{issue_number}/comments"}},
	}
	expectFirst(t, New(ops, Options{}), map[string]string{
		"get the repository octocat/hello-world": "gh.repos.get",
		"who has contributed to the repo":        "gh.repos.list_contributors",
		"who follows torvalds":                   "gh.users.list_followers_for_user",
		"members of the acme org":                "gh.orgs.list_members",
		// An identifier after a resource word asks for one item.
		"show issue 1347": "gh.issues.get",
		// Verbs of the trade: "comment on" creates a comment.
		"comment on issue 7 that the fix is out": "gh.issues.create_comment",
	})
}

// readOp is a read operation with a summary and, when path is not empty,
// a GET binding.
func readOp(id, summary, path string) *operations.Operation {
	op := &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Summary: summary, Kind: operations.KindRead}
	if path != "" {
		op.HTTP = &operations.HTTPBinding{Method: "GET", Path: path}
	}
	return op
}

// expectFirst checks that each query of want ranks its operation first.
func expectFirst(t *testing.T, r *Router, want map[string]string) {
	t.Helper()
	for q, id := range want {
		res := r.Search(q, Filter{}, 3)
		if len(res.Candidates) == 0 || res.Candidates[0].Op.ID != id {
			var got []string
			for _, c := range res.Candidates {
				got = append(got, c.Op.ID)
			}
			t.Errorf("%q ranked %v, want %s first", q, got, id)
		}
	}
}

// readOnlyFilter is the filter a read-only server searches r with: a mask
// of every operation that does not write.
func readOnlyFilter(r *Router) Filter {
	return Filter{Only: r.Mask(func(op *operations.Operation) bool { return !op.Kind.IsWrite() })}
}

// withParam gives op one string parameter.
func withParam(op *operations.Operation, name, description string) *operations.Operation {
	op.Input = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","description":%q}}}`, name, description))
	return op
}

// TestPathNamedOperations: ids generated from method and path
// ("post_quotes_quote_cancel") take their action from the method and the
// path's shape, so "create a quote" is POST /v1/quotes, not a POST on one
// quote.
func TestPathNamedOperations(t *testing.T) {
	op := func(method, path string) *operations.Operation {
		var name []string
		splitWords(method+" "+path, func(w string) { name = append(name, w) })
		id := "stripe.v1." + strings.Join(name, "_")
		return &operations.Operation{ID: id, Namespace: "stripe.v1", Kind: operations.KindWrite, HTTP: &operations.HTTPBinding{Method: method, Path: path}}
	}
	for _, c := range []struct {
		method, path string
		want         verbClass
	}{
		{"GET", "/v1/quotes", verbList},
		{"GET", "/v1/quotes/{quote}", verbRead},
		{"GET", "/v1/balance", verbRead},
		{"GET", "/v1/customers/search", verbSearch},
		{"POST", "/v1/quotes", verbCreate},
		{"POST", "/v1/quotes/{quote}", verbUpdate},
		{"POST", "/v1/quotes/{quote}/cancel", verbDelete},
		{"POST", "/v1/invoices/{invoice}/finalize", verbUpdate},
		// A plural after an item is the item's own collection: POST
		// creates in it.
		{"POST", "/v1/customers/{customer}/sources", verbCreate},
		{"POST", "/v1/projects/{project}/userGroups", verbCreate},
		{"POST", "/v1/accounts/{account}/status", verbUpdate},
		{"DELETE", "/v1/customers/{customer}", verbDelete},
		// An action segment's first verb names the action, reversals
		// included.
		{"POST", "/v1/customers/{customer}/send_invoice", verbRun},
		{"POST", "/#X-Amz-Target=Svc.UntagResource", verbDelete},
		{"POST", "/#X-Amz-Target=Svc.DisassociateMember", verbDelete},
		// A call's name says its verb whatever the method, read
		// included; a service's name is not the call's.
		{"POST", "/#X-Amz-Target=CodeDeploy_20141006.GetApplication", verbRead},
		{"POST", "/#X-Amz-Target=CodeDeploy_20141006.CreateDeployment", verbCreate},
		{"POST", "/#Action=DescribeInstances", verbList},
		{"GET", "/#Action=DescribeInstances", verbList},
		{"POST", "/#Action=DescribeAddress", verbRead},
		{"POST", "/#X-Amz-Target=Svc.ListThings", verbList},
	} {
		if got := (verbClassifier{reversals: true, calls: true, subCollections: true}).of(op(c.method, c.path)); got != c.want {
			t.Errorf("%s %s: verb %v, want %v", c.method, c.path, got, c.want)
		}
	}
	// Without call names (ablation "rpc-calls"), the service's verb
	// was the action and a read sent by POST a create.
	for path, want := range map[string]verbClass{
		"/#X-Amz-Target=CodeDeploy_20141006.GetApplication": verbRun,
		"/#Action=DescribeInstances":                        verbCreate,
		"/#X-Amz-Target=Svc.DescribeModel":                  verbCreate,
	} {
		if got := (verbClassifier{reversals: true}).of(op("POST", path)); got != want {
			t.Errorf("POST %s without call names: verb %v, want %v", path, got, want)
		}
	}
	// Without sub-collections, every POST after an item was an update.
	if got := (verbClassifier{reversals: true}).of(op("POST", "/v1/customers/{customer}/sources")); got != verbUpdate {
		t.Errorf("POST /v1/customers/{customer}/sources without sub-collections: verb %v, want update", got)
	}
	// A hand-written name keeps its own verb.
	gh := &operations.Operation{ID: "gh.users.get_authenticated", HTTP: &operations.HTTPBinding{Method: "GET", Path: "/user"}}
	if got := (verbClassifier{reversals: true}).of(gh); got != verbRead {
		t.Errorf("users.get_authenticated: verb %v, want read", got)
	}
	ops := []*operations.Operation{
		op("POST", "/v1/quotes/{quote}/cancel"), op("POST", "/v1/quotes/{quote}/finalize"),
		op("GET", "/v1/quotes/{quote}"), op("GET", "/v1/quotes"), op("POST", "/v1/quotes/{quote}"),
		op("POST", "/v1/quotes"),
	}
	expectFirst(t, New(ops, Options{}), map[string]string{"create a quote": "stripe.v1.post_v1_quotes"})
}

// TestZeroWeightsDoNotCrash: with every weight that a tuning sweep sets to
// zero at zero, scores can be zero; ranking them must not panic.
func TestZeroWeightsDoNotCrash(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	tu := defaultTuning()
	tu.verb, tu.syn, tu.stem, tu.corr, tu.bigram, tu.compound, tu.derive = 0, 0, 0, 0, 0, 0, 0
	r := New(reg.All(), Options{tune: &tu})
	for _, q := range []string{"delete the ticket", "kill it", "show me open tickets for Bluefin", "tickte 42"} {
		r.Search(q, Filter{}, 10)
	}
}

// TestSlugChoosesTheOwnerAndNamePath: an owner/name pair in the query
// ("golang/go") fits a path with two parameters in a row
// ("/user/starred/{owner}/{repo}"), not a sibling's with one
// ("/gists/{gist_id}/star"); without the pair, or with the switch off, the
// sibling whose id the query says in full keeps the lead.
func TestSlugChoosesTheOwnerAndNamePath(t *testing.T) {
	del := func(id, summary, path string) *operations.Operation {
		return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Summary: summary, Kind: operations.KindDestructive,
			HTTP: &operations.HTTPBinding{Method: "DELETE", Path: path}}
	}
	ops := []*operations.Operation{
		del("gh.gists.unstar", "Unstar a gist", "/gists/{gist_id}/star"),
		del("gh.activity.unstar_repo_for_authenticated_user", "Unstar a repository for the authenticated user", "/user/starred/{owner}/{repo}"),
		del("gh.gists.delete", "Delete a gist", "/gists/{gist_id}"),
		del("gh.repos.delete", "Delete a repository", "/repos/{owner}/{repo}"),
		readOp("gh.gists.get", "Get a gist", "/gists/{gist_id}"),
		readOp("gh.repos.get", "Get a repository", "/repos/{owner}/{repo}"),
		readOp("gh.users.get_by_username", "Get a user", "/users/{username}"),
	}
	first := func(r *Router, q string) string {
		res := r.Search(q, Filter{}, 3)
		if len(res.Candidates) == 0 {
			return ""
		}
		return res.Candidates[0].Op.ID
	}
	r := New(ops, Options{})
	if got := first(r, "unstar golang/go"); got != "gh.activity.unstar_repo_for_authenticated_user" {
		t.Errorf("unstar golang/go: %s first, want the repository's unstar", got)
	}
	if got := first(r, "unstar it"); got != "gh.gists.unstar" {
		t.Errorf("unstar it: %s first, want gh.gists.unstar (no pair, no preference)", got)
	}
	if got := first(New(ops, Options{Ablate: []string{"slugs"}}), "unstar golang/go"); got != "gh.gists.unstar" {
		t.Errorf("slugs switched off: %s first; the test no longer shows what the pair does", got)
	}
}

// httpOp is an operation of an OpenAPI-like catalog: its id, HTTP
// method, description (no summary, as in the corpus benchmark), path and
// kind.
func httpOp(id, method, desc, path string, kind operations.Kind) *operations.Operation {
	return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Description: desc, Kind: kind,
		HTTP: &operations.HTTPBinding{Method: method, Path: path}}
}

// leads checks that each request of cases leads with its operation
// over r.
func leads(t *testing.T, r *Router, cases map[string]string) {
	t.Helper()
	for q, want := range cases {
		if got := candidateIDs(r.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != want {
			t.Errorf("%q: %v, want %s first", q, got, want)
		}
	}
}

// leadsOnlyWith checks that each request of cases leads with its
// operation over ops, and does not with the rule switched off: without
// that, the test would not show what the rule does.
func leadsOnlyWith(t *testing.T, ops []*operations.Operation, rule string, cases map[string]string) {
	t.Helper()
	leads(t, New(ops, Options{}), cases)
	off := New(ops, Options{Ablate: []string{rule}})
	for q, want := range cases {
		if got := candidateIDs(off.Search(q, Filter{}, 5)); len(got) > 0 && got[0] == want {
			t.Errorf("%q with %s off still leads with %s: the test does not test the rule", q, rule, want)
		}
	}
}

// TestRunNeedsAWordThatSetsTheLeaderApart: "list coaches" matches the
// coaches of one patient and the list of every coach with the same words;
// the first leads on where its words sit, which is a guess at which one
// the caller meant, so find lists both and nothing runs. A word only the
// leader has ("update a patient record") still runs it. The catalog is
// from a real health API's spec, its summaries withheld as the corpus
// benchmark withholds them.
func TestRunNeedsAWordThatSetsTheLeaderApart(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("care.patient.put_patient", "PUT", "Create a new patient or update an existing patient", "/patient", operations.KindWrite),
		httpOp("care.patient.patch_patient_id", "PATCH", "Update a patient record.", "/patient/{id}", operations.KindWrite),
		httpOp("care.patient.get_patient", "GET", "Get a list of patients.", "/patient", operations.KindRead),
		httpOp("care.patient.post_patient", "POST", "Create a patient record.", "/patient", operations.KindWrite),
		httpOp("care.patient.get_patient_id", "GET", "Gets a patient record by id.", "/patient/{id}", operations.KindRead),
		httpOp("care.coach.get_coach", "GET", "Get a list of coaches matching the specified filters.", "/coach", operations.KindRead),
		httpOp("care.coach.get_coach_id", "GET", "Get a coach record by id.", "/coach/{id}", operations.KindRead),
		httpOp("care.patient.get_patient_id_coaches", "GET", "Get the list of coaches for a patient.", "/patient/{id}/coaches", operations.KindRead),
	}
	top2 := func(res Result) []string {
		ids := candidateIDs(res)
		ids = ids[:min(2, len(ids))]
		slices.Sort(ids)
		return ids
	}
	r := New(ops, Options{})
	res := r.Search("list coaches", Filter{}, 5)
	if want := []string{"care.coach.get_coach", "care.patient.get_patient_id_coaches"}; res.Decision != DecisionChoose || !slices.Equal(top2(res), want) {
		t.Errorf("list coaches: %s %v, want choose between %v", res.Decision, top2(res), want)
	}
	// "record" sets the PATCH apart, so decisive lets it run; the
	// re-ranker's weights, fitted where summaries like PUT /patient's
	// ("or update an existing patient") are often the answer, are not
	// sure enough for a run, and list it first.
	if res := r.Search("update a patient record", Filter{}, 5); len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "care.patient.patch_patient_id" {
		t.Errorf("update a patient record: %v, want care.patient.patch_patient_id first", candidateIDs(res))
	}
	if res := New(ops, Options{Ablate: []string{"run-gate"}}).Search("update a patient record", Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("update a patient record, the re-ranker's probability aside: %s, want a run: decisive refuses what a word sets apart", res.Decision)
	}
	if res := New(ops, Options{Ablate: []string{"decisive"}}).Search("list coaches", Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("list coaches with decisive off: %s; the test no longer shows what the rule does", res.Decision)
	}
	gists := []*operations.Operation{
		httpOp("gh.gists.delete", "DELETE", "Delete a gist", "/gists/{gist_id}", operations.KindDestructive),
		httpOp("gh.gists.delete_comment", "DELETE", "Delete a gist comment", "/gists/{gist_id}/comments/{comment_id}", operations.KindDestructive),
		httpOp("gh.gists.get", "GET", "Get a gist", "/gists/{gist_id}", operations.KindRead),
	}
	if res := New(gists, Options{}).Search("delete gist 3", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "gh.gists.delete" {
		t.Errorf("delete gist 3: %s, want a run of gh.gists.delete (its comment's delete names a word the request left out)", res.Decision)
	}
}

// TestAnActionTheLexiconDoesNotKnowRunsOnlyWhatItNames: a request whose
// action the lexicon does not know ("single environment", "accept the
// invite") may run a read, and a write only when the operation is named
// for the word in the verb's place; a delete that merely leads on the
// request's words is a guess at what the caller wants done, so find lists
// it and nothing runs.
func TestAnActionTheLexiconDoesNotKnowRunsOnlyWhatItNames(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("pm.environments.get_environments", "GET", "Returns the environments of a workspace.", "/environments", operations.KindRead),
		httpOp("pm.environments.get_environments_uid", "GET", "", "/environments/{uid}", operations.KindRead),
		httpOp("pm.environments.put_environments_uid", "PUT", "Replaces the variables of an environment.", "/environments/{uid}", operations.KindWrite),
		httpOp("pm.environments.delete_environments_uid", "DELETE", "Deletes a single environment by its uid.", "/environments/{uid}", operations.KindDestructive),
		httpOp("pm.invites.get_invites", "GET", "Returns the invitations to a workspace.", "/invites", operations.KindRead),
		httpOp("pm.invites.post_invites_uid_accept", "POST", "", "/invites/{uid}/accept", operations.KindWrite),
		httpOp("pm.invites.delete_invites_uid", "DELETE", "Withdraws an invitation.", "/invites/{uid}", operations.KindDestructive),
		httpOp("pm.workspaces.get_workspaces", "GET", "Returns every workspace you can reach.", "/workspaces", operations.KindRead),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"verbless-writes"}})
	for q, may := range map[string][]string{
		"single environment": {"pm.environments.get_environments", "pm.environments.get_environments_uid", "pm.invites.get_invites", "pm.workspaces.get_workspaces"},
		"accept the invite":  {"pm.environments.get_environments", "pm.environments.get_environments_uid", "pm.invites.get_invites", "pm.invites.post_invites_uid_accept", "pm.workspaces.get_workspaces"},
	} {
		sc := on.pool.Get().(*scratch)
		groups, qverb := on.analyze(q, sc)
		if qverb != verbNone {
			t.Fatalf("%q reads as verb %v; the test needs a verb the lexicon does not know", q, qverb)
		}
		for d, op := range ops {
			if got, want := on.runAgrees(groups, qverb, uint32(d)), slices.Contains(may, op.ID); got != want {
				t.Errorf("%q may run %s: %v, want %v", q, op.ID, got, want)
			}
			if !off.runAgrees(groups, qverb, uint32(d)) {
				t.Errorf("with verbless-writes off, %q may not run %s", q, op.ID)
			}
		}
		sc.clear()
		on.pool.Put(sc)
	}
	// Through Search: the delete leads on the request's words and is
	// listed first, but does not run.
	const q = "single environment"
	res := on.Search(q, Filter{}, 5)
	if res.Decision == DecisionRun || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "pm.environments.delete_environments_uid" {
		t.Errorf("%q: %s %v, want the delete listed first and no run", q, res.Decision, candidateIDs(res))
	}
}

// scannerOps are shaped on a real security-scanner API: every operation
// is a target's, and a page of a target's scans has a path that says
// "retrieve".
func scannerOps() []*operations.Operation {
	return []*operations.Operation{
		httpOp("scan.targets.get_targets_id", "GET", "Returns the target.", "/targets/{id}", operations.KindRead),
		httpOp("scan.targets.get_targets", "GET", "Returns every target of the account.", "/targets", operations.KindRead),
		httpOp("scan.targets.put_targets_id", "PUT", "Replaces the target.", "/targets/{id}", operations.KindWrite),
		httpOp("scan.scans.get_targets_target_id_scans_retrieve_page", "GET", "Returns one page of the scans of a target.", "/targets/{target_id}/scans/retrieve_page", operations.KindRead),
		httpOp("scan.scans.get_targets_target_id_scans_id", "GET", "Returns one scan.", "/targets/{target_id}/scans/{id}", operations.KindRead),
		httpOp("scan.findings.get_targets_target_id_findings", "GET", "Returns the findings of a target.", "/targets/{target_id}/findings", operations.KindRead),
	}
}

func TestRequestVerbDoesNotSetTheLeaderApart(t *testing.T) {
	ops := scannerOps()
	on := New(ops, Options{}).Search("retrieve target", Filter{}, 5)
	// The page of scans also names words the request does not say, which
	// fewer-unasked holds against it on its own; off with it, only this
	// rule stands between the request and a run.
	off := New(ops, Options{Ablate: []string{"verb-not-deciding", "fewer-unasked"}}).Search("retrieve target", Filter{}, 5)
	if on.Decision == DecisionRun {
		t.Errorf("retrieve target ran %s: only the verb set it apart from the target's own read", on.Candidates[0].Op.ID)
	}
	if off.Decision != DecisionRun {
		t.Errorf("retrieve target with verb-not-deciding and fewer-unasked off: %s; the test no longer shows what the rule does", off.Decision)
	}
	for _, rule := range []string{"verb-not-deciding", "fewer-unasked"} {
		if res := New(ops, Options{Ablate: []string{rule}}).Search("retrieve target", Filter{}, 5); res.Decision == DecisionRun {
			t.Errorf("retrieve target with only %s off ran %s", rule, res.Candidates[0].Op.ID)
		}
	}
	if res := New(ops, Options{}).Search("findings of a target", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "scan.findings.get_targets_target_id_findings" {
		t.Errorf("findings of a target: %s, want a run of the findings' list", res.Decision)
	}
}

func TestVerbTheCatalogNeverSaysLeavesTheRequestInScope(t *testing.T) {
	// No operation of scannerOps says "list", nor any verb of its class:
	// the request is still about targets, which every operation is.
	ops := scannerOps()
	res := New(ops, Options{}).Search("list all targets", Filter{}, 5)
	if res.Decision == DecisionNoMatch || res.Candidates[0].Op.ID != "scan.targets.get_targets" {
		t.Errorf("list all targets: %s, first %s; want the targets' list, not a no-match", res.Decision, res.Candidates[0].Op.ID)
	}
	if off := New(ops, Options{Ablate: []string{"unsaid-verb"}}).Search("list all targets", Filter{}, 5); off.Decision != DecisionNoMatch {
		t.Errorf("list all targets with unsaid-verb off: %s; the test no longer shows what the rule does", off.Decision)
	}
}

func TestEvaluateCountsFalseRunsThatDelete(t *testing.T) {
	gists := []*operations.Operation{
		httpOp("gh.gists.delete", "DELETE", "Delete a gist", "/gists/{gist_id}", operations.KindDestructive),
		httpOp("gh.gists.delete_comment", "DELETE", "Delete a gist comment", "/gists/{gist_id}/comments/{comment_id}", operations.KindDestructive),
		httpOp("gh.gists.get", "GET", "Get a gist", "/gists/{gist_id}", operations.KindRead),
	}
	r := New(gists, Options{})
	// The request runs the gist's delete (TestRunNeedsAWordThatSetsTheLeaderApart);
	// labelled with the comment's delete, that run is a false one, and a
	// delete.
	m := Evaluate(r, []Query{
		{Query: "delete gist 3", Labels: []string{"gh.gists.delete_comment"}},
		{Query: "delete gist 4", Labels: []string{"gh.gists.delete"}},
	}, EvalOptions{}).All
	if m.FalseRuns != 1 || m.FalseDeletes != 1 {
		t.Errorf("false runs %d, false deletes %d; want 1 and 1", m.FalseRuns, m.FalseDeletes)
	}
}

// TestPathWeightsOrderOnlyPoolsWithPaths: the re-ranker's weights for
// operations with HTTP paths order a pool only when every operation in it
// has one. A catalog of Go functions ranks as the linear weights rank it,
// with or without them; an HTTP catalog's pools are theirs. The run gate's
// probability is the linear weights' either way.
func TestPathWeightsOrderOnlyPoolsWithPaths(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	scores := func(ops []*operations.Operation, ablate []string, q string) []float64 {
		var out []float64
		for _, c := range New(ops, Options{Ablate: ablate}).Search(q, Filter{}, 10).Candidates {
			out = append(out, c.Score)
		}
		return out
	}
	for _, q := range []string{"list open tickets", "close ticket 12", "who is on call this week"} {
		if on, off := scores(reg.All(), nil, q), scores(reg.All(), []string{"path-ranker"}, q); !slices.Equal(on, off) {
			t.Errorf("%q over Go functions: scores %v, with path-ranker off %v; want the same", q, on, off)
		}
	}
	http := []*operations.Operation{
		httpOp("shop.orders.get_orders", "GET", "Returns the orders of the shop.", "/orders", operations.KindRead),
		httpOp("shop.orders.get_orders_id", "GET", "", "/orders/{id}", operations.KindRead),
		httpOp("shop.orders.post_orders", "POST", "Places an order.", "/orders", operations.KindWrite),
		httpOp("shop.orders.delete_orders_id", "DELETE", "Cancels an order that has not shipped.", "/orders/{id}", operations.KindDestructive),
		httpOp("shop.orders.get_orders_id_items", "GET", "Returns the items of an order.", "/orders/{id}/items", operations.KindRead),
		httpOp("shop.customers.get_customers_id_orders", "GET", "Returns a customer's orders.", "/customers/{id}/orders", operations.KindRead),
	}
	differs := false
	for _, q := range []string{"get the order", "show the orders of a customer", "what items are in my order"} {
		differs = differs || !slices.Equal(scores(http, nil, q), scores(http, []string{"path-ranker"}, q))
	}
	if !differs {
		t.Error("over an HTTP catalog the path weights changed no score: they are not in use")
	}
}

// A word requests use as filler ("can you share", "any thing") is the
// catalog's resource when an operation acts on it: "create a share" then
// asks for POST /shares, while in a catalog without shares it stays filler.
func TestAFillerWordTheCatalogNamesIsItsResource(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("box.shares.post_shares", "POST", "", "/devices/{device}/shares", operations.KindWrite),
		httpOp("box.shares.get_shares", "GET", "", "/devices/{device}/shares", operations.KindRead),
		httpOp("box.users.post_users", "POST", "Creates a new user on the device.", "/devices/{device}/users", operations.KindWrite),
		httpOp("box.users.get_users", "GET", "Lists the users of the device.", "/devices/{device}/users", operations.KindRead),
		httpOp("box.roles.post_roles", "POST", "Creates a new role on the device.", "/devices/{device}/roles", operations.KindWrite),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"filler-resources"}})
	if got := candidateIDs(on.Search("Creates a new share on the device", Filter{}, 5)); len(got) == 0 || got[0] != "box.shares.post_shares" {
		t.Errorf("create a share: %v, want box.shares.post_shares first", got)
	}
	if got := candidateIDs(off.Search("Creates a new share on the device", Filter{}, 5)); len(got) > 0 && got[0] == "box.shares.post_shares" {
		t.Errorf("with filler-resources off, create a share still leads with the shares: the test does not test the rule")
	}
	// Without shares in the catalog, "share" is the request's filler:
	// "can you share the users" asks for the users.
	r := New(ops[2:], Options{})
	sc := r.pool.Get().(*scratch)
	groups, _ := r.analyze("can you share the users", sc)
	for _, g := range groups {
		if g.surface == "share" {
			t.Errorf("share is a word of the request in a catalog without shares")
		}
	}
}

// An HTTP path that says "me" is the caller's: "list my messages" asks for
// GET /me/messages, not the messages of every mailbox.
func TestMeInAPathIsTheCaller(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("mail.messages.get_messages", "GET", "List the messages of every mailbox.", "/messages", operations.KindRead),
		httpOp("mail.me.get_me_messages", "GET", "", "/me/messages", operations.KindRead),
		httpOp("mail.users.get_users_user_id_events", "GET", "List the events of a calendar.", "/users/{user_id}/events", operations.KindRead),
		httpOp("mail.me.get_me_events", "GET", "List the events of a calendar.", "/me/events", operations.KindRead),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"caller-address"}})
	for _, q := range []string{"list my messages", "show the messages in my mailbox"} {
		if got := candidateIDs(on.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != "mail.me.get_me_messages" {
			t.Errorf("%q: %v, want mail.me.get_me_messages first", q, got)
		}
		if got := candidateIDs(off.Search(q, Filter{}, 5)); len(got) > 0 && got[0] == "mail.me.get_me_messages" {
			t.Errorf("%q with caller-address off still leads with /me/messages: the test does not test the rule", q)
		}
	}
	// A tool's name is no address: "show me" is no caller's resource.
	tools := []*operations.Operation{
		{ID: "gh.get_me", Description: "Get details of the authenticated user."},
		{ID: "gh.list_issues", Description: "List issues in a repository."},
	}
	if got := candidateIDs(New(tools, Options{}).Search("show me the issues", Filter{}, 5)); len(got) == 0 || got[0] != "gh.list_issues" {
		t.Errorf("show me the issues: %v, want gh.list_issues first", got)
	}
}

// "myself", "self" and "whoami" are the caller in a path as "me" is: Jira
// answers "who am I" at GET /rest/api/2/myself, with no summary that says
// so; Instagram's caller is /users/self.
func TestOtherWordsForMeInAPath(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("issues.api.get_myself", "GET", "", "/rest/api/2/myself", operations.KindRead),
		httpOp("issues.api.get_user", "GET", "Returns a user.", "/rest/api/2/user", operations.KindRead),
		httpOp("issues.api.get_user_columns", "GET", "Returns the default issue table columns for the user.", "/rest/api/2/user/columns", operations.KindRead),
		httpOp("issues.api.get_project", "GET", "Returns all projects visible to the user.", "/rest/api/2/project", operations.KindRead),
		httpOp("photos.users.get_users_self_media", "GET", "Get the most recent media published by the owner of the access token.", "/users/self/media/recent", operations.KindRead),
		httpOp("photos.users.get_users_user_id_media", "GET", "Get the most recent media published by a user.", "/users/{user_id}/media/recent", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "caller-address", map[string]string{
		"show my profile":        "issues.api.get_myself",
		"my photos":              "photos.users.get_users_self_media",
		"recent photos I posted": "photos.users.get_users_self_media",
	})
}

// TestADeprecatedRouteGivesWayToItsSuccessor: GitHub's legacy team
// routes (/teams/{team_id}/...) are deprecated for the same calls under
// /orgs/{org}/teams/{team_slug}/...; the legacy one's text says the
// request as well, so it led. A request about the old route by name
// keeps it first, and a deprecated list beside a scoped one is no
// successor's: "List conversations" is all of them, not a user's.
func TestADeprecatedRouteGivesWayToItsSuccessor(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("gh.teams.delete_discussion_legacy", "DELETE", "Delete a discussion from a team's page.", "/teams/{team_id}/discussions/{discussion_number}", operations.KindDestructive),
		httpOp("gh.teams.delete_discussion_in_org", "DELETE", "", "/orgs/{org}/teams/{team_slug}/discussions/{discussion_number}", operations.KindDestructive),
		httpOp("gh.teams.get_discussion_in_org", "GET", "", "/orgs/{org}/teams/{team_slug}/discussions/{discussion_number}", operations.KindRead),
		httpOp("chat.conversations.list", "GET", "List all conversations.", "/conversations", operations.KindRead),
		httpOp("chat.users.list_conversations", "GET", "", "/users/{user_id}/conversations", operations.KindRead),
	}
	ops[0].Deprecated, ops[3].Deprecated = true, true
	leadsOnlyWith(t, ops, "current-first", map[string]string{
		"Delete a discussion from a team's page": "gh.teams.delete_discussion_in_org",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"Delete a discussion from a team's page (Legacy)": "gh.teams.delete_discussion_legacy",
		"List all conversations":                          "chat.conversations.list",
	})
}

// TestTurningAStateOffAsksForTheDelete: where an API sets a state with
// a PUT and takes it away with a DELETE at one address, "disable" and
// "unlock" ask for the DELETE, which led less because its text is
// withheld (as the corpus benchmark withholds it) and an update verb
// favours a PUT. Turning it on still asks for the PUT.
func TestTurningAStateOffAsksForTheDelete(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("gh.repos.put_lfs", "PUT", "Enables Git LFS for a repository.", "/repos/{owner}/{repo}/lfs", operations.KindWrite),
		httpOp("gh.repos.delete_lfs", "DELETE", "", "/repos/{owner}/{repo}/lfs", operations.KindDestructive),
		httpOp("gh.issues.put_lock", "PUT", "Locks an issue's conversation so only collaborators can comment.", "/repos/{owner}/{repo}/issues/{issue_number}/lock", operations.KindWrite),
		httpOp("gh.issues.delete_lock", "DELETE", "", "/repos/{owner}/{repo}/issues/{issue_number}/lock", operations.KindDestructive),
		httpOp("gh.repos.get_repo", "GET", "Gets a repository.", "/repos/{owner}/{repo}", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "unset-deletes", map[string]string{
		"Disable Git LFS for a repository":    "gh.repos.delete_lfs",
		"unlock the conversation of an issue": "gh.issues.delete_lock",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"Enable Git LFS for a repository": "gh.repos.put_lfs",
		"lock an issue's conversation":    "gh.issues.put_lock",
	})
}

// TestAnotherUserIsNotTheCaller: a request about some user ("a user",
// "the specified user") asks for the operation on another user's path,
// GET /users/{username}/gpg_keys, not its twin on the caller's,
// GET /user/gpg_keys, whose text says every word of the request ("for
// the authenticated user") while the other's text is withheld, as the
// corpus benchmark withholds it, and its path says fewer; so does a
// request that names someone the catalog does not know. The caller's
// still answers the caller, and "as a user" is who the caller is.
func TestAnotherUserIsNotTheCaller(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("code.users.get_user_gpg_keys", "GET", "List GPG keys for the authenticated user. Lists the current user's GPG keys.", "/user/gpg_keys", operations.KindRead),
		httpOp("code.users.get_users_username_gpg_keys", "GET", "", "/users/{username}/gpg_keys", operations.KindRead),
		httpOp("code.users.post_user_gpg_keys", "POST", "Adds a GPG key to the authenticated user's account.", "/user/gpg_keys", operations.KindWrite),
		httpOp("code.users.get_users_username", "GET", "Gets a user.", "/users/{username}", operations.KindRead),
		httpOp("code.users.get_user", "GET", "Gets the authenticated user.", "/user", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "another-user", map[string]string{
		"Lists the GPG keys for a user.":          "code.users.get_users_username_gpg_keys",
		"list the gpg keys of the specified user": "code.users.get_users_username_gpg_keys",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"List GPG keys for the authenticated user": "code.users.get_user_gpg_keys",
		"my gpg keys": "code.users.get_user_gpg_keys",
		"as a user, list the GPG keys of the current user": "code.users.get_user_gpg_keys",
	})
	// Someone named by a word the catalog does not know is another user:
	// the name has to go to a path that takes one.
	leadsOnlyWith(t, ops, "named-someone", map[string]string{
		"the GPG keys of torvalds": "code.users.get_users_username_gpg_keys",
		"Linus's GPG keys":         "code.users.get_users_username_gpg_keys",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"list the GPG keys I have, torvalds": "code.users.get_user_gpg_keys",
	})
}

func TestABareSingularPathIsTheCaller(t *testing.T) {
	// The user-scoped operations' descriptions speak of the
	// authenticated user more than the caller's own do, as GitHub's
	// point from one to the other; only the paths tell them apart.
	ops := []*operations.Operation{
		httpOp("code.orgs.get_user_orgs", "GET", "Lists organizations, private memberships included.", "/user/orgs", operations.KindRead),
		httpOp("code.orgs.get_users_username_orgs", "GET", "Lists the public organizations of a user. For every organization of the authenticated user, use the authenticated user's list.", "/users/{username}/orgs", operations.KindRead),
		httpOp("code.orgs.get_orgs_org", "GET", "Gets an organization.", "/orgs/{org}", operations.KindRead),
		httpOp("code.keys.get_user_keys", "GET", "Lists SSH keys, private ones included.", "/user/keys", operations.KindRead),
		httpOp("code.keys.get_users_username_keys", "GET", "Lists the public SSH keys of a user; the authenticated user's own are listed by the authenticated user's list.", "/users/{username}/keys", operations.KindRead),
		httpOp("code.users.get_users_username", "GET", "Gets a user.", "/users/{username}", operations.KindRead),
		httpOp("code.users.get_user", "GET", "Gets the authenticated user.", "/user", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "caller-paths", map[string]string{
		"which organizations am I in":                   "code.orgs.get_user_orgs",
		"List organizations for the authenticated user": "code.orgs.get_user_orgs",
	})
	// The SSH keys' requests lead with the caller's list without the
	// rule too since the re-ranker was refitted in round 56; they still
	// have to with it.
	leads(t, New(ops, Options{}), map[string]string{
		"my ssh keys":              "code.keys.get_user_keys",
		"show the ssh keys I have": "code.keys.get_user_keys",
	})
	// "The authenticated user" is the caller in the third person.
	phraseOff := New(ops, Options{Ablate: []string{"caller-phrases"}})
	q := "List organizations for the authenticated user"
	if got := candidateIDs(phraseOff.Search(q, Filter{}, 5)); len(got) > 0 && got[0] == "code.orgs.get_user_orgs" {
		t.Errorf("%q with caller-phrases off still leads with /user/orgs: the test does not test the rule", q)
	}
	// A singular segment the catalog also addresses by id in the singular
	// is the resource itself, not the caller.
	pets := []*operations.Operation{
		httpOp("pets.user.get_user_username", "GET", "Get user by user name.", "/user/{username}", operations.KindRead),
		httpOp("pets.user.get_user_login", "GET", "Logs user into the system.", "/user/login", operations.KindRead),
	}
	if callers := callerPaths(buildPathIndex(pets)); callers != nil {
		t.Errorf("callerPaths(/user/{username}, /user/login) = %v, want none: no plural segment is addressed by id", callers)
	}
	if got, want := callerPaths(buildPathIndex(ops)), []bool{true, false, false, true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("callerPaths = %v, want %v: /user/orgs, /user/keys and /user", got, want)
	}
}

func TestShellWordsMeetFilesystemTools(t *testing.T) {
	// MCP filesystem servers name their tools in words; agents working
	// in a shell say "mkdir". Before the table knew it, the request was
	// answered with nothing.
	ops := []*operations.Operation{
		{ID: "files.create_directory", Description: "Create a new directory or make sure it exists. Creates parent directories as needed."},
		{ID: "files.list_directory", Description: "Get a detailed listing of all files and directories in a specified path."},
		{ID: "files.read_text_file", Description: "Read the complete contents of a file as text."},
		{ID: "files.move_file", Description: "Move or rename files and directories."},
	}
	leadsOnlyWith(t, ops, "synonyms", map[string]string{
		"mkdir -p src/components": "files.create_directory",
	})
}

// TestTheCatalogsProseWordsAreWords: a long word the vectors' vocabulary
// lacks may be split into words it knows ("deleteschedulingpolicy" →
// delete scheduling policy), but not one the catalog writes in its own
// prose: "payouts", which the vectors learned without, is not "pay outs",
// so a request to pay an invoice is not met by every payout operation.
// An identifier the prose quotes ("/v1/payouts", "*payouts*") is not
// prose.
func TestTheCatalogsProseWordsAreWords(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("bank.v1.post_payouts", "POST", "To send funds to your own bank account, create a new payout object.", "/v1/payouts", operations.KindWrite),
		httpOp("bank.v1.get_payouts", "GET", "Returns a list of existing payouts sent to bank accounts.", "/v1/payouts", operations.KindRead),
		httpOp("bank.v1.get_payouts_payout", "GET", "Retrieve the details of an existing payout.", "/v1/payouts/{payout}", operations.KindRead),
		httpOp("bank.v1.post_invoices_invoice_pay", "POST", "Pay an invoice out of band.", "/v1/invoices/{invoice}/pay", operations.KindWrite),
	}
	quoted := []*operations.Operation{
		httpOp("bank.v1.get_payouts", "GET", "Lists what /v1/payouts holds; needs the *payouts* scope.", "/v1/payouts", operations.KindRead),
		httpOp("bank.v1.post_invoices_invoice_pay", "POST", "Pay an invoice out of band.", "/v1/invoices/{invoice}/pay", operations.KindWrite),
	}
	payouts := func(r *Router) []string {
		var ids []string
		for _, id := range candidateIDs(r.Search("pay an invoice", Filter{}, 5)) {
			if strings.Contains(id, "payouts") {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if got := payouts(New(ops, Options{})); len(got) > 0 {
		t.Errorf("pay an invoice lists %v, met on a piece of the catalog's word payouts", got)
	}
	if got := payouts(New(ops, Options{Ablate: []string{"catalog-words"}})); len(got) == 0 {
		t.Error("without catalog-words the payouts are not met on pay (do the vectors now know payout?): the test shows nothing")
	}
	if got := payouts(New(quoted, Options{})); len(got) == 0 {
		t.Error("a word the prose only quotes as an identifier or a path was taken for a prose word")
	}
}

// A word in the action's place before a determiner is a verb, even one
// the lexicon does not know: "Applies the specified tags" applies them
// rather than listing tags because "applies" looks like a plural, and
// "Stops the job" may run the stop, which a list implied by that
// plural refused.
func TestAWordBeforeADeterminerIsTheAction(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("chime.meetings.get_meetings_id_tags", "GET", "Lists the tags applied to a meeting resource.", "/meetings/{meetingId}/tags", operations.KindRead),
		httpOp("chime.meetings.post_meetings_id_tags_add", "POST", "Applies tags to the specified meeting, up to 50.", "/meetings/{meetingId}/tags?operation=add", operations.KindWrite),
		httpOp("chime.meetings.get_meetings_id", "GET", "Gets the meeting.", "/meetings/{meetingId}", operations.KindRead),
		httpOp("chime.jobs.get_jobs", "GET", "Lists the media jobs of the account.", "/jobs", operations.KindRead),
		httpOp("chime.jobs.get_jobs_id", "GET", "Describes a media job.", "/jobs/{jobId}", operations.KindRead),
		httpOp("chime.jobs.post_jobs", "POST", "Starts a media job for the account.", "/jobs", operations.KindWrite),
		httpOp("chime.jobs.post_jobs_id_stop", "POST", "The job is stopped and its partial results are kept.", "/jobs/{jobId}/stop", operations.KindWrite),
	}
	leadsOnlyWith(t, ops, "unknown-verbs", map[string]string{
		"Applies the specified tags to a meeting": "chime.meetings.post_meetings_id_tags_add",
	})
	q := "Stops the job"
	if res := New(ops, Options{}).Search(q, Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "chime.jobs.post_jobs_id_stop" {
		t.Errorf("%q: %s %v, want a run of the stop", q, res.Decision, candidateIDs(res))
	}
	if res := New(ops, Options{Ablate: []string{"unknown-verbs"}}).Search(q, Filter{}, 5); res.Decision == DecisionRun {
		t.Errorf("with unknown-verbs off, %q runs %v: the test does not test the rule", q, candidateIDs(res))
	}
	// The action the analysis reads: none for an unknown verb, and a list
	// for a noun phrase with no verb, a collection of the catalog before a
	// determiner included ("jobs the account started").
	r := New(ops, Options{})
	for q, want := range map[string]verbClass{
		"Applies the specified tags to a meeting": verbNone,
		"Stops the job":             verbNone,
		"media jobs of the account": verbList,
		"jobs the account started":  verbList,
	} {
		sc := r.pool.Get().(*scratch)
		if _, got := r.analyze(q, sc); got != want {
			t.Errorf("%q reads as verb %v, want %v", q, got, want)
		}
		sc.clear()
		r.pool.Put(sc)
	}
}

// In a request to read, a past participle of a verb of change says what
// happened to what is read, not which operation to call: "who deleted
// ticket 12" asks the audit log, not the delete; "show deactivated
// users" lists them, though no lexicon knows "deactivate" (the catalog's
// users.deactivate does). The operation that reads what a change left
// keeps the word ("GET /files/{id}/trash"), and "can be deleted" asks
// about the delete itself.
func TestAPastChangeInAReadIsNotTheChange(t *testing.T) {
	ops := []*operations.Operation{
		{ID: "desk.tickets.get", Summary: "Get a ticket by its number.", Kind: operations.KindRead},
		{ID: "desk.tickets.delete", Summary: "Delete a ticket and its comments.", Kind: operations.KindDestructive},
		{ID: "desk.audit.list", Summary: "List the audit log: which agent created, changed or deleted what, and when.", Kind: operations.KindRead},
		{ID: "desk.users.list", Summary: "List the agents and customers of the account, active or not.", Kind: operations.KindRead},
		{ID: "desk.users.deactivate", Summary: "Deactivate a user: they can no longer sign in, and their tickets stay.", Kind: operations.KindWrite},
		{ID: "desk.users.get", Summary: "Get one user's profile.", Kind: operations.KindRead},
	}
	leadsOnlyWith(t, ops, "event-words", map[string]string{
		"show deactivated users": "desk.users.list",
	})
	q := "who deleted ticket 12"
	for _, rule := range []bool{true, false} {
		var o Options
		if !rule {
			o.Ablate = []string{"event-words"}
		}
		got := candidateIDs(New(ops, o).Search(q, Filter{}, 5))
		if deletes := len(got) > 0 && got[0] == "desk.tickets.delete"; deletes == rule {
			t.Errorf("%q with the rule %v: %v", q, rule, got)
		}
	}
	expectFirst(t, New(ops, Options{}), map[string]string{
		"delete ticket 12":                   "desk.tickets.delete", // the request's own action
		"tickets can be deleted":             "desk.tickets.delete",
		"users can be deactivated by admins": "desk.users.deactivate",
	})
	files := []*operations.Operation{
		httpOp("drive.trashed_files.get_files_file_id_trash", "GET", "Get a file in the trash.", "/files/{file_id}/trash", operations.KindRead),
		httpOp("drive.trashed_files.delete_files_file_id_trash", "DELETE", "Permanently delete a file in the trash.", "/files/{file_id}/trash", operations.KindDestructive),
		httpOp("drive.files.delete_files_file_id", "DELETE", "Move a file to the trash.", "/files/{file_id}", operations.KindDestructive),
		httpOp("drive.files.get_files_file_id", "GET", "Get a file's details.", "/files/{file_id}", operations.KindRead),
	}
	expectFirst(t, New(files, Options{}), map[string]string{
		"get trashed file 5": "drive.trashed_files.get_files_file_id_trash",
	})
}

// "Who is in the acme org" asks for the org's members, a word the request
// never says, and for many of them: before, the org itself led and its
// members were not among the first ten.
func TestWhoIsInAGroupAsksForItsMembers(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("hub.orgs.get_org", "GET", "Get an organization: its name, plan, billing email and number of members.", "/orgs/{org}", operations.KindRead),
		httpOp("hub.orgs.list_org_members", "GET", "List the users of an organization.", "/orgs/{org}/members", operations.KindRead),
		httpOp("hub.orgs.list_org_repos", "GET", "List an organization's repositories.", "/orgs/{org}/repos", operations.KindRead),
		httpOp("hub.orgs.update_org", "PATCH", "Update an organization's profile.", "/orgs/{org}", operations.KindWrite),
		httpOp("hub.teams.get_team", "GET", "Get a team of an organization.", "/orgs/{org}/teams/{team_slug}", operations.KindRead),
		httpOp("hub.teams.list_team_members", "GET", "List the users on a team.", "/orgs/{org}/teams/{team_slug}/members", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "who-is-in", map[string]string{
		"who is in the acme org":                  "hub.orgs.list_org_members",
		"who belongs to the acme organization":    "hub.orgs.list_org_members",
		"can you tell me who's on the infra team": "hub.teams.list_team_members",
	})
	for _, q := range []string{"who is the owner of the acme org", "who has access", "who in the org changed the plan"} {
		if asksWhoIsIn(strings.Fields(q)) {
			t.Errorf("%q reads as asking who is in a group", q)
		}
	}
}

// A question that reads is answered by an operation that reads before
// one that changes something, when the reading one matches as much of
// it: "what files are on ticket 19" is not a request to file a ticket.
// An order keeps its ranking ("Retrieves a list of spaces" may be a
// POST's summary), and so does a question whose verb changes something.
func TestAQuestionReadsBeforeItWrites(t *testing.T) {
	ops := []*operations.Operation{
		{ID: "desk.tickets.create", Summary: "File a ticket, with files attached.", Kind: operations.KindWrite},
		{ID: "desk.tickets.get", Summary: "Get a ticket: its status and comments.", Description: "The ticket's files are listed with their names and sizes.", Kind: operations.KindRead},
		{ID: "desk.tickets.update", Summary: "Update a pending ticket.", Description: "Pending tickets wait on the customer; updating one keeps it pending.", Kind: operations.KindWrite},
		{ID: "desk.tickets.list", Summary: "List the tickets of a queue, by status: open, pending or solved.", Kind: operations.KindRead},
		{ID: "desk.attachments.delete", Summary: "Delete a file attached to a ticket.", Kind: operations.KindDestructive},
	}
	first := func(o Options, q string) string {
		if ids := candidateIDs(New(ops, o).Search(q, Filter{}, 5)); len(ids) > 0 {
			return ids[0]
		}
		return ""
	}
	for _, q := range []string{"what files are on ticket 19", "what files does ticket 19 have"} {
		on, off := first(Options{}, q), first(Options{Ablate: []string{"reads-first"}}, q)
		if i := slices.IndexFunc(ops, func(op *operations.Operation) bool { return op.ID == on }); i < 0 || ops[i].Kind.IsWrite() {
			t.Errorf("%q leads with %q, not a read", q, on)
		}
		if off == on {
			t.Errorf("%q leads with %s with reads-first off too: the test does not test the rule", q, on)
		}
	}
	// A POST that searches reads; one that creates changes something.
	posts := New([]*operations.Operation{
		httpOp("desk.tickets.post_tickets_search", "POST", "", "/tickets/search", operations.KindWrite),
		httpOp("desk.tickets.post_tickets", "POST", "", "/tickets", operations.KindWrite),
	}, Options{})
	for d, op := range posts.ops {
		if want := op.HTTP.Path == "/tickets"; posts.makesChange(uint32(d)) != want {
			t.Errorf("POST %s makes a change: %v, want %v", op.HTTP.Path, !want, want)
		}
	}
	expectFirst(t, New(ops, Options{}), map[string]string{
		"which tickets are pending":    "desk.tickets.list",
		"file a ticket with two files": "desk.tickets.create",
		"delete the file on ticket 19": "desk.attachments.delete",
	})
}

// An order whose verb reads ("show solved tickets") is not answered by
// an operation named for the change it makes when a read matches as
// much: tickets.reopen says "solved tickets" ("Reopen a solved ticket")
// as well as the list does. An order whose verb its nouns imply says no
// verb that reads and keeps its ranking.
func TestAnOrderThatReadsIsNotANamedChange(t *testing.T) {
	ops := []*operations.Operation{
		{ID: "desk.tickets.reopen", Summary: "Reopen a solved ticket.", Description: "A solved ticket is set back to open; solved tickets stay solved until reopened.", Kind: operations.KindWrite},
		{ID: "desk.tickets.list", Summary: "List tickets by status: open, pending or solved.", Kind: operations.KindRead},
		{ID: "desk.tickets.get", Summary: "Get one ticket.", Kind: operations.KindRead},
	}
	// The helpdesk example's catalog, whose reopen says "solved" as often
	// as the list does.
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	leadsOnlyWith(t, reg.All(), "read-orders", map[string]string{
		"display solved tickets": "helpdesk.tickets.list",
		"fetch solved tickets":   "helpdesk.tickets.list",
	})
	expectFirst(t, New(reg.All(), Options{}), map[string]string{"show solved tickets": "helpdesk.tickets.list"})
	expectFirst(t, New(ops, Options{}), map[string]string{
		"show solved tickets":        "desk.tickets.list",
		"reopen the solved ticket 4": "desk.tickets.reopen",
	})
	// A write only its method calls a change is not named for it; the
	// method of a service.method call is its action, whatever the
	// service's name says.
	r := New([]*operations.Operation{
		httpOp("api.post_spaces", "POST", "", "/spaces", operations.KindWrite),
		httpOp("api.post_jobs_job_id_cancel", "POST", "", "/jobs/{job_id}/cancel", operations.KindWrite),
		httpOp("api.post_x_amz_target_code_deploy_20141006_get_application", "POST", "", "/#X-Amz-Target=CodeDeploy_20141006.GetApplication", operations.KindWrite),
	}, Options{})
	for d, want := range []struct {
		named, changes bool
	}{{false, true}, {true, true}, {true, false}} {
		if c := r.changes[d]; c.named != want.named || r.makesChange(uint32(d)) != want.changes {
			t.Errorf("%s: named %v, makes a change %v; want %v, %v", r.ops[d].HTTP.Path, c.named, r.makesChange(uint32(d)), want.named, want.changes)
		}
	}
}

// "open" creates ("open a ticket"), reads one that exists ("open ticket
// 42", "open the refunds article"), or, before a plural, is the state of
// what is listed ("open tickets for Bluefin"): its object says which.
// Before, every "open" created.
func TestOpenSaysWhatItAsksByItsObject(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	leadsOnlyWith(t, reg.All(), "open-sense", map[string]string{
		"open ticket 42":           "helpdesk.tickets.get",
		"open kb article 3":        "helpdesk.kb.get",
		"open tickets for Bluefin": "helpdesk.tickets.list",
	})
	r := New(reg.All(), Options{})
	expectFirst(t, r, map[string]string{
		"open a ticket for the printer outage": "helpdesk.tickets.create",
		"open a new ticket":                    "helpdesk.tickets.create",
	})
	// What a value names exists: "open" a file by its name reads it.
	files := []*operations.Operation{
		{ID: "files.read_text_file", Summary: "Read the complete contents of a file as text.", Kind: operations.KindRead},
		{ID: "files.write_file", Summary: "Create a new file or completely overwrite an existing file with new content.", Kind: operations.KindWrite},
		{ID: "files.list_directory", Summary: "Get a detailed listing of all files and directories in a specified path.", Kind: operations.KindRead},
	}
	leadsOnlyWith(t, files, "open-sense", map[string]string{
		"open config.yaml": "files.read_text_file",
		"open README.md":   "files.read_text_file",
	})
	for q, want := range map[string]bool{
		"open config.yaml and main.go together": true, "Open 'README.md'": true, "open https://example.com/a": true,
		"open a file called notes.txt": false, "open": false, "reopen x.md": false,
	} {
		if got := opensAValue(q); got != want {
			t.Errorf("%q opens a value: %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]verbClass{
		"open a ticket": verbCreate, "open ticket for the printer outage": verbCreate,
		"open the refunds article": verbRead, "open ticket 42": verbRead,
		"open pull requests": verbNone, "open": verbCreate,
	} {
		if got := openSense(strings.Fields(q), 0); got != want {
			t.Errorf("%q: open reads as %v, want %v", q, got, want)
		}
	}
}

// A title names its collection, then the verb ("Tags List", "Domains
// Create"): the first word is the noun, although "tags" read as a verb in
// the third person would tag something.
func TestATitleNamesItsNounBeforeItsVerb(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("api.tags.get_tags", "GET", "Tags are labels on the objects of an account. This endpoint returns a paginated list of Tags.", "/tags", operations.KindRead),
		httpOp("api.tags.post_tags", "POST", "Creates a new Tag and optionally tags requested objects with it.", "/tags", operations.KindWrite),
		httpOp("api.tags.get_tags_label", "GET", "Returns a paginated list of all objects you've tagged with the requested Tag.", "/tags/{label}", operations.KindRead),
		httpOp("api.tags.delete_tags_label", "DELETE", "Remove a Tag from all objects and delete it.", "/tags/{label}", operations.KindDestructive),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"title-verbs"}})
	for q, want := range map[string]operations.Kind{"Tags List": operations.KindRead, "Tags Create": operations.KindWrite} {
		if got := on.Search(q, Filter{}, 5).Verb; got != want {
			t.Errorf("%q asks to %s, want %s", q, got, want)
		}
	}
	// Without the rule "Tags" is the verb: a read taken as a write,
	// which a read-only server refuses.
	if got := off.Search("Tags List", Filter{}, 5).Verb; got != operations.KindWrite {
		t.Errorf(`"Tags List" with title-verbs off asks to %s: the test does not test the rule`, got)
	}
	expectFirst(t, on, map[string]string{
		"Tags List":   "api.tags.get_tags",
		"Tags Create": "api.tags.post_tags",
	})
	for q, want := range map[string]bool{
		"Tags List": true, "Domain Records Create": true, "add it to the list": false, "Gets a list": false, "List": false,
	} {
		if got := verbLast(strings.Fields(strings.ToLower(q))); got != want {
			t.Errorf("%q: ends in a title's verb %v, want %v", q, got, want)
		}
	}
}

// A name with an extension is a file's, a word the request does not say
// (the name is a value, masked out of the request's words), and "open"
// reads a file: "open notes.txt" asks for its contents. A version
// ("3.0.x") is no file.
func TestAFileNameNamesAFile(t *testing.T) {
	ops := []*operations.Operation{
		{ID: "files.list_directory", Description: "Get a detailed listing of all files and directories in a specified path."},
		{ID: "files.read_text_file", Description: "Read the complete contents of a file as text."},
		{ID: "files.get_file_info", Description: "Retrieve detailed metadata about a file or directory."},
	}
	leadsOnlyWith(t, ops, "file-names", map[string]string{
		"open notes.txt": "files.read_text_file",
	})
	// A request of a shell word and a file name met nothing before.
	if got := candidateIDs(New(ops, Options{}).Search("cat README.md", Filter{}, 5)); !slices.Contains(got, "files.read_text_file") {
		t.Errorf(`"cat README.md": %v, want the file tools`, got)
	}
	for q, want := range map[string]bool{
		"cat README.md": true, "open 'config.yaml'": true, "Validate an OpenAPI 3.0.x definition": false,
		"fetch https://example.com/a.html": false, "read the file": false,
	} {
		if got := namesAFile(q); got != want {
			t.Errorf("%q names a file: %v, want %v", q, got, want)
		}
	}
}

// TestAFilterNeverMakesAGuessCertain: intent-only ask searches reads, and
// "transfer balance" asks for a write the catalog has (its verb is not one
// the lexicon knows). Among reads, the list of balance transfers is clear
// of the others and would run; with the whole catalog in view, the write
// leads, so the read-only search lists the reads, runs nothing, and says
// which operation the filter hid. A read the whole catalog would run
// still runs among reads.
func TestAFilterNeverMakesAGuessCertain(t *testing.T) {
	ops := bankOps()
	reads := Filter{Kinds: []operations.Kind{operations.KindRead}}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"filtered-runs"}})
	for q, hidden := range map[string]string{
		"transfer balance":                   "bank.transfers.post_balance_transfers",
		"transfer balance to the subaccount": "bank.transfers.post_balance_transfers",
		"transfer credit":                    "bank.transfers.post_credit_transfers",
	} {
		res := on.Search(q, reads, 5)
		if res.Decision == DecisionRun {
			t.Errorf("%q among reads: runs %s; the whole catalog's answer is a write", q, res.Candidates[0].Op.ID)
		}
		if res.Hidden == nil || res.Hidden.ID != hidden {
			t.Errorf("%q among reads: Hidden = %v, want %s", q, res.Hidden, hidden)
		}
		if len(res.Candidates) == 0 || res.Candidates[0].Op.Kind != operations.KindRead {
			t.Errorf("%q among reads: %v, want the reads listed", q, candidateIDs(res))
		}
		if got := off.Search(q, reads, 5); got.Decision != DecisionRun {
			t.Errorf("%q with filtered-runs off: %s, want the run the rule withdraws (the test does not test the rule)", q, got.Decision)
		}
	}
	res := on.Search("list the balance transfers", reads, 5)
	if res.Decision != DecisionRun || res.Candidates[0].Op.ID != "bank.transfers.get_balance_transfers" || res.Hidden != nil {
		t.Errorf("a read the whole catalog runs: %s %v hidden %v, want it run among reads", res.Decision, candidateIDs(res), res.Hidden)
	}
}

// TestAHiddenCallAnswersAnUnknownVerb: "pay an invoice" asks, in a verb
// the lexicon does not know, for a call the catalog names for it
// (POST /invoices/{invoice}/pay). A read-only search lists the reads of
// invoices, runs nothing, and names the hidden call, whatever form the
// filter takes; without the rule nothing says why the reads fall short. A
// request of nouns that a hidden write's path says earlier than its call
// ("user devices") is no call, nor is a plural collection before a
// determiner ("refunds the customer asked for"); the whole catalog,
// unfiltered, leads with the call itself.
func TestAHiddenCallAnswersAnUnknownVerb(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("billing.invoices.get_invoices", "GET", "Lists your invoices.", "/v1/invoices", operations.KindRead),
		httpOp("billing.invoices.get_invoice", "GET", "Retrieves the invoice with the given ID.", "/v1/invoices/{invoice}", operations.KindRead),
		httpOp("billing.invoices.post_invoices", "POST", "Creates a draft invoice for a customer.", "/v1/invoices", operations.KindWrite),
		httpOp("billing.invoices.post_invoice_pay", "POST", "Stripe automatically creates and then attempts to collect payment on invoices for customers on subscriptions.", "/v1/invoices/{invoice}/pay", operations.KindWrite),
		httpOp("billing.invoices.post_invoice_void", "POST", "Mark a finalized invoice as void. This cannot be undone.", "/v1/invoices/{invoice}/void", operations.KindWrite),
		httpOp("billing.refunds.get_refunds", "GET", "Returns a list of all refunds you created.", "/v1/refunds", operations.KindRead),
		httpOp("billing.charges.get_charge", "GET", "Retrieves the details of a charge.", "/v1/charges/{charge}", operations.KindRead),
		httpOp("billing.charges.post_charge_refund", "POST", "Refunds a charge that has previously been created but not yet refunded.", "/v1/charges/{charge}/refund", operations.KindWrite),
		httpOp("devices.user.get_user_devices", "GET", "Lists the devices of the user.", "/user/devices", operations.KindRead),
		httpOp("devices.user.get_user_device", "GET", "Returns the device of the user with the given serial.", "/user/devices/{serial}", operations.KindRead),
		httpOp("devices.user.post_user_devices", "POST", "Adds a device to the user's devices.", "/user/devices", operations.KindWrite),
	}
	// Here the reads meet too little of either request to answer it, so
	// hidden-only would name the call too.
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"hidden-actions", "hidden-only"}})
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	for q, hidden := range map[string]string{
		"pay an invoice":     "billing.invoices.post_invoice_pay",
		"void invoice in_42": "billing.invoices.post_invoice_void",
		// A collection of the catalog in the singular, before a
		// determiner, is a verb.
		"refund a charge": "billing.charges.post_charge_refund",
	} {
		for name, f := range map[string]Filter{
			"mask":  {Only: on.Mask(notWrite)},
			"keep":  {Keep: notWrite},
			"kinds": {Kinds: []operations.Kind{operations.KindRead}},
		} {
			res := on.Search(q, f, 5)
			if res.Decision != DecisionNoMatch || res.Hidden == nil || res.Hidden.ID != hidden {
				t.Errorf("%q, read-only (%s): %s %v, hidden %v; want no_match naming %s", q, name, res.Decision, candidateIDs(res), res.Hidden, hidden)
			}
			if len(res.Candidates) == 0 || res.Candidates[0].Op.Kind != operations.KindRead {
				t.Errorf("%q, read-only (%s): %v, want the reads listed", q, name, candidateIDs(res))
			}
		}
		if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Hidden != nil {
			t.Errorf("%q with hidden-actions off: %s, hidden %v; want no call named (the test does not test the rule)", q, res.Decision, res.Hidden.ID)
		}
		if got := candidateIDs(on.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != hidden {
			t.Errorf("%q, every operation: %v, want %s first", q, got, hidden)
		}
	}
	for _, q := range []string{"user devices", "refunds the customer asked for"} {
		if res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5); res.Hidden != nil || res.Decision == DecisionNoMatch {
			t.Errorf("%q, read-only: %s %v, hidden %v; want the reads offered", q, res.Decision, candidateIDs(res), res.Hidden)
		}
	}
	// An invoice that says what is left to pay meets the request well
	// enough that, without the rule, the read-only answer offers it as a
	// choice (medium confidence); with it, the reads fall short.
	ops[1] = httpOp("billing.invoices.get_invoice", "GET", "Retrieves the invoice with the given ID: its lines, what is due and what is left to pay.", "/v1/invoices/{invoice}", operations.KindRead)
	on, off = New(ops, Options{}), New(ops, Options{Ablate: []string{"hidden-actions"}})
	if res := on.Search("pay an invoice", Filter{Only: on.Mask(notWrite)}, 5); res.Decision != DecisionNoMatch || res.Hidden == nil || res.Hidden.ID != "billing.invoices.post_invoice_pay" {
		t.Errorf(`"pay an invoice" where a read says "pay": %s, hidden %v; want no_match naming the call`, res.Decision, res.Hidden)
	}
	if res := off.Search("pay an invoice", Filter{Only: off.Mask(notWrite)}, 5); res.Decision == DecisionNoMatch {
		t.Errorf(`"pay an invoice" where a read says "pay", hidden-actions off: %s; want a choice (the test does not test the rule)`, res.Decision)
	}
}

// TestNothingVisibleNamesTheHiddenLeader: over an API whose imports are
// all POST calls, "list the imports" meets nothing a read-only search
// keeps. The answer is empty, but it names the hidden call that would
// serve it, so that the server can say why; without the rule it says
// nothing, as it does for a request nothing in the catalog meets. Where
// a read meets the request weakly, a request that says it reads names
// only a hidden call named for reading: a question about an import is
// no call to start one.
func TestNothingVisibleNamesTheHiddenLeader(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("migrate.imports.post_list_imports", "POST", "Lists the imports of the account.", "/ListImports", operations.KindWrite),
		httpOp("migrate.imports.post_start_import", "POST", "Starts an import of records.", "/StartImport", operations.KindWrite),
		httpOp("migrate.health.get_health", "GET", "Reports whether the service is up.", "/health", operations.KindRead),
	}
	weak := append(slices.Clone(ops), httpOp("migrate.usage.get_usage", "GET", "Returns the usage of the organization, with its imports and exports.", "/usage", operations.KindRead))
	wr := New(weak, Options{})
	if res := wr.Search("did someone start an import", readOnlyFilter(wr), 5); len(res.Candidates) == 0 || res.Hidden != nil {
		t.Errorf("a question a read meets weakly: %s %v, hidden %v; want the read, no hidden call", res.Decision, candidateIDs(res), res.Hidden)
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"hidden-only"}})
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	for name, f := range map[string]Filter{"mask": {Only: on.Mask(notWrite)}, "kinds": {Kinds: []operations.Kind{operations.KindRead}}} {
		res := on.Search("list the imports", f, 5)
		if len(res.Candidates) != 0 || res.Hidden == nil || res.Hidden.ID != "migrate.imports.post_list_imports" {
			t.Errorf("read-only (%s): %v, hidden %v; want nothing listed and the hidden call named", name, candidateIDs(res), res.Hidden)
		}
	}
	if res := off.Search("list the imports", Filter{Only: off.Mask(notWrite)}, 5); res.Hidden != nil {
		t.Errorf("with hidden-only off: hidden %s; want none (the test does not test the rule)", res.Hidden.ID)
	}
	if res := on.Search("weather in Paris", Filter{Only: on.Mask(notWrite)}, 5); len(res.Candidates) != 0 || res.Hidden != nil {
		t.Errorf("a request nothing meets: %v, hidden %v; want nothing", candidateIDs(res), res.Hidden)
	}
}

// TestAHiddenReadCallIsNamed: Google's getIamPolicy is a POST, a write by
// its method, though it reads. On a read-only server "get the access
// control policy of a tag value" leads with the tag value's GET, which
// meets every word but "policy": the answer is no match, naming the
// hidden call; without the rule the GET is offered as a choice. A request
// a read meets in every word is answered by it.
func TestAHiddenReadCallIsNamed(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("tags.tag_values.get", "GET", "Retrieves a tag value, with its access settings and control fields.", "/v3/{name}", operations.KindRead),
		httpOp("tags.tag_values.list", "GET", "Lists all tag values for a tag key.", "/v3/tagValues", operations.KindRead),
		httpOp("tags.tag_values.get_iam_policy", "POST", "Gets the access control policy for a tag value.", "/v3/{resource}:getIamPolicy", operations.KindWrite),
		httpOp("tags.tag_values.set_iam_policy", "POST", "Sets the access control policy on a tag value.", "/v3/{resource}:setIamPolicy", operations.KindWrite),
		httpOp("tags.tag_values.create", "POST", "Creates a tag value.", "/v3/tagValues", operations.KindWrite),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"hidden-reads"}})
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	q := "get the access control policy of a tag value"
	res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5)
	if res.Decision != DecisionNoMatch || res.Hidden == nil || res.Hidden.ID != "tags.tag_values.get_iam_policy" || len(res.Candidates) == 0 {
		t.Errorf("%q, read-only: %s %v, hidden %v; want the reads, no match, the policy call named", q, res.Decision, candidateIDs(res), res.Hidden)
	}
	if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Hidden != nil || res.Decision == DecisionNoMatch {
		t.Errorf("%q with hidden-reads off: %s, hidden %v; want the reads offered (the test does not test the rule)", q, res.Decision, res.Hidden)
	}
	if res := on.Search("list the tag values", Filter{Only: on.Mask(notWrite)}, 5); res.Hidden != nil || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "tags.tag_values.list" {
		t.Errorf(`"list the tag values", read-only: %s %v, hidden %v; want the list`, res.Decision, candidateIDs(res), res.Hidden)
	}
}

// bankOps is a catalog of money transfers between an account and its
// subaccounts: a list and a write for each kind of transfer, in the shape
// of a real one (the benchmark's withheld summaries: descriptions only).
func bankOps() []*operations.Operation {
	return []*operations.Operation{
		httpOp("bank.transfers.get_balance_transfers", "GET", "Lists the balance transfers made between the main account and its subaccounts in a period of time.", "/{api_key}/balance-transfers", operations.KindRead),
		httpOp("bank.transfers.post_balance_transfers", "POST", "Moves balance from the main account to one of its subaccounts, or back.", "/{api_key}/balance-transfers", operations.KindWrite),
		httpOp("bank.transfers.get_credit_transfers", "GET", "Lists the credit transfers made between the main account and its subaccounts in a period of time.", "/{api_key}/credit-transfers", operations.KindRead),
		httpOp("bank.transfers.post_credit_transfers", "POST", "Moves credit limit from the main account to one of its subaccounts, or back.", "/{api_key}/credit-transfers", operations.KindWrite),
		httpOp("bank.subaccounts.get_subaccounts", "GET", "Lists the subaccounts of the main account.", "/{api_key}/subaccounts", operations.KindRead),
		httpOp("bank.subaccounts.post_subaccounts", "POST", "Opens a subaccount under the main account.", "/{api_key}/subaccounts", operations.KindWrite),
		httpOp("bank.subaccounts.get_subaccount", "GET", "Gets one subaccount by its key.", "/{api_key}/subaccounts/{subaccount_key}", operations.KindRead),
		httpOp("bank.subaccounts.patch_subaccount", "PATCH", "Changes the name or the limits of a subaccount.", "/{api_key}/subaccounts/{subaccount_key}", operations.KindWrite),
	}
}

// TestEvaluateCountsWhatAskRuns: the evaluation measures what intent-only
// ask would execute, searching reads. "transfer balance" (a write) would
// run the list of transfers there but for the whole-catalog check: a
// false run of ask's, which the filtered-runs rule removes, and with it
// the write named as what the request asks for (writes warned); the read
// asked for runs either way. The misses name what ask ran by mistake.
// The list takes no parameter, so an ask with no params executes it;
// where its path's api_key is required, the same ask names it, fails
// validation and executes nothing.
func TestEvaluateCountsWhatAskRuns(t *testing.T) {
	qs := []Query{
		{Query: "transfer balance", Labels: []string{"bank.transfers.post_balance_transfers"}},
		{Query: "list the balance transfers", Labels: []string{"bank.transfers.get_balance_transfers"}},
	}
	keyed := bankOps()
	for _, op := range keyed {
		op.Input = json.RawMessage(`{"type":"object","properties":{"api_key":{"type":"string"}},"required":["api_key"]}`)
	}
	for _, c := range []struct {
		ops      []*operations.Operation
		ablate   []string
		runs     float64
		falseRun int
		executed int
		warned   float64
	}{{bankOps(), nil, 0.5, 0, 0, 1}, {bankOps(), []string{"filtered-runs"}, 1, 1, 1, 0}, {keyed, []string{"filtered-runs"}, 1, 1, 0, 0}} {
		rep := Evaluate(New(c.ops, Options{Ablate: c.ablate}), qs, EvalOptions{Misses: true})
		m := rep.All
		if m.AskRunRate != c.runs || m.AskFalseRuns != c.falseRun || m.AskFalseExecuted != c.executed || m.WritesWarned != c.warned {
			t.Errorf("ablate %v: ask runs %.2f, ask false runs %d (%d executed), writes warned %.2f; want %.2f, %d (%d) and %.2f",
				c.ablate, m.AskRunRate, m.AskFalseRuns, m.AskFalseExecuted, m.WritesWarned, c.runs, c.falseRun, c.executed, c.warned)
		}
		var askRan []string
		for _, x := range rep.Misses {
			if x.AskRan != "" {
				askRan = append(askRan, x.Query+" → "+x.AskRan)
			}
		}
		if len(askRan) != c.falseRun || c.falseRun > 0 && askRan[0] != "transfer balance → bank.transfers.get_balance_transfers" {
			t.Errorf("ablate %v: misses say ask ran %q; want %d false run(s), transfer balance → bank.transfers.get_balance_transfers", c.ablate, askRan, c.falseRun)
		}
	}
}

// TestMaskFiltersAsItsPredicate: a search filtered by a mask (Filter.Only)
// answers what the same predicate as Filter.Keep answers, whatever ran on
// the router before it: searches with another mask, with none, and with a
// write verb (whose decision searches what the mask leaves out, apart:
// hiddenOutscores) share scratches, and the marks premask leaves in one
// must not leak into the next. A write request on a read-only server is
// no match, the write it asks for hidden. A mask of another router falls
// back to its predicate.
func TestMaskFiltersAsItsPredicate(t *testing.T) {
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	isRead := func(op *operations.Operation) bool { return op.Kind == operations.KindRead }
	r, ref := New(bankOps(), Options{}), New(bankOps(), Options{})
	masks := map[string]*Mask{"not-write": r.Mask(notWrite), "read": r.Mask(isRead)}
	preds := map[string]func(*operations.Operation) bool{"not-write": notWrite, "read": isRead}
	show := func(res Result) string {
		s := string(res.Decision)
		for _, c := range res.Candidates {
			s += fmt.Sprintf(" %s:%.6f", c.Op.ID, c.Score)
		}
		return s
	}
	queries := []string{"transfer balance", "list the balance transfers", "delete the subaccount", "show subaccount 7", "create a subaccount", "credit transfers this month", "move balance to a subaccount"}
	for round := range 3 {
		for i, q := range queries {
			for _, name := range []string{"not-write", "read", ""} {
				if (i+round)%2 == 0 && name == "read" {
					continue // vary the order of masks between rounds
				}
				f, want := Filter{}, ref.Search(q, Filter{}, 5)
				if name != "" {
					f = Filter{Only: masks[name]}
					want = ref.Search(q, Filter{Keep: preds[name]}, 5)
				}
				if got := r.Search(q, f, 5); show(got) != show(want) {
					t.Errorf("round %d, %q, mask %q:\n got %s\nwant %s", round, q, name, show(got), show(want))
				}
			}
		}
	}
	if res := r.Search("move balance to a subaccount", Filter{Only: masks["not-write"]}, 5); res.Decision != DecisionNoMatch || res.Verb != operations.KindWrite {
		t.Errorf("a change on a read-only router: %s, verb %q; want no_match, the write hidden", show(res), res.Verb)
	}
	foreign := ref.Search("list the balance transfers", Filter{Only: masks["read"]}, 5)
	if want := ref.Search("list the balance transfers", Filter{Keep: isRead}, 5); show(foreign) != show(want) {
		t.Errorf("another router's mask: %s, want %s", show(foreign), show(want))
	}
}

// TestSearchIsSafeForConcurrentUse: searches from many goroutines at
// once, under masks (whose marks stay in pooled scratches), kinds and none,
// requests that read and that write (whose decision under a mask searches
// the hidden operations from a pool of its own, or the hidden calls named
// for reading from another), answer what the same searches answer one at
// a time, the hidden call they name included. Run with -race, it also shows that no
// scratch is shared.
func TestSearchIsSafeForConcurrentUse(t *testing.T) {
	ops := synthOps(400)
	qs := benchQueries(ops, 96)
	// Calls that the read-only searches name when they hide them
	// (hiddenAction, hiddenRead: probes with pools of their own).
	ops = append(ops,
		httpOp("billing.invoices.get_invoice", "GET", "Retrieves the invoice with the given ID.", "/v1/invoices/{invoice}", operations.KindRead),
		httpOp("billing.invoices.post_invoice_pay", "POST", "Attempts to collect payment on an invoice.", "/v1/invoices/{invoice}/pay", operations.KindWrite),
		httpOp("tags.tag_values.get", "GET", "Retrieves a tag value, with its access settings and control fields.", "/v3/{name}", operations.KindRead),
		httpOp("tags.tag_values.get_iam_policy", "POST", "Gets the access control policy for a tag value.", "/v3/{resource}:getIamPolicy", operations.KindWrite))
	qs = append(qs, "pay an invoice", "get the access control policy of a tag value", "list the ledger exports")
	r := New(ops, Options{})
	notWrite := r.Mask(func(op *operations.Operation) bool { return !op.Kind.IsWrite() })
	reads := r.Mask(func(op *operations.Operation) bool { return op.Kind == operations.KindRead })
	filters := []Filter{{}, {Only: notWrite}, {Only: reads}, {Kinds: []operations.Kind{operations.KindRead}}}
	show := func(res Result) string {
		s := string(res.Decision)
		for _, c := range res.Candidates {
			s += fmt.Sprintf(" %s:%.5f", c.Op.ID, c.Score)
		}
		if res.Hidden != nil {
			s += " hidden " + res.Hidden.ID
		}
		return s
	}
	want := make([]string, len(qs)*len(filters))
	for i := range want {
		want[i] = show(r.Search(qs[i/len(filters)], filters[i%len(filters)], 10))
	}
	for _, call := range []string{"billing.invoices.post_invoice_pay", "tags.tag_values.get_iam_policy"} {
		if !slices.ContainsFunc(want, func(w string) bool { return strings.HasSuffix(w, " hidden "+call) }) {
			t.Fatalf("no search names the hidden %s: the test does not run the probes it means to", call)
		}
	}
	const workers = 8
	errs := make(chan string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Each worker walks the searches from its own starting point,
			// so that different filters and verbs run side by side.
			for k := range want {
				i := (k + w*len(want)/workers) % len(want)
				if got := show(r.Search(qs[i/len(filters)], filters[i%len(filters)], 10)); got != want[i] {
					errs <- fmt.Sprintf("%q, filter %d:\n got %s\nwant %s", qs[i/len(filters)], i%len(filters), got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestAVerbAfterAPreamble: a request that puts a preamble before its
// verb ("Permanently deletes ...", "This operation deletes ...", "This
// deletes ...", "Use
// this method to stop ...") asks what that verb asks. On a read-only
// server the answer says writes are hidden instead of offering the reads
// as a choice; with every operation, the write leads. A plural with no
// determined object after it is a noun ("the pending invites", "The number
// of issues").
func TestAVerbAfterAPreamble(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("glacier.vaults.get_vaults", "GET", "Lists the vaults of the account.", "/vaults", operations.KindRead),
		httpOp("glacier.vaults.get_vault", "GET", "Returns a vault's name, size and archive count.", "/vaults/{name}", operations.KindRead),
		httpOp("glacier.vaults.put_vault", "PUT", "Makes a new vault.", "/vaults/{name}", operations.KindWrite),
		httpOp("glacier.vaults.delete_vault", "DELETE", "Removes an empty vault for good.", "/vaults/{name}", operations.KindDestructive),
		httpOp("glacier.jobs.get_jobs", "GET", "Lists the retrieval jobs of a vault.", "/vaults/{name}/jobs", operations.KindRead),
		httpOp("glacier.jobs.post_job_stop", "POST", "Halts a retrieval job.", "/vaults/{name}/jobs/{id}/stop", operations.KindWrite),
		httpOp("glacier.issues.get_issues", "GET", "Lists the open issues of a vault.", "/vaults/{name}/issues", operations.KindRead),
	}
	// unknown-object also makes "Call this endpoint to stop ..." low
	// without preambles (the endpoint is no word of the catalog); off
	// here, so that the test shows what preambles do.
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"preambles", "unknown-object"}})
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	for q, want := range map[string]struct {
		verb operations.Kind
		op   string
	}{
		"Permanently deletes a vault and all of its archives.": {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"This operation deletes a vault.":                      {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"The DeleteVault operation deletes the vault.":         {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"Given a vault name, deletes the vault.":               {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"For empty vaults only: Deletes a vault.":              {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"This deletes an empty vault for good.":                {operations.KindDestructive, "glacier.vaults.delete_vault"},
		"This endpoint deletes empty vaults for good.":         {operations.KindDestructive, "glacier.vaults.delete_vault"},
	} {
		res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5)
		if res.Verb != want.verb || res.Decision != DecisionNoMatch {
			t.Errorf("%q, read-only: verb %q, %s %v; want %q and no_match (writes hidden)", q, res.Verb, res.Decision, candidateIDs(res), want.verb)
		}
		if got := candidateIDs(on.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != want.op {
			t.Errorf("%q: %v, want %s first", q, got, want.op)
		}
		if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Verb == want.verb {
			t.Errorf("%q with preambles off: verb %q (the test does not test the rule)", q, res.Verb)
		}
	}
	// After "use this ... to" the action is the verb, known or not: a
	// hidden call named for it is what the request asks.
	for _, q := range []string{"Use this method to stop a retrieval job.", "Call this endpoint to stop a retrieval job."} {
		if res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5); res.Decision != DecisionNoMatch || res.Hidden == nil || res.Hidden.ID != "glacier.jobs.post_job_stop" {
			t.Errorf("%q, read-only: %s %v, hidden %v; want no_match naming the stop call", q, res.Decision, candidateIDs(res), res.Hidden)
		}
		if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Hidden != nil {
			t.Errorf("%q with preambles off: hidden %v (the test does not test the rule)", q, res.Hidden.ID)
		}
	}
	// The verb after "to" is found past an adverb: the preamble must not
	// leave "to permanently delete" without a verb.
	q0 := "Use this endpoint to permanently delete a vault."
	if res := on.Search(q0, Filter{Only: on.Mask(notWrite)}, 5); res.Verb != operations.KindDestructive || res.Decision != DecisionNoMatch {
		t.Errorf("%q, read-only: verb %q, %s; want %q and no_match (writes hidden)", q0, res.Verb, res.Decision, operations.KindDestructive)
	}
	// "Call this ... to get" asks to read, not to call anything.
	q := "Call this endpoint to get the jobs of a vault."
	if res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5); res.Verb != operations.KindRead || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "glacier.jobs.get_jobs" {
		t.Errorf("%q, read-only: verb %q, %v; want a read of the jobs", q, res.Verb, candidateIDs(res))
	}
	if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Verb == operations.KindRead {
		t.Errorf("%q with preambles off: verb %q (the test does not test the rule)", q, res.Verb)
	}
	for _, q := range []string{"The number of issues in a vault", "Weekly reports of the vaults", "the pending invites", "this vault's tags", "this jobs list"} {
		if res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5); res.Verb.IsWrite() {
			t.Errorf("%q, read-only: verb %q; want no write asked", q, res.Verb)
		}
	}
}

// TestAnEnablingVerbIsNotTheAction: "Enables administrators to list the
// carts", "This method enables you to obtain ...": the verb that grants an
// ability is not what the request does; the verb after "to" is. A read
// asked that way is a read, which a read-only server answers; asked to
// enable something, with no "to" after it, the request still writes.
func TestAnEnablingVerbIsNotTheAction(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("shop.carts.get_carts", "GET", "Lists the carts that match a search.", "/carts", operations.KindRead),
		httpOp("shop.carts.get_cart", "GET", "Returns a cart's items and totals.", "/carts/{id}", operations.KindRead),
		httpOp("shop.carts.post_cart", "POST", "Creates an empty cart.", "/carts", operations.KindWrite),
		httpOp("shop.plans.get_plans", "GET", "Returns the payment plans you have created.", "/plans", operations.KindRead),
		httpOp("shop.webhooks.put_webhook_enabled", "PUT", "Turns a webhook on.", "/webhooks/{id}/enabled", operations.KindWrite),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"enabling-verbs"}})
	readOnly := readOnlyFilter(on)
	for q, want := range map[string]string{
		"Enables administrative users to list carts that match a search.":  "shop.carts.get_carts",
		"Enable a guest user to return information for a specified cart.":  "shop.carts.get_cart",
		"This method enables you to obtain the payment plans you created.": "shop.plans.get_plans",
	} {
		res := on.Search(q, readOnly, 5)
		if res.Verb.IsWrite() || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
			t.Errorf("%q, read-only: verb %q, %s %v; want a read, %s first", q, res.Verb, res.Decision, candidateIDs(res), want)
		}
		if got := candidateIDs(on.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != want {
			t.Errorf("%q: %v, want %s first", q, got, want)
		}
		if res := off.Search(q, readOnlyFilter(off), 5); !res.Verb.IsWrite() {
			t.Errorf("%q with enabling-verbs off: verb %q (the test does not test the rule)", q, res.Verb)
		}
	}
	if res := on.Search("Enable the webhook", Filter{}, 5); res.Verb != operations.KindWrite || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "shop.webhooks.put_webhook_enabled" {
		t.Errorf("Enable the webhook: verb %q, %v; want a write, the webhook's PUT first", res.Verb, candidateIDs(res))
	}
}

// TestACallVerbReadsWhatItCalls: "invoke", "run", "execute" and "generate"
// do not say whether the operation changes state; the operation does. When the
// catalog's best answer reads, a read-only server answers the request
// with it instead of refusing it as a write; when a hidden write
// outscores the reads, the request still asks for that write.
func TestACallVerbReadsWhatItCalls(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("graph.reports.get_email_activity_counts", "GET", "Invoke function getEmailActivityCounts: email activity per period.", "/reports/microsoft.graph.getEmailActivityCounts(period='{period}')", operations.KindRead),
		httpOp("graph.reports.get_mailbox_usage", "GET", "Invoke function getMailboxUsageDetail: mailbox sizes per user.", "/reports/microsoft.graph.getMailboxUsageDetail(period='{period}')", operations.KindRead),
		httpOp("graph.reports.post_export", "POST", "Invoke action exportPersonalData for a user.", "/users/{id}/microsoft.graph.exportPersonalData", operations.KindWrite),
		httpOp("desk.views.get_view_run", "GET", "Lists the tickets a saved view matches now.", "/views/{id}/run", operations.KindRead),
		httpOp("desk.views.get_view", "GET", "Reads a saved view's definition.", "/views/{id}", operations.KindRead),
		httpOp("desk.hooks.post_hook_test", "POST", "Invokes a webhook with a test event.", "/hooks/{id}/test", operations.KindWrite),
		httpOp("desk.hooks.get_hook", "GET", "Reads a webhook's target and events.", "/hooks/{id}", operations.KindRead),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"neutral-verbs"}})
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	for q, want := range map[string]string{
		"Invoke function getEmailActivityCounts": "graph.reports.get_email_activity_counts",
		"run view 2":                             "desk.views.get_view_run",
		"execute the saved view 7":               "desk.views.get_view_run",
		"Generates the mailbox usage detail":     "graph.reports.get_mailbox_usage",
	} {
		for name, f := range map[string]Filter{"mask": {Only: on.Mask(notWrite)}, "kinds": {Kinds: []operations.Kind{operations.KindRead}}, "none": {}} {
			res := on.Search(q, f, 5)
			if res.Verb != operations.KindRead || res.Decision == DecisionNoMatch || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
				t.Errorf("%q (%s): verb %q, %s %v; want a read, %s first", q, name, res.Verb, res.Decision, candidateIDs(res), want)
			}
		}
		if res := off.Search(q, Filter{Only: off.Mask(notWrite)}, 5); res.Verb == operations.KindRead {
			t.Errorf("%q with neutral-verbs off: verb %q (the test does not test the rule)", q, res.Verb)
		}
	}
	q := "invoke the webhook test"
	if res := on.Search(q, Filter{Only: on.Mask(notWrite)}, 5); !res.Verb.IsWrite() || res.Decision != DecisionNoMatch {
		t.Errorf("%q, read-only: verb %q, %s %v; want a write asked, no match among the reads", q, res.Verb, res.Decision, candidateIDs(res))
	}
}

// TestARequestThatMeetsOnlyItsVerbIsLow: another API's request ("Add
// License", "Publish Mock") asked of a small catalog meets it by its verb
// alone. In a title every word is capitalised, so capitals do not make
// its unknown words names (values that do not count), and a leader that
// meets nothing but the verb does not show that the catalog serves the
// request: find lists the candidates, low, and nothing runs.
func TestARequestThatMeetsOnlyItsVerbIsLow(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("vt.policy.post_policy", "POST", "Creates a new policy from scratch.", "/api/policy-engine/policies/{id}", operations.KindWrite),
		httpOp("vt.policy.get_policies", "GET", "Lists all policies.", "/api/policy-engine/policies", operations.KindRead),
		httpOp("vt.policy.get_policy", "GET", "Gets a policy by its id.", "/api/policy-engine/policies/{id}", operations.KindRead),
		httpOp("vt.policy.put_policy", "PUT", "Updates a policy.", "/api/policy-engine/policies/{id}", operations.KindWrite),
		httpOp("vt.policy.delete_policy", "DELETE", "Deletes a policy.", "/api/policy-engine/policies/{id}", operations.KindDestructive),
		httpOp("vt.evaluation.post_evaluate", "POST", "Evaluates the policies that apply to a context.", "/api/policy-engine/evaluate", operations.KindWrite),
	}
	r := New(ops, Options{})
	// named-object also keeps a verb before a capitalised word from
	// running, verb-alone a leader that meets only the verb, and
	// unnamed-writes a write whose name says no word of the request, and
	// unnamed-heads a leader whose resource the request does not name;
	// off here, so that the test shows what title-case does.
	noTitles := New(ops, Options{Ablate: []string{"title-case", "named-object", "verb-alone", "unnamed-writes", "unnamed-heads"}})
	noVerbOnly := New(ops, Options{Ablate: []string{"verb-only", "unknown-object"}}) // "License" is no word of the catalog either
	titles := []string{"Add License", "Publish Mock", "Register Vehicle"}
	lowOnlyWith(t, r, noVerbOnly, "verb-only", titles...)
	for _, q := range titles {
		if off := noTitles.Search(q, Filter{}, 5); off.Decision != DecisionRun {
			t.Errorf("%q with title-case off: %s; the test no longer shows what the rule does", q, off.Decision)
		}
	}
	// What the catalog serves still runs, a title or not, and a name in a
	// sentence is still a value.
	for q, want := range map[string]string{
		"Delete Policy 7":              "vt.policy.delete_policy",
		"Create a new policy":          "vt.policy.post_policy",
		"delete the policy of Bluefin": "vt.policy.delete_policy",
	} {
		if res := r.Search(q, Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != want {
			t.Errorf("%q: %s %v, want a run of %s", q, res.Decision, candidateIDs(res), want)
		}
	}
}

// TestAVerbAloneDoesNotRun: "Delete" and "register", asked of a catalog
// whose operations meet them by the verb alone (in their descriptions or
// params), say what to do and not to what; even where one operation is
// the only delete, deleting it is a guess (ablation "verb-alone"). An
// operation named for the verb (POST /register) is what the word asks.
func TestAVerbAloneDoesNotRun(t *testing.T) {
	keys := []*operations.Operation{
		httpOp("api.server_keys.delete_key", "DELETE", "Deletes the server key with the given name.", "/servers/{serverName}/keys/{keyName}", operations.KindDestructive),
		httpOp("api.server_keys.get_key", "GET", "Gets a server key.", "/servers/{serverName}/keys/{keyName}", operations.KindRead),
		httpOp("api.server_keys.list_keys", "GET", "Lists the server keys.", "/servers/{serverName}/keys", operations.KindRead),
	}
	r := New(keys, Options{})
	// unnamed-writes also keeps the delete from running, its name
	// (/servers/keys) does not say "delete", and so does unnamed-heads:
	// "Delete" names no key.
	off := New(keys, Options{Ablate: []string{"verb-alone", "unnamed-writes", "unnamed-heads"}})
	res := r.Search("Delete", Filter{}, 5)
	if res.Decision == DecisionRun || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "api.server_keys.delete_key" {
		t.Errorf("Delete: %s %v, want no run with the key's delete listed first", res.Decision, candidateIDs(res))
	}
	if res := off.Search("Delete", Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("Delete with verb-alone off: %s; the test no longer shows what the rule does", res.Decision)
	}
	if res := r.Search("delete the server key", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "api.server_keys.delete_key" {
		t.Errorf("delete the server key: %s %v, want a run of the key's delete", res.Decision, candidateIDs(res))
	}
	named := New([]*operations.Operation{
		httpOp("api.auth.post_register", "POST", "Creates an account for a new user.", "/register", operations.KindWrite),
		httpOp("api.auth.post_login", "POST", "Signs a user in.", "/login", operations.KindWrite),
	}, Options{})
	if res := named.Search("register", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "api.auth.post_register" {
		t.Errorf("register: %s %v, want a run of POST /register, which is named for it", res.Decision, candidateIDs(res))
	}
}

// TestHeadNouns: a capitalised word that ends a phrase opened by an
// article is a kind of thing ("the default Datastore"), and so is one
// that "a list of" lists ("Return a list of Divisions": a list holds
// kinds of things, not one named value); a name elsewhere is a value. TestAnotherAPIsRequestDoesNotRun shows what it changes.
func TestHeadNouns(t *testing.T) {
	for q, want := range map[string][]string{
		"Get the default Datastore.":            {"datastore"},
		"Returns a specific Workgroup":          {"workgroup"},
		"Return a list of Divisions":            {"divisions"},
		"the collection of Widgets":             {"widgets"},
		"assign to Marcus":                      nil,
		"list the members of the Acme org":      nil,
		"show the tickets of Marcus at Acme":    nil,
		"follow the artist of the album Mojito": nil,
	} {
		words := strings.Fields(strings.ToLower(strings.Trim(q, ".")))
		resource := func(w string) bool { return w == "album" || w == "artist" }
		if got := headNouns(words, properNames(q, nil), nil, resource, true); !slices.Equal(got, want) {
			t.Errorf("headNouns(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestTitleCase(t *testing.T) {
	for s, want := range map[string]bool{
		"Driving License": true, "Get Article by articleId": true, "ID Card": true, "Registration of Vehicles": true,
		"List Datastores": true, "assign to Marcus": false, "give 32 to Marcus at Bluefin": false,
		// Capitals alone cannot tell this sentence from a title.
		"Give 32 to Marcus at Bluefin": true,
		"Gets the public component":    false, "License": false, "SLA CSV": false, "Get the ID": false,
	} {
		if got := titleCase(s); got != want {
			t.Errorf("titleCase(%q) = %v, want %v", s, got, want)
		}
	}
}

// A read that names one thing does not run a list. Google's APIs read an
// item at GET /v2/{name}, whose path says no resource word, so "Gets a
// runtime version" leads with the list of runtime versions on its words;
// listing them first is the best the words allow, running the list is a
// guess. The plural request still runs it.
func TestOneThingDoesNotRunAList(t *testing.T) {
	ops := tpuCatalog()
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"one-not-list"}})
	for _, q := range []string{"Gets a runtime version.", "Get an accelerator type"} {
		res := on.Search(q, Filter{}, 5)
		if res.Decision == DecisionRun {
			t.Errorf("%q runs %s: a list for one thing is a guess", q, res.Candidates[0].Op.ID)
		}
		if !slices.Contains(candidateIDs(res), "tpu.projects.get_v2_name") {
			t.Errorf("%q: %v, want the item read listed", q, candidateIDs(res))
		}
		if res := off.Search(q, Filter{}, 5); res.Decision != DecisionRun {
			t.Errorf("%q with one-not-list off: %s; the test no longer shows what the rule does", q, res.Decision)
		}
	}
	if res := on.Search("get runtime versions", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "tpu.projects.get_v2_parent_runtime_versions" {
		t.Errorf("get runtime versions: %s %v, want the list run", res.Decision, candidateIDs(res))
	}
}

// tpuCatalog is a Google-style API whose item read, GET /v2/{name}, says
// no resource word.
func tpuCatalog() []*operations.Operation {
	return []*operations.Operation{
		httpOp("tpu.projects.get_v2_parent_runtime_versions", "GET", "Lists runtime versions supported by this API.", "/v2/{parent}/runtimeVersions", operations.KindRead),
		httpOp("tpu.projects.get_v2_parent_accelerator_types", "GET", "Lists accelerator types supported by this API.", "/v2/{parent}/acceleratorTypes", operations.KindRead),
		httpOp("tpu.projects.get_v2_parent_nodes", "GET", "Lists nodes.", "/v2/{parent}/nodes", operations.KindRead),
		httpOp("tpu.projects.post_v2_parent_nodes", "POST", "Creates a node.", "/v2/{parent}/nodes", operations.KindWrite),
		httpOp("tpu.projects.get_v2_name", "GET", "", "/v2/{name}", operations.KindRead),
		httpOp("tpu.projects.delete_v2_name", "DELETE", "Deletes a node.", "/v2/{name}", operations.KindDestructive),
	}
}

// How many things a read asks for is its object's number, not that of a
// word describing it: "the details of a runtime version" and "a runtime
// version that contains accelerator types" are one version, whose list is
// not run; "the nodes of a project" are many.
func TestDescribingWordsDoNotMakeAList(t *testing.T) {
	ops := tpuCatalog()
	ops[0].Description = "Returns the details of each runtime version: a list of RuntimeVersion objects that contain information about the version."
	r := New(ops, Options{})
	for q, rule := range map[string]string{
		"Gets the details of a runtime version.":                                       "parts-of",
		"Returns a RuntimeVersion object that contains information about the version.": "relative-clause",
	} {
		res := r.Search(q, Filter{}, 5)
		if res.Decision == DecisionRun {
			t.Errorf("%q runs %s: it asks for one runtime version", q, res.Candidates[0].Op.ID)
		}
		if res := New(ops, Options{Ablate: []string{rule}}).Search(q, Filter{}, 5); res.Decision != DecisionRun {
			t.Errorf("%q with %s off: %s; the test no longer shows what the rule does", q, rule, res.Decision)
		}
	}
	if res := r.Search("Gets the nodes of a project", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != "tpu.projects.get_v2_parent_nodes" {
		t.Errorf("Gets the nodes of a project: %s %v, want the list of nodes run (nodes are a resource here)", res.Decision, candidateIDs(res))
	}
}

// The request's object is the phrase at its first resource word after the
// verb; a possessive joins its owner to it, and a word before the verb is
// not it.
func TestRequestObject(t *testing.T) {
	r := New([]*operations.Operation{
		httpOp("cfg.rules.delete_rule", "DELETE", "Deletes a config rule.", "/config/rules/{name}", operations.KindDestructive),
		httpOp("cfg.results.delete_results", "DELETE", "Deletes evaluation results.", "/results/{name}", operations.KindDestructive),
		httpOp("cfg.customers.list_configurations", "GET", "Lists configurations.", "/customers/{id}/configurations", operations.KindRead),
		httpOp("cfg.domains.register", "POST", "Registers a domain.", "/domains", operations.KindWrite),
		httpOp("cfg.operations.get", "GET", "Gets an operation.", "/operations/{id}", operations.KindRead),
	}, Options{})
	for q, want := range map[string][]string{
		"Deletes the specified Config rule and all of its evaluation results": {"config", "rule"},
		"Lists a customer's configurations":                                   {"customer", "configuration"},
		"This operation registers a domain":                                   {"domain"},
	} {
		sc := r.pool.Get().(*scratch)
		groups, _ := r.analyze(q, sc)
		var got []string
		for _, t := range object(groups, sc.words, nil) {
			for w, id := range r.idx.terms {
				if id == t && !slices.Contains(got, w) {
					got = append(got, w)
				}
			}
		}
		sc.clear()
		r.pool.Put(sc)
		for _, w := range want {
			if !slices.ContainsFunc(got, func(g string) bool {
				return strings.TrimPrefix(g, "~") == w || strings.HasPrefix(w, strings.TrimPrefix(g, "~"))
			}) {
				t.Errorf("%q: object %v, want it to hold %q", q, got, w)
			}
		}
		if slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, "result") || strings.Contains(g, "operation") }) {
			t.Errorf("%q: object %v holds a word that is not the object", q, got)
		}
	}
}

// TestEvaluateMarksReadsTakenAsWrites: the misses mark the read requests
// the reads→writes share counts, so they can be read. "transfer history"
// asks for the list of transfers, but its first word is taken as the
// verb; "list the balance transfers" reads and is not listed at all. A
// miss says which catalog it was asked of.
func TestEvaluateMarksReadsTakenAsWrites(t *testing.T) {
	list := []string{"bank.transfers.get_balance_transfers"}
	rep := Evaluate(New(bankOps(), Options{}), []Query{
		{Query: "transfer history", Labels: list, Source: "bank"},
		{Query: "list the balance transfers", Labels: list, Source: "bank"},
	}, EvalOptions{Misses: true})
	var marked []string
	for _, m := range rep.Misses {
		if m.ReadAsWrite {
			marked = append(marked, m.Query)
		}
		if m.Source != "bank" {
			t.Errorf("miss %q names source %q, want the query's", m.Query, m.Source)
		}
	}
	if rep.All.ReadsAsWrites != 0.5 || !slices.Equal(marked, []string{"transfer history"}) {
		t.Errorf("reads→writes %.2f, marked %q; want 0.50 and [transfer history]", rep.All.ReadsAsWrites, marked)
	}
}

// musicCatalog is a few operations of Spotify's Web API, as its spec
// names them: several say "follow", one says "create".
func musicCatalog() []*operations.Operation {
	return []*operations.Operation{
		httpOp("music.users.follow_artists_users", "PUT", "Follow Artists or Users", "/me/following", operations.KindWrite),
		httpOp("music.users.unfollow_artists_users", "DELETE", "Unfollow Artists or Users", "/me/following", operations.KindDestructive),
		httpOp("music.users.get_followed", "GET", "Get Followed Artists", "/me/following", operations.KindRead),
		httpOp("music.users.check_current_user_follows", "GET", "Check If User Follows Artists or Users", "/me/following/contains", operations.KindRead),
		httpOp("music.users.follow_playlist", "PUT", "Follow Playlist", "/playlists/{playlist_id}/followers", operations.KindWrite),
		httpOp("music.playlists.create_playlist", "POST", "Create Playlist", "/users/{user_id}/playlists", operations.KindWrite),
		httpOp("music.playlists.get_playlist", "GET", "Get Playlist", "/playlists/{playlist_id}", operations.KindRead),
		httpOp("music.tracks.get_track", "GET", "Get Track", "/tracks/{id}", operations.KindRead),
		httpOp("music.artists.get_an_artist", "GET", "Get Artist", "/artists/{id}", operations.KindRead),
		httpOp("music.artists.get_an_artists_albums", "GET", "Get Artist's Albums", "/artists/{id}/albums", operations.KindRead),
		httpOp("music.albums.get_an_album", "GET", "Get Album", "/albums/{id}", operations.KindRead),
	}
}

// A user's verb that the catalog says is searched as itself first: the
// verbs of its class ("create" for "follow") count no more than it does,
// however rare they are in the catalog. A verb the catalog never says
// still finds its class's operations.
func TestAVerbCountsMoreThanItsClass(t *testing.T) {
	ops := musicCatalog()
	leadsOnlyWith(t, ops, "verb-idf", map[string]string{
		"Follow Taylor Swift": "music.users.follow_artists_users",
	})
	r := New(ops, Options{})
	// "make" is searched as its class: the create leads.
	leads(t, r, map[string]string{"make a playlist called Quiet": "music.playlists.create_playlist"})
}

// An example's intent is indexed without the names it passes as values:
// the customer's create, whose example adds someone "from Bluefin", is not
// an answer to a request about Bluefin's tickets.
func TestExampleValuesAreNotAnOperationsWords(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	leadsOnlyWith(t, reg.All(), "example-values", map[string]string{
		"tickets from Bluefin Retail": "helpdesk.tickets.list",
	})
	for _, c := range []struct {
		e    operations.Example
		want string
	}{
		{operations.Example{Intent: "add Jane Doe from Bluefin as a customer", Params: map[string]any{"name": "Jane Doe", "email": "jane.doe@bluefin.example"}}, "add from as a customer"},
		// Lower-case words and the first word stay, values or not; a
		// capitalised word no value says stays.
		{operations.Example{Intent: "Open tickets for Slack", Params: map[string]any{"status": "open", "org": "Acme"}}, "Open tickets for Slack"},
		{operations.Example{Intent: "show Acme's tickets", Params: map[string]any{"org": "Acme"}}, "show tickets"},
		{operations.Example{Intent: "close ticket 42", Params: map[string]any{"id": 42}}, "close ticket 42"},
	} {
		if got := exampleWords(c.e); got != c.want {
			t.Errorf("exampleWords(%q) = %q, want %q", c.e.Intent, got, c.want)
		}
	}
}

// A request whose verb is followed by a name the catalog does not say
// acts on something named, of a kind its words do not give: it is not run
// on the operation its other words meet.
func TestANamedObjectIsNotRun(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	on, off := New(reg.All(), Options{}), New(reg.All(), Options{Ablate: []string{"named-object"}})
	q := "put Bluefin Retail on the premium SLA"
	if res := on.Search(q, Filter{}, 5); res.Decision == DecisionRun {
		t.Errorf("%q runs %s: what Bluefin Retail is, the request does not say", q, res.Candidates[0].Op.ID)
	}
	if res := off.Search(q, Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("%q with named-object off: %s; the test no longer shows what the rule does", q, res.Decision)
	}
	// A possessive name says whose; the object follows it.
	for _, q := range []string{"list Bluefin Retail's tickets", "show Marcus's ticket 42", "delete ticket 42"} {
		if res := on.Search(q, Filter{}, 5); res.Decision != DecisionRun {
			t.Errorf("%q: %s, want a run: its object is no name", q, res.Decision)
		}
	}
}

// "make" creates what its object introduces and changes what its object
// determines or names.
func TestWhatMakeAsks(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	leadsOnlyWith(t, reg.All(), "make-sense", map[string]string{
		"make Yusuf an admin": "helpdesk.users.update",
	})
	for q, want := range map[string]verbClass{
		"make a playlist":                   verbCreate,
		"make me a playlist called Quiet":   verbCreate,
		"make my top tracks a new playlist": verbCreate,
		"make my first playlist private":    verbUpdate,
		"make the refunds macro shared":     verbUpdate,
		"make Yusuf an admin":               verbUpdate,
		"make":                              verbCreate,
	} {
		words := strings.Fields(strings.ToLower(q)) // as analyze reads them
		if got := makeSense(words, 0, properNames(q, nil)); got != want {
			t.Errorf("makeSense(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestAWriteRunsOnlyWhenItsNameSaysTheRequest: "Delete a Resource", a
// request of another API, meets an advisor API's delete of a suppression
// only in the name of its {resourceUri} parameter. Deleting the
// suppression would be a guess the caller cannot undo, so the delete is
// listed first and does not run (ablation "unnamed-writes"). A write whose
// name says what the request names still runs, and so does one whose body
// sets the field the request names ("update my bio") or whose path names
// the caller the request names ("update my account" runs PATCH /user,
// though "account" is only the lexicon's synonym of a user).
func TestAWriteRunsOnlyWhenItsNameSaysTheRequest(t *testing.T) {
	const suppression = "/{resourceUri}/providers/Microsoft.Advisor/recommendations/{recommendationId}/suppressions/{name}"
	ops := []*operations.Operation{
		httpOp("api.suppressions.delete_suppression", "DELETE", "Enables the snoozed or dismissed attribute of a recommendation for the resource.", suppression, operations.KindDestructive),
		httpOp("api.suppressions.get_suppression", "GET", "Obtains the details of a suppression.", suppression, operations.KindRead),
		httpOp("api.suppressions.put_suppression", "PUT", "Snoozes or dismisses a recommendation.", suppression, operations.KindWrite),
		httpOp("api.recommendations.get_recommendations", "GET", "Obtains cached recommendations for a subscription.", "/subscriptions/{subscriptionId}/providers/Microsoft.Advisor/recommendations", operations.KindRead),
	}
	for _, op := range ops[:3] {
		op.Input = json.RawMessage(`{"type":"object","properties":{"resourceUri":{"type":"string","description":"The fully qualified Azure Resource Manager identifier of the resource."},"recommendationId":{"type":"string"},"name":{"type":"string"}}}`)
	}
	users := []*operations.Operation{
		httpOp("api.users.update_authenticated", "PATCH", "Updates the signed-in account.", "/user", operations.KindWrite),
		httpOp("api.users.get_authenticated", "GET", "Gets the signed-in account.", "/user", operations.KindRead),
		httpOp("api.users.list_followers", "GET", "Lists the people following the signed-in account.", "/user/followers", operations.KindRead),
		httpOp("api.users.get_by_username", "GET", "Gets a user's public profile.", "/users/{username}", operations.KindRead),
	}
	users[0].Input = json.RawMessage(`{"type":"object","properties":{"body":{"type":"object","properties":{"bio":{"type":"string"},"location":{"type":"string"}}}}}`)

	// unnamed-heads keeps the delete from running too: "Resource" names
	// no suppression.
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"unnamed-writes", "unnamed-heads"}})
	const q = "Delete a Resource"
	if res := on.Search(q, Filter{}, 5); res.Decision == DecisionRun || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != "api.suppressions.delete_suppression" {
		t.Errorf("%q: %s %v, want no run, with the suppression's delete listed first", q, res.Decision, candidateIDs(res))
	}
	if res := off.Search(q, Filter{}, 5); res.Decision != DecisionRun {
		t.Errorf("%q with unnamed-writes off: %s; the test no longer shows what the rule does", q, res.Decision)
	}
	for r, cases := range map[*Router]map[string]string{
		on:                    {"delete the suppression": "api.suppressions.delete_suppression"},
		New(users, Options{}): {"update my bio": "api.users.update_authenticated", "update my account": "api.users.update_authenticated"},
	} {
		for q, want := range cases {
			if res := r.Search(q, Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != want {
				t.Errorf("%q: %s %v, want a run of %s", q, res.Decision, candidateIDs(res), want)
			}
		}
	}
}

// A singular meets its plural at full weight where English keeps the
// singular's final s ("alias", "analysis", "status"): before, "analysis"
// folded to "analysi" and "analyses" to "analyse", and no form of the one
// met the other.
func TestASingularInSMeetsItsPlural(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("api.analyses.get", "GET", "Returns one.", "/analyses/{id}", operations.KindRead),
		httpOp("api.aliases.delete", "DELETE", "Removes one.", "/domains/{domain}/aliases/{name}", operations.KindDestructive),
		httpOp("api.statuses.create", "POST", "Sets one for a commit.", "/repos/{owner}/{repo}/statuses/{sha}", operations.KindWrite),
		httpOp("api.reports.get", "GET", "Returns a report.", "/reports/{id}", operations.KindRead),
		httpOp("api.domains.get", "GET", "Returns a domain.", "/domains/{domain}", operations.KindRead),
	}
	r := New(ops, Options{})
	for q, want := range map[string]string{
		"get the analysis":              "api.analyses.get",
		"delete an alias of the domain": "api.aliases.delete",
		"create a commit status":        "api.statuses.create",
	} {
		res := r.Search(q, Filter{}, 5)
		if len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want || res.Decision == DecisionNoMatch {
			t.Errorf("%q: %s %v, want %s first", q, res.Decision, candidateIDs(res), want)
		}
	}
}

// A word the corpus says changes state, though in no class the router
// searches for (the learned table's "write" rows: "accept", "reset"),
// makes the request a write: a read-only server says writes are off
// instead of offering the reads as if one served it. The ranking is
// the same either way; a collection of the catalog in that place is its
// noun ("Order status").
func TestAWordThatChangesStateAsksForAWrite(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("gh.invitations.list", "GET", "Lists the repository invitations the caller has been sent.", "/user/repository_invitations", operations.KindRead),
		httpOp("gh.invitations.join", "PATCH", "", "/user/repository_invitations/{invitation_id}", operations.KindWrite),
		httpOp("gh.invitations.turn_down", "DELETE", "", "/user/repository_invitations/{invitation_id}", operations.KindDestructive),
		httpOp("gh.orgs.invitations", "GET", "Lists the pending invitations of an organization.", "/orgs/{org}/invitations", operations.KindRead),
		httpOp("gh.orgs.invitation_teams", "GET", "Lists the teams an organization invitation is for.", "/orgs/{org}/invitations/{invitation_id}/teams", operations.KindRead),
		httpOp("gh.repos.invitations", "GET", "Lists the open invitations of a repository.", "/repos/{owner}/{repo}/invitations", operations.KindRead),
		httpOp("shop.orders.get", "GET", "Returns an order and its status.", "/orders/{id}", operations.KindRead),
		httpOp("shop.orders.create", "POST", "Places an order.", "/orders", operations.KindWrite),
	}
	on, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"change-words"}})
	readOnly := readOnlyFilter(on)
	for _, q := range []string{"Accept a repository invitation", "Accepts the invitation to a repository", "Reset the repository invitation"} {
		res := on.Search(q, readOnly, 5)
		if res.Verb != operations.KindWrite {
			t.Errorf("%q, read-only: verb %q, want %q", q, res.Verb, operations.KindWrite)
		}
		if res := off.Search(q, readOnly, 5); res.Verb != "" || res.Hidden != nil {
			t.Errorf("%q with change-words off: verb %q, hidden %v (the test does not test the rule)", q, res.Verb, res.Hidden)
		}
		if a, b := candidateIDs(on.Search(q, Filter{}, 5)), candidateIDs(off.Search(q, Filter{}, 5)); !slices.Equal(a, b) {
			t.Errorf("%q: the rule moved the ranking: %v, off %v", q, a, b)
		}
	}
	if res := on.Search("Order status for order 5", readOnly, 5); res.Verb.IsWrite() {
		t.Errorf("%q, read-only: verb %q; an order is the catalog's noun", "Order status for order 5", res.Verb)
	}
}

// TestAParameterNoteDoesNotRunItsOperation: a request that meets an
// operation only in what its parameters say has named an input the
// operation takes, not what it does. "Deprecated." meets the list of
// skins only in its page parameter's note, and the list's address says
// "skins" and "list", neither of which the request does.
func TestAParameterNoteDoesNotRunItsOperation(t *testing.T) {
	list := httpOp("mc.skins.get_skins_list_page", "GET", "Pages through the skins generated so far.", "/skins/list/{page}", operations.KindRead)
	list.Input = json.RawMessage(`{"type":"object","properties":{"page":{"type":"integer","description":"The page number (numeric paging is deprecated) or the uuid of the last skin of the previous page."}}}`)
	ops := []*operations.Operation{
		list,
		httpOp("mc.skins.get_skins_uuid_uuid", "GET", "Reads one skin by its uuid.", "/skins/uuid/{uuid}", operations.KindRead),
		httpOp("mc.generate.post_generate_url", "POST", "Generates a skin from the image at a URL.", "/generate/url", operations.KindWrite),
	}
	const q = "Deprecated."
	on := New(ops, Options{}).Search(q, Filter{}, 5)
	if on.Decision == DecisionRun {
		t.Errorf("%q ran %s, met only in a parameter's description", q, on.Candidates[0].Op.ID)
	}
	if len(on.Candidates) == 0 || on.Candidates[0].Op.ID != list.ID {
		t.Errorf("%q: %v, want the list still shown first", q, candidateIDs(on))
	}
	if off := New(ops, Options{Ablate: []string{"params-only"}}).Search(q, Filter{}, 5); off.Decision != DecisionRun {
		t.Errorf("%q with params-only off: %s; the test no longer shows what the rule does", q, off.Decision)
	}
	// A request met in a parameter's name and in the address runs.
	if res := New(ops, Options{}).Search("get skin by uuid", Filter{}, 5); res.Decision != DecisionRun || res.Candidates[0].Op.ID != ops[1].ID {
		t.Errorf("get skin by uuid: %s %v, want a run of the skin's read", res.Decision, candidateIDs(res))
	}
}

// configMapOps is a Kubernetes-like resource whose PUT and PATCH share an
// address, described by put and patch.
func configMapOps(put, patch string) []*operations.Operation {
	const item = "/api/v1/namespaces/{namespace}/configmaps/{name}"
	return []*operations.Operation{
		httpOp("k8s.core_v1.put_api_v1_namespaces_namespace_configmaps_name", "PUT", put, item, operations.KindWrite),
		httpOp("k8s.core_v1.patch_api_v1_namespaces_namespace_configmaps_name", "PATCH", patch, item, operations.KindWrite),
		httpOp("k8s.core_v1.get_api_v1_namespaces_namespace_configmaps_name", "GET", "Reads the specified ConfigMap.", item, operations.KindRead),
		httpOp("k8s.core_v1.delete_api_v1_namespaces_namespace_configmaps_name", "DELETE", "Deletes a ConfigMap.", item, operations.KindDestructive),
		httpOp("k8s.core_v1.post_api_v1_namespaces_namespace_configmaps", "POST", "Creates a ConfigMap.", "/api/v1/namespaces/{namespace}/configmaps", operations.KindWrite),
	}
}

// TestTheExtentOfAChangeChoosesPutOrPatch: a request that changes part of
// a resource asks for its PATCH (RFC 5789), one that replaces it for its
// PUT (RFC 9110), whichever of the two the words meet better. The word of
// extent is not one an operation has to meet: "overwrite a config map"
// is no "nothing here serves that".
func TestTheExtentOfAChangeChoosesPutOrPatch(t *testing.T) {
	updatingPut := configMapOps("Updates the specified ConfigMap.", "Applies a patch to the specified ConfigMap.")
	leadsOnlyWith(t, updatingPut, "part-or-whole", map[string]string{
		"partially update the specified ConfigMap":    updatingPut[1].ID,
		"a partial update of config map app-settings": updatingPut[1].ID,
	})
	leads(t, New(updatingPut, Options{}), map[string]string{"update the specified ConfigMap": updatingPut[0].ID})
	updatingPatch := configMapOps("Writes the specified ConfigMap.", "Updates the specified ConfigMap.")
	leadsOnlyWith(t, updatingPatch, "part-or-whole", map[string]string{
		"replace the specified ConfigMap": updatingPatch[0].ID,
		"overwrite a config map":          updatingPatch[0].ID,
	})
	// Replacing only some of it is a part.
	leads(t, New(updatingPatch, Options{}), map[string]string{
		"This replaces only the ConfigMap properties specified in the request.": updatingPatch[1].ID,
	})
	if res := New(updatingPatch, Options{}).Search("overwrite a config map", Filter{}, 5); res.Decision == DecisionNoMatch {
		t.Errorf("overwrite a config map: %s, want the PUT offered as an answer", res.Decision)
	}
}

// proxyOps is a Kubernetes-like proxy of a pod: one address, an
// operation per method, each known by its address alone, as the corpus
// benchmark serves an operation whose summary and operationId it
// withholds (the ids are numbered: a method in an id is a word it meets).
func proxyOps() []*operations.Operation {
	const path = "/api/v1/namespaces/{namespace}/pods/{name}/proxy"
	var ops []*operations.Operation
	for i, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"} {
		kind := operations.KindWrite
		switch m {
		case "GET", "HEAD", "OPTIONS":
			kind = operations.KindRead
		case "DELETE":
			kind = operations.KindDestructive
		}
		ops = append(ops, httpOp(fmt.Sprintf("k8s.core_v1.pod_proxy_%d", i+1), m, "Connects to the proxy of a Pod.", path, kind))
	}
	return ops
}

// TestARequestThatNamesAMethodGetsIt: "Get field data of the pod's proxy
// (POST)" asks for the POST at the proxy's address, though its verb says
// GET; a method named in capitals says which of the seven the request
// means. A request that names none gets the GET, and one that names two
// names neither.
func TestARequestThatNamesAMethodGetsIt(t *testing.T) {
	ops := proxyOps()
	leadsOnlyWith(t, ops, "said-methods", map[string]string{
		"Get field data of the pod's proxy (POST)":    ops[1].ID,
		"Fetch the pod proxy with POST":               ops[1].ID,
		"read the proxy of a pod with a HEAD request": ops[5].ID,
	})
	leads(t, New(ops, Options{}), map[string]string{
		"connect requests to proxy of Pod":         ops[0].ID,
		"connect OPTIONS requests to proxy of Pod": ops[6].ID,
	})
	if got := saidMethod("send a PUT or a PATCH request"); got != "" {
		t.Errorf("two methods said: %q, want none", got)
	}
	if got := saidMethod("PUTS and OPTIONSX, GETting"); got != "" {
		t.Errorf("words that only start like a method: %q, want none", got)
	}
	if got := saidMethod("the PUT's body (see PUT /pods)"); got != "PUT" {
		t.Errorf("one method said twice: %q, want PUT", got)
	}
}

// TestAHeadAnswersWhetherSomethingExists: a HEAD returns the headers its
// GET would and no content (RFC 9110), so a request to read something
// gets the GET at the address, and one that asks whether the thing
// exists, to check it, or for its entity tag, gets the HEAD, whichever
// the catalog lists first. The two are told apart by their methods
// alone (numbered ids, one description), as where a catalog's words do
// not say which.
func TestAHeadAnswersWhetherSomethingExists(t *testing.T) {
	const item = "/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}"
	headFirst := []*operations.Operation{
		httpOp("arm.resource_groups.resource_group_1", "HEAD", "A resource group.", item, operations.KindRead),
		httpOp("arm.resource_groups.resource_group_2", "GET", "A resource group.", item, operations.KindRead),
		httpOp("arm.resource_groups.resource_group_3", "DELETE", "Deletes a resource group.", item, operations.KindDestructive),
		httpOp("arm.resource_groups.resource_groups_4", "GET", "Lists the resource groups.", "/subscriptions/{subscriptionId}/resourcegroups", operations.KindRead),
	}
	leadsOnlyWith(t, headFirst, "header-reads", map[string]string{
		"the resource group": headFirst[1].ID,
	})
	getFirst := []*operations.Operation{headFirst[1], headFirst[0], headFirst[2], headFirst[3]}
	leadsOnlyWith(t, getFirst, "header-reads", map[string]string{
		"Checks whether a resource group exists.":          headFirst[0].ID,
		"Gets the entity state (Etag) of a resource group": headFirst[0].ID,
		"the resource group's ETag":                        headFirst[0].ID,
		"Check resource group rg-7":                        headFirst[0].ID,
	})
}

func TestSignedInSaysWhoIsCalling(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("code.users.get_user", "GET", "Gets the authenticated user.", "/user", operations.KindRead),
		httpOp("code.users.get_users_username", "GET", "Gets a user.", "/users/{username}", operations.KindRead),
		httpOp("code.user.get_user_repos", "GET", "Lists the repositories of the authenticated user.", "/user/repos", operations.KindRead),
		httpOp("code.actions.get_logs", "GET", "Downloads the logs of a workflow run. Each step's output is logged.", "/repos/{owner}/{repo}/actions/runs/{run_id}/logs", operations.KindRead),
		httpOp("code.actions.get_retention", "GET", "Gets how long logs are kept.", "/repos/{owner}/{repo}/actions/permissions/logs-retention", operations.KindRead),
		httpOp("code.users.get_signing_key", "GET", "Gets an SSH signing key of the authenticated user's account, with which commits are signed.", "/user/ssh_signing_keys/{key_id}", operations.KindRead),
		httpOp("code.users.get_user_orgs", "GET", "Lists the organizations of the authenticated user.", "/user/orgs", operations.KindRead),
		httpOp("code.users.get_user_emails", "GET", "Lists the email addresses of the authenticated user.", "/user/emails", operations.KindRead),
		httpOp("code.users.get_user_followers", "GET", "Lists the people following the authenticated user.", "/user/followers", operations.KindRead),
		httpOp("code.issues.get_issues", "GET", "Lists the issues of a repository.", "/repos/{owner}/{repo}/issues", operations.KindRead),
		httpOp("code.pulls.get_pulls", "GET", "Lists the pull requests of a repository.", "/repos/{owner}/{repo}/pulls", operations.KindRead),
		httpOp("code.repos.get_repo", "GET", "Gets a repository.", "/repos/{owner}/{repo}", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "signed-in", map[string]string{
		"who am I logged in as": "code.users.get_user",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"which account am I logged in with": "code.users.get_user",
		"who am I signed in as":             "code.users.get_user",
		// Before anything else, "logged in" is a word of the request.
		"what was logged in the run": "code.actions.get_logs",
	})
}

// TestQuantityAndSizeWordsMeetTheirNouns: a request says "several" and
// "biggest" where a tool says "multiple" and "sizes" (the filesystem MCP
// server's read_multiple_files and list_directory_with_sizes).
func TestQuantityAndSizeWordsMeetTheirNouns(t *testing.T) {
	tool := func(id, summary string) *operations.Operation {
		return &operations.Operation{ID: id, Summary: summary, Kind: operations.KindRead}
	}
	ops := []*operations.Operation{
		tool("files.read_file", "Read the complete contents of a file from the file system."),
		tool("files.read_multiple_files", "Read the contents of multiple files simultaneously."),
		tool("files.list_directory", "Get a detailed listing of all files and directories in a specified path."),
		tool("files.list_directory_with_sizes", "Get a detailed listing of all files and directories in a specified path, including sizes."),
		tool("files.get_file_info", "Retrieve detailed metadata about a file or directory."),
	}
	leadsOnlyWith(t, ops, "synonyms", map[string]string{
		"read several files at once":                 "files.read_multiple_files",
		"which files in this folder are the biggest": "files.list_directory_with_sizes",
	})
}

// TestWhatARequestPointsAtIsAParameter: "this corporate account" points
// at one account, which an operation has to be told; the caller's own
// list (GET /corporate/permissions) meets every word of the request
// ("the permissions available to the corporate account"), and the
// account's (GET /corporates/{corporate_id}/permissions) is the one
// asked for. Without "this", the caller's list stays first.
func TestWhatARequestPointsAtIsAParameter(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("tr.corporate.get_corporate_permissions", "GET", "Lists the permissions available to the corporate account you are signed in with.", "/corporate/permissions", operations.KindRead),
		httpOp("tr.corporate.get_corporates_id_permissions", "GET", "", "/corporates/{corporate_id}/permissions", operations.KindRead),
		httpOp("tr.corporate.get_corporate_users", "GET", "Lists the users of the corporate account.", "/corporate/users", operations.KindRead),
		httpOp("tr.corporate.get_corporates_id", "GET", "Gets a corporate account.", "/corporates/{corporate_id}", operations.KindRead),
		httpOp("tr.projects.get_projects", "GET", "Lists projects.", "/projects", operations.KindRead),
		httpOp("tr.user.get_permissions", "GET", "Returns a list of your permissions, those you are authorized for.", "/permissions", operations.KindRead),
		httpOp("tr.user.get_user_id_permissions", "GET", "", "/{userId}/permissions", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "pointed-at", map[string]string{
		"Get a list of available permissions for this corporate account": "tr.corporate.get_corporates_id_permissions",
		"Returns a list of permissions that this user is authorized for": "tr.user.get_user_id_permissions",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"list the permissions available to the corporate account": "tr.corporate.get_corporate_permissions",
	})
}
