package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// toolOp is an operation served as a tool (an MCP server's, a Go
// function): its id, description and kind, with no HTTP method or path.
func toolOp(id, desc string, kind operations.Kind) *operations.Operation {
	return &operations.Operation{ID: id, Namespace: operations.DefaultNamespace(id), Description: desc, Kind: kind}
}

// TestAToolsNameSaysOneItemOrMany: without a path, a tool's name says
// what a path would. get_payment_runs reads the runs, get_payment_run
// one run, as GET /payment-runs and GET /payment-runs/{id} would; the
// request's "all" and "a specific one" choose between them. The catalog's
// texts are from a real billing API's spec, its summaries withheld as the
// corpus benchmark withholds them.
func TestAToolsNameSaysOneItemOrMany(t *testing.T) {
	ops := []*operations.Operation{
		toolOp("billing.payment_runs.get_payment_runs", "Retrieves the information about all payment runs.", operations.KindRead),
		toolOp("billing.payment_runs.get_payment_run", "Retrieves the information about a specific payment run.", operations.KindRead),
		toolOp("billing.payment_runs.create_payment_run", "Creates a payment run.", operations.KindWrite),
		toolOp("billing.payment_runs.get_payment_run_summary", "Retrieves the summary of a payment run.", operations.KindRead),
		toolOp("billing.workflows.get_workflows", "Retrieves a list of workflows available in your tenant.", operations.KindRead),
		toolOp("billing.workflows.get_workflow", "Retrieves information about a specific workflow by its ID.", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "name-scope", map[string]string{
		"get the payment run 8a90": "billing.payment_runs.get_payment_run",
		"show workflow 12":         "billing.workflows.get_workflow",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"show me all the payment runs": "billing.payment_runs.get_payment_runs",
		"which workflows are there":    "billing.workflows.get_workflows",
	})
}

// TestNameScopeReadsTheNounBeforeAPreposition: the noun a read's name is
// about stands before any preposition, and a name whose first noun
// follows one names none (list_for_repo: the repository is where, not
// what). "id" after the noun makes it one item, as a path's parameter
// does; words for an aspect of a thing (details, info) are not the thing.
// A write, or a name of one word, keeps the scope its verb gives.
func TestNameScopeReadsTheNounBeforeAPreposition(t *testing.T) {
	for _, c := range []struct {
		id    string
		verb  verbClass
		noun  string
		scope int8
		ok    bool
	}{
		{"gh.users.list_followers_for_user", verbList, "followers", scopeCollection, true},
		{"chat.get_users_for_topic", verbRead, "users", scopeCollection, true},
		{"gh.issues.list_for_repo", verbList, "", scopeNone, false},
		{"setup.calendars.get_setup_v1_calendars_id", verbRead, "calendars", scopeItem, true},
		{"shop.articles.article_details", verbRead, "article", scopeItem, true},
		{"shop.articles.create_article", verbCreate, "", scopeNone, false},
		{"sql.mssql.update_mssql_instance", verbUpdate, "", scopeNone, false},
		{"helpdesk.tickets.get", verbRead, "", scopeNone, false},
		{"desk.users.deactivate", verbUpdate, "", scopeNone, false},
		{"social.tweets.shared_by", verbRead, "", scopeNone, false},
		{"social.news.get_news_feed", verbRead, "feed", scopeItem, true},
	} {
		noun, scope, ok := nameScope(c.id, c.verb)
		if noun != c.noun || scope != c.scope || ok != c.ok {
			t.Errorf("nameScope(%q) = %q, %d, %v; want %q, %d, %v", c.id, noun, scope, ok, c.noun, c.scope, c.ok)
		}
	}
}

// TestAToolsNameSaysWhatItIsAbout: the noun a read's name is about is a
// resource of the catalog, as a path's noun is, so that a request that
// names it chooses among the reads of one group: "tags" in
// get_tags_from_user, under a payroll API's tagging group. The texts are
// from that API's spec, its summaries withheld.
func TestAToolsNameSaysWhatItIsAbout(t *testing.T) {
	ops := []*operations.Operation{
		toolOp("payroll.tagging.get_tag_from_user", "Gets the tag from the user.", operations.KindRead),
		toolOp("payroll.tagging.get_tags_from_user", "", operations.KindRead),
		toolOp("payroll.tagging.get_all_user_tags", "", operations.KindRead),
		toolOp("payroll.tagging.get_all_users_with_tag", "Get links to all users with the specified tag.", operations.KindRead),
		toolOp("payroll.user.get_user", "Gets the user.", operations.KindRead),
		toolOp("payroll.user.get_users", "Get links to all users.", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "name-scope", map[string]string{
		"Gets all tags from the user": "payroll.tagging.get_tags_from_user",
	})
}

// TestPeopleDoingSomethingAreItsAgents: "the people following the
// specified user" are its followers, though the word said is the one in
// the name of whom it follows; "people who follow me" are the caller's
// followers, and "the people that a user follows" are its followings.
// The catalog's names are GitHub's, served as tools; its descriptions
// are GitHub's but one, written as another API writes it (a GitHub
// description that says "who the specified user follows" meets every
// request about it by its words alone).
func TestPeopleDoingSomethingAreItsAgents(t *testing.T) {
	ops := []*operations.Operation{
		toolOp("gh.users.list_following_for_user", "Returns the specified user's followings.", operations.KindRead),
		toolOp("gh.users.list_followers_for_user", "Lists the followers of the specified user.", operations.KindRead),
		toolOp("gh.users.list_followers_for_authenticated_user", "Lists the followers of the authenticated user.", operations.KindRead),
		toolOp("gh.users.follow", "Follows a user: the authenticated user follows the specified user.", operations.KindWrite),
		toolOp("gh.activity.list_watchers_for_repo", "Lists the watchers of a repository.", operations.KindRead),
		toolOp("gh.activity.list_repos_watching_for_user", "Lists the repositories a user is watching.", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "agent-participles", map[string]string{
		"Lists the people following the specified user.": ops[1].ID,
		"users watching the repository":                  ops[4].ID,
	})
	leads(t, New(ops, Options{}), map[string]string{
		"people who follow the authenticated user":    ops[2].ID,
		"repositories the specified user is watching": ops[5].ID,
	})
	// A verb said of what is done to the people asked for, in a
	// relative clause with a subject of its own, a question or a
	// passive, has its agent nouns on the other side.
	leadsOnlyWith(t, ops, "done-to", map[string]string{
		"list the people that a user follows": ops[0].ID,
		"who does a user follow":              ops[0].ID,
		"users followed by a given user":      ops[0].ID,
	})
}
