package router

import (
	"slices"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestAnHTTPPathIsAnAddress(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("code.repos.get_user_repos", "GET", "Lists repositories the token can access.", "/user/repos", operations.KindRead),
		httpOp("code.repos.post_user_repos", "POST", "Creates a repository.", "/user/repos", operations.KindWrite),
		httpOp("code.repos.get_users_username_repos", "GET", "Lists the public repositories of a user.", "/users/{username}/repos", operations.KindRead),
		httpOp("code.repos.get_repos_owner_repo", "GET", "Gets a repository.", "/repos/{owner}/{repo}", operations.KindRead),
		httpOp("code.issues.get_repos_owner_repo_issues", "GET", "Lists the issues of a repository.", "/repos/{owner}/{repo}/issues", operations.KindRead),
		httpOp("code.pulls.get_repos_owner_repo_pulls_pull_number", "GET", "Gets a pull request.", "/repos/{owner}/{repo}/pulls/{pull_number}", operations.KindRead),
		httpOp("code.gists.get_gists_gist_id", "GET", "Gets a gist.", "/gists/{gist_id}", operations.KindRead),
		httpOp("code.gists.delete_gists_gist_id", "DELETE", "Deletes a gist.", "/gists/{gist_id}", operations.KindDestructive),
		httpOp("code.issues.get_issues", "GET", "Lists issues assigned to the caller.", "/issues", operations.KindRead),
	}
	r, off := New(ops, Options{}), New(ops, Options{Ablate: []string{"addresses"}})
	for _, c := range []struct {
		q        string
		want     []string // the candidates, in order
		decision Decision
	}{
		{"GET /repos/golang/go/pulls/12", []string{"code.pulls.get_repos_owner_repo_pulls_pull_number"}, DecisionRun},
		{"GET /repos/{owner}/{repo}/issues", []string{"code.issues.get_repos_owner_repo_issues"}, DecisionRun},
		// No method: the read first, and no run between the two.
		{"/user/repos", []string{"code.repos.get_user_repos", "code.repos.post_user_repos"}, DecisionChoose},
		{"POST /user/repos", []string{"code.repos.post_user_repos", "code.repos.get_user_repos"}, DecisionRun},
		// A URL, under a base path the spec leaves to its servers.
		{"GET https://api.example.com/api/v3/repos/golang/go/issues?state=open", []string{"code.issues.get_repos_owner_repo_issues"}, DecisionRun},
		// No method: the one operation there, but no run on an action unsaid.
		{"what does `repos/golang/go/issues` return", []string{"code.issues.get_repos_owner_repo_issues"}, DecisionChoose},
		{"DELETE /gists/aa5a315d61ae9438b18d", []string{"code.gists.delete_gists_gist_id", "code.gists.get_gists_gist_id"}, DecisionRun},
	} {
		res := r.Search(c.q, Filter{}, 5)
		if got := candidateIDs(res); !slices.Equal(got, c.want) || res.Decision != c.decision {
			t.Errorf("%q: %v %s, want %v %s", c.q, got, res.Decision, c.want, c.decision)
		}
		if got := candidateIDs(off.Search(c.q, Filter{}, 5)); slices.Equal(got, c.want) {
			t.Errorf("%q with addresses off: %v as well; the test does not test the rule", c.q, got)
		}
	}
	// On a read-only server the delete asked for is hidden: no match, the
	// read at that path listed as the closest, and Verb says why.
	res := r.Search("DELETE /gists/aa5a315d61ae9438b18d", Filter{Kinds: []operations.Kind{operations.KindRead}}, 5)
	if res.Decision != DecisionNoMatch || res.Verb != operations.KindDestructive || !slices.Equal(candidateIDs(res), []string{"code.gists.get_gists_gist_id"}) {
		t.Errorf("DELETE on a read-only server: %v %s verb %q, want the gist's GET, no_match, destructive", candidateIDs(res), res.Decision, res.Verb)
	}
	// Not addresses: a slug, alone or in a request, two words with a
	// slash, a path that fits no operation, and prose that mentions a
	// path.
	for _, q := range []string{"golang/go", "star golang/go", "read/write access", "GET /nothing/here/at/all", "Deprecated: this lists issues, and /repos/{owner}/{repo}/issues lists them for one repository"} {
		if _, ok := r.lookupAddress(q, Filter{}, 5); ok {
			t.Errorf("%q was taken as an address", q)
		}
	}
}

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]address{
		"GET /repos/{owner}/{repo}":          {method: "GET", segs: []string{"repos", "{", "{"}},
		"delete /gists/:id":                  {method: "DELETE", segs: []string{"gists", "{"}},
		"https://api.example.com/v1/Users?x": {segs: []string{"v1", "users"}},
		"recipe/100/notes":                   {segs: []string{"recipe", "100", "notes"}},
		"golang/go":                          {segs: []string{"golang", "go"}, loose: true},
		"GET `/v2/volumes`.":                 {method: "GET", segs: []string{"v2", "volumes"}},
		// Prose that sends a request to a path gives it.
		"To create a new volume, send a POST request to `/v2/volumes`.":               {method: "POST", segs: []string{"v2", "volumes"}, prose: true},
		"To delete a Droplet, send a `DELETE` request to `/v2/droplets/$DROPLET_ID`.": {method: "DELETE", segs: []string{"v2", "droplets", "{"}, prose: true},
		// Prose that names the endpoint gives it, with no method.
		"The `/transfer/sweep/get` endpoint fetches a sweep corresponding to the given `sweep_id`.": {segs: []string{"transfer", "sweep", "get"}, prose: true},
		"Call the endpoint `/users/me` to read the account you are signed in as.":                   {segs: []string{"users", "me"}, prose: true},
	} {
		got, ok := parseAddress(in, proseSent|proseEndpoint)
		if !ok || got.method != want.method || !slices.Equal(got.segs, want.segs) || got.loose != want.loose || got.prose != want.prose {
			t.Errorf("parseAddress(%q) = %+v %v, want %+v", in, got, ok, want)
		}
	}
	// Prose that names a path it sends no request to refers to another
	// operation than the one it asks for.
	for _, in := range []string{"golang", "https://example.com", "see the docs", "a b c d e f /x/y",
		"Deprecated; use `GET /v2/editorial/images/categories` instead.",
		"Identical to `GET /repositories/{workspace}/{repo_slug}/commits`, except that POST allows clients to send long lists",
		// Several endpoints named are talked about, not called; a path
		// out of code quotes may be any words with a slash.
		"Currently only the `/spells` and `/monsters` endpoints support filtering with query parameters.",
		"This call is deprecated: use the `/v2/items` endpoint instead.",
		"This is the read/write endpoint for the notes of a project.",
	} {
		if got, ok := parseAddress(in, proseSent|proseEndpoint); ok {
			t.Errorf("parseAddress(%q) = %+v, want none", in, got)
		}
	}
	const sent = "To create a new volume, send a POST request to `/v2/volumes`."
	if got, ok := parseAddress(sent, proseEndpoint); ok {
		t.Errorf("parseAddress(%q) with request-addresses off = %+v, want none", sent, got)
	}
	const named = "Use the `/transfer/create` endpoint to initiate a new transfer."
	if got, ok := parseAddress(named, proseSent); ok {
		t.Errorf("parseAddress(%q) with named-endpoints off = %+v, want none", named, got)
	}
}

