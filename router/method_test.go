package router

import (
	"slices"
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

func TestImpliedVerbAndNames(t *testing.T) {
	if v := impliedVerb([]string{"ticket", "42"}); v != verbRead {
		t.Errorf("ticket 42: %v, want read", v)
	}
	if v := impliedVerb([]string{"open", "tickets"}); v != verbList {
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
	if res := r.Search("delete ticket", ro, 5); res.Decision != DecisionNoMatch || res.Verb != operations.KindDestructive {
		t.Errorf("delete ticket (read-only): %s verb %q, want no_match destructive", res.Decision, res.Verb)
	}
	if res := r.Search("show ticket 4", ro, 5); res.Decision == DecisionNoMatch {
		t.Errorf("show ticket 4 (read-only): no_match")
	}
}

// TestSummaryStatedInFull: GitHub-shaped operations where the short
// summary the query states in full must beat longer summaries that only
// contain its words, and an acronym plural ("PRs") must reach pull
// requests.
func TestSummaryStatedInFull(t *testing.T) {
	mk := func(id, summary, method, path string) *operations.Operation {
		return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Summary: summary, Kind: operations.KindRead,
			HTTP: &operations.HTTPBinding{Method: method, Path: path}}
	}
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
	r := New(ops, Options{})
	for q, want := range map[string]string{
		"get a repository":              "gh.repos.get",
		"list pull requests for a repo": "gh.pulls.list",
		"list the PRs of a repo":        "gh.pulls.list",
		// The catalog calls the caller "the authenticated user".
		"who am I":              "gh.users.get_authenticated",
		"show my notifications": "gh.activity.list_notifications_for_authenticated_user",
		// A plural reaches its singular's synonyms: repositories → repo.
		"list my repositories": "gh.repos.list_for_authenticated_user",
	} {
		res := r.Search(q, Filter{}, 3)
		if len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
			var got []string
			for _, c := range res.Candidates {
				got = append(got, c.Op.ID)
			}
			t.Errorf("%q ranked %v, want %s first", q, got, want)
		}
	}
}

// TestDiversifyCoversEveryAsk: a request for several things ranks an
// operation for each thing near the top, not several operations for the
// first thing; the leader is unchanged.
func TestDiversifyCoversEveryAsk(t *testing.T) {
	mk := func(id, summary string) *operations.Operation {
		return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Summary: summary, Kind: operations.KindRead}
	}
	ops := []*operations.Operation{
		mk("social.tweets.search", "Search tweets by keyword"),
		mk("social.tweets.search_latest", "Search the latest tweets by keyword"),
		mk("social.tweets.search_media", "Search tweets with photos by keyword"),
		mk("social.tweets.search_users", "Search users by keyword"),
		mk("social.tweets.retweeters", "Users who retweeted a tweet"),
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
	flat := defaultTuning()
	flat.diversity = 0
	plain, div := top(Options{tune: &flat}, 6), top(Options{}, 6)
	if len(plain) == 0 || len(div) == 0 || plain[0] != div[0] {
		t.Fatalf("leader changed: plain %v, diversified %v", plain, div)
	}
	t.Logf("plain %v\ndiversified %v", plain, div)
	if k := slices.Index(div, "social.tweets.retweeters"); k < 0 || k > 1 || k >= slices.Index(plain, "social.tweets.retweeters") {
		t.Errorf("retweeters at %d of %v (plain ranking %v), want second and higher than plain", k, div, plain)
	}
}

// TestNamedService: a query that names a service as a proper name or as
// "<name> API" prefers that service's operations; the same words said
// plainly do not pick a service.
func TestNamedService(t *testing.T) {
	mk := func(id, summary string) *operations.Operation {
		return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Summary: summary, Kind: operations.KindRead}
	}
	ops := []*operations.Operation{
		mk("link_tools.shorten", "Shorten a long URL into a short link"),
		mk("bitly.shorten", "Shorten a URL"),
		mk("social_feed.posts", "Latest posts from the social feed"),
		mk("twitter.posts", "Latest posts"),
		mk("world_news.latest", "Latest news headlines"),
		mk("news_digest.latest", "Latest headlines"),
	}
	r := New(ops, Options{})
	first := func(q string) string {
		res := r.Search(q, Filter{}, 3)
		if len(res.Candidates) == 0 {
			return ""
		}
		return res.Candidates[0].Op.ID
	}
	for q, want := range map[string]string{
		"shorten a long url into a short link":   "link_tools.shorten",
		"shorten a long url using the bitly API": "bitly.shorten",
		"show the latest posts on Twitter":       "twitter.posts",
		"show the latest news headlines":         "world_news.latest",
		"latest headlines from the News Digest":  "news_digest.latest",
	} {
		if got := first(q); got != want {
			t.Errorf("%q: first %q, want %q", q, got, want)
		}
	}
}
