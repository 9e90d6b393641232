package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"github.com/intentsrv/intentsrv/operations"
)

// A read of a plural lists, even where the read of one item is named for
// the request's verb (ablation "lists-first"): on the embedded help desk,
// "get tickets" led with helpdesk.tickets.get, whose id says "get", and
// tickets.list was not even among the first five, crowded out by every
// other *.get; "show tickets" led with it through its alias
// helpdesk.tickets.show. A number, or a word of one before the noun,
// still reads one.
func TestAPluralReadListsWhereTheItemReadIsNamedForTheVerb(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	on := New(reg.All(), Options{})
	leads(t, on, map[string]string{
		"get tickets":        "helpdesk.tickets.list",
		"show tickets":       "helpdesk.tickets.list",
		"get all tickets":    "helpdesk.tickets.list",
		"get users":          "helpdesk.users.list",
		"get macros":         "helpdesk.macros.list",
		"get ticket 4":       "helpdesk.tickets.get",
		"show ticket 7":      "helpdesk.tickets.get",
		"get a ticket":       "helpdesk.tickets.get",
		"get a single users": "helpdesk.users.get",
	})
	for _, limit := range []int{5, 10, 30} {
		got := candidateIDs(on.Search("get tickets", Filter{}, limit))
		if len(got) == 0 || got[0] != "helpdesk.tickets.list" {
			t.Errorf("limit %d: %v, want helpdesk.tickets.list first", limit, got)
		}
		seen := map[string]bool{}
		for _, id := range got {
			if seen[id] {
				t.Errorf("limit %d: %s is listed twice: %v", limit, id, got)
			}
			seen[id] = true
		}
	}
	off := New(reg.All(), Options{Ablate: []string{"lists-first"}})
	for _, q := range []string{"get tickets", "show tickets"} {
		if got := candidateIDs(off.Search(q, Filter{}, 5)); len(got) == 0 || got[0] != "helpdesk.tickets.get" {
			t.Errorf("%q with lists-first off: %v; the test no longer shows what the rule does", q, got)
		}
	}
}

// The same over HTTP paths: the collection GET .../issues moves ahead of
// GET .../issues/{issue_number} when the item's id says the request's
// verb and the collection's does not (GitHub's issues/get and
// issues/list-for-repo). Where both ids say it, as in a catalog whose ids
// are made of the method and path, nothing moves: the verb then tells
// neither apart.
func TestAPluralReadListsOverPaths(t *testing.T) {
	named := New([]*operations.Operation{
		httpOp("gh.issues.get", "GET", "Get an issue. The API returns a 301 status if the issue was transferred.", "/repos/{owner}/{repo}/issues/{issue_number}", operations.KindRead),
		httpOp("gh.issues.list_for_repo", "GET", "List issues in a repository. Only open issues will be listed.", "/repos/{owner}/{repo}/issues", operations.KindRead),
		httpOp("gh.issues.get_comment", "GET", "Get an issue comment.", "/repos/{owner}/{repo}/issues/comments/{comment_id}", operations.KindRead),
		httpOp("gh.issues.create", "POST", "Create an issue.", "/repos/{owner}/{repo}/issues", operations.KindWrite),
		httpOp("gh.repos.get", "GET", "Get a repository.", "/repos/{owner}/{repo}", operations.KindRead),
	}, Options{})
	leads(t, named, map[string]string{
		"get issues":  "gh.issues.list_for_repo",
		"get issue 5": "gh.issues.get",
	})
	generated := New([]*operations.Operation{
		httpOp("api.issues.get_repos_owner_repo_issues_issue_number", "GET", "Get an issue. The API returns a 301 status if the issue was transferred.", "/repos/{owner}/{repo}/issues/{issue_number}", operations.KindRead),
		httpOp("api.issues.get_repos_owner_repo_issues", "GET", "List issues in a repository. Only open issues will be listed.", "/repos/{owner}/{repo}/issues", operations.KindRead),
	}, Options{})
	off := New(generated.ops, Options{Ablate: []string{"lists-first"}})
	if a, b := candidateIDs(generated.Search("get issues", Filter{}, 5)), candidateIDs(off.Search("get issues", Filter{}, 5)); len(a) == 0 || len(b) == 0 || a[0] != b[0] {
		t.Errorf("ids of method and path: %v with lists-first, %v without; the verb names both, nothing should move", a, b)
	}
}

// In the corpus's descriptions view with the operationIds kept, as a
// served catalog has them: "Gets the transfers for a given company" led
// with getTransfer, one transfer, named for the verb whatever its -s, and
// Wowza's "shows the details of all of your transcoders" with
// showTranscoder. (Its players, the first Wowza example, list without
// the rule since round 52's refit.)
func TestAPluralReadListsOnRealIDs(t *testing.T) {
	load := corpusLoaderOf(t, apicorpus.LoadDescribedWithIDs)
	for api, c := range map[string][2]string{
		"codat.io/accounting": {"Gets the transfers for a given company.", "api.transfers.list_transfers"},
		"wowza.com":           {"This operation shows the details of all of your transcoders.", "api.transcoders.list_transcoders"},
	} {
		ops := load(api).Ops
		if got := candidateIDs(New(ops, Options{}).Search(c[0], Filter{}, 5)); len(got) == 0 || got[0] != c[1] {
			t.Errorf("%s: %q: %v, want %s first", api, c[0], got, c[1])
		}
		if got := candidateIDs(New(ops, Options{Ablate: []string{"lists-first"}}).Search(c[0], Filter{}, 5)); len(got) > 0 && got[0] == c[1] {
			t.Errorf("%s: %q leads with %s with lists-first off too; the test no longer shows what the rule does", api, c[0], c[1])
		}
	}
}