// A path given without the base path every operation's path starts with
// ("products/types" over /V1/products/types) is the operation at the
// rest; two segments without a slash before them are a path only when
// the catalog's paths say both.
func TestAnAddressWithoutItsBasePath(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("shop.products.get_v1_products_types", "GET", "Lists the product types.", "/V1/products/types", operations.KindRead),
		httpOp("shop.products.post_v1_products_tier_prices", "POST", "Adds tier prices.", "/V1/products/tier-prices", operations.KindWrite),
		httpOp("shop.products.get_v1_products_sku", "GET", "Gets a product.", "/V1/products/{sku}", operations.KindRead),
		httpOp("shop.carts.put_v1_carts_mine_order", "PUT", "Places the order of the caller's cart.", "/V1/carts/mine/order", operations.KindWrite),
	}
	leadsOnlyWith(t, ops, "addresses", map[string]string{
		"products/types":       "shop.products.get_v1_products_types",
		"products/tier-prices": "shop.products.post_v1_products_tier_prices",
		"carts/mine/order":     "shop.carts.put_v1_carts_mine_order",
	})
	// A slug the paths do not say is no address.
	if _, ok := New(ops, Options{}).lookupAddress("acme/widgets", Filter{}, 5); ok {
		t.Error(`"acme/widgets" was taken as an address`)
	}
}

