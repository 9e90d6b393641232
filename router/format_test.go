package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// TestAFormatSuffixIsNotThePathsNoun: many APIs end their paths with the
// format of the answer (Twilio's /Accounts/{sid}/Calls.json, Docker's
// /containers/json and /containers/{id}/json). What the path addresses is
// what comes before it: a collection or one item of it.
func TestAFormatSuffixIsNotThePathsNoun(t *testing.T) {
	for path, want := range map[string]string{
		"/2010-04-01/Accounts/{AccountSid}/Calls.json":       "/2010-04-01/Accounts/{AccountSid}/Calls",
		"/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json": "/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}",
		"/containers/json":                    "/containers",
		"/containers/{id}/json":               "/containers/{id}",
		"/feeds/posts.ATOM":                   "/feeds/posts",
		"/json":                               "/json",  // nothing before it to address
		"/.json":                              "/.json", // no name before the extension
		"/settings/schema.jsonld":             "/settings/schema.jsonld",
		"/reports/{id}/pdf":                   "/reports/{id}/pdf", // a document, not a serialisation
		"/v1/users.list":                      "/v1/users.list",
		"/records.{format}":                   "/records",
		"/records/{record_id}.{format}":       "/records/{record_id}",
		"/Videos/{itemId}/stream.{container}": "/Videos/{itemId}/stream",
		"/items/{a.b}":                        "/items/{a.b}",
	} {
		if got := resourcePath(path); got != want {
			t.Errorf("resourcePath(%q) = %q, want %q", path, got, want)
		}
	}
	ops := []*operations.Operation{
		httpOp("rec.recorders.get_recorders_json", "GET", "Recorders of the site.", "/api/v1/recorders.json", operations.KindRead),
		httpOp("rec.recorders.get_recorders_id_json", "GET", "Recorders of the site.", "/api/v1/recorders/{id}.json", operations.KindRead),
		httpOp("docker.containers.get_containers_json", "GET", "Returns the containers of a host that are currently in a running state.", "/containers/json", operations.KindRead),
		httpOp("docker.containers.get_containers_id_json", "GET", "Returns low-level information on a container.", "/containers/{id}/json", operations.KindRead),
		httpOp("docker.containers.delete_containers_id", "DELETE", "Removes a container.", "/containers/{id}", operations.KindDestructive),
	}
	leadsOnlyWith(t, ops, "format-suffixes", map[string]string{
		"Inspect a container": "docker.containers.get_containers_id_json",
		"one recorder":        "rec.recorders.get_recorders_id_json",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"List recorders":  "rec.recorders.get_recorders_json",
		"List containers": "docker.containers.get_containers_json",
	})
	// The list meets every word of the request, but one container is
	// asked for: running the list would be a guess (listsOne), which
	// it only sees as a list by its path without the format.
	const q = "the current state of a container"
	runsList := func(r *Router) bool {
		res := r.Search(q, Filter{}, 5)
		return res.Decision == DecisionRun && res.Candidates[0].Op.ID == "docker.containers.get_containers_json"
	}
	docker := ops[2:]
	if runsList(New(docker, Options{})) {
		t.Errorf("%q runs the list of containers; one container is asked for", q)
	}
	if !runsList(New(docker, Options{Ablate: []string{"format-suffixes"}})) {
		t.Errorf("%q does not run the list with format-suffixes off: the test does not test the rule", q)
	}
}