// TestARequestSentToAPathIsAnswered: prose that sends a request to a path
// ("To create a new volume, send a POST request to `/v2/volumes`.") asks
// for the operation there, whatever its other words meet, and does not
// run it: the rest of the prose may ask for more.
func TestARequestSentToAPathIsAnswered(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("do.floating_ips.post_v2_floating_ips", "POST", "To create a new floating IP, send a POST request with the region or the Droplet it is assigned to.", "/v2/floating_ips", operations.KindWrite),
		httpOp("do.block_storage.post_v2_volumes", "POST", "A block storage volume, in a region.", "/v2/volumes", operations.KindWrite),
		httpOp("do.block_storage.get_v2_volumes", "GET", "Lists the block storage volumes.", "/v2/volumes", operations.KindRead),
		httpOp("do.block_storage_actions.post_v2_volumes_actions", "POST", "To initiate an action on a block storage volume by name, send a POST request with the action's type and the volume's name and region.", "/v2/volumes/actions", operations.KindWrite),
		httpOp("do.droplets.delete_v2_droplets_droplet_id", "DELETE", "Deletes a Droplet.", "/v2/droplets/{droplet_id}", operations.KindDestructive),
	}
	answeredNotRun(t, ops, "request-addresses", "To create a new volume, send a POST request to `/v2/volumes`.", "do.block_storage.post_v2_volumes")
}

// answeredNotRun checks that prose giving an address leads with want only
// when rule is on (leadsOnlyWith), and that the answer is choose, not run.
func answeredNotRun(t *testing.T, ops []*operations.Operation, rule, q, want string) {
	t.Helper()
	leadsOnlyWith(t, ops, rule, map[string]string{q: want})
	if res := New(ops, Options{}).Search(q, Filter{}, 5); res.Decision != DecisionChoose {
		t.Errorf("%q: %s, want choose", q, res.Decision)
	}
}

// A request that names, in code quotes, the endpoint it wants ("The
// `/transfer/sweep/get` endpoint fetches a sweep", as a payments API
// describes each of its calls) is answered by that address. The words
// stage leads with the bank transfer's sweep, whose text says more of the
// request's words. The answer is never run: the rest of the prose may ask
// for more than the path says.
func TestAnEndpointNamedInProseIsAnswered(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("pay.bank_transfer.post_bank_transfer_sweep_get", "POST", "Fetches information about the sweep corresponding to the given sweep_id.", "/bank_transfer/sweep/get", operations.KindWrite),
		httpOp("pay.transfer.post_transfer_sweep_get", "POST", "Retrieve a sweep.", "/transfer/sweep/get", operations.KindWrite),
		httpOp("pay.transfer.post_transfer_sweep_list", "POST", "List sweeps.", "/transfer/sweep/list", operations.KindWrite),
		httpOp("pay.transfer.post_transfer_get", "POST", "Retrieve a transfer.", "/transfer/get", operations.KindWrite),
	}
	answeredNotRun(t, ops, "named-endpoints", "The `/transfer/sweep/get` endpoint fetches information about the sweep corresponding to the given `sweep_id`.", "pay.transfer.post_transfer_sweep_get")
}
