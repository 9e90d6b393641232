package router

import (
	"math"
	"reflect"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/operations"
)

// FuzzSearch routes arbitrary intents over two catalogs, one without
// HTTP paths (helpdesk) and one with them, and checks what every caller
// relies on: no panic; at most limit candidates, each once, with a
// confidence in [0, 1] and a finite score (an exact id's is +Inf); a run
// has a candidate to run; and the answer does not depend on what was
// asked before (each query reuses a pooled scratch, whose leftovers
// would leak into the next). Searched as a read-only server searches,
// with its policy as a mask, it lists no operation the mask hides, and
// decides as the same policy as a predicate does, on the same leader.
func FuzzSearch(f *testing.F) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		f.Fatal(err)
	}
	routers := []*Router{
		New(reg.All(), Options{}),
		New([]*operations.Operation{
			httpOp("hub.repos.get", "GET", "Get a repository.", "/repos/{owner}/{repo}", operations.KindRead),
			httpOp("hub.repos.list_for_user", "GET", "List a user's repositories.", "/users/{username}/repos", operations.KindRead),
			httpOp("hub.repos.list_for_authenticated_user", "GET", "List your repositories.", "/user/repos", operations.KindRead),
			httpOp("hub.repos.delete", "DELETE", "Delete a repository.", "/repos/{owner}/{repo}", operations.KindDestructive),
			httpOp("hub.issues.create", "POST", "Create an issue.", "/repos/{owner}/{repo}/issues", operations.KindWrite),
			httpOp("hub.issues.update", "PATCH", "Update an issue: close or reopen it.", "/repos/{owner}/{repo}/issues/{issue_number}", operations.KindWrite),
			httpOp("hub.orgs.list_members", "GET", "List an organization's members.", "/orgs/{org}/members", operations.KindRead),
			httpOp("api.post_x_amz_target_svc_get_thing", "POST", "", "/#X-Amz-Target=Svc.GetThing", operations.KindWrite),
			httpOp("hub.user.get_tfa", "GET", "Get the TFA, ZZZ and AAA settings (Two Factor Authentication) of the caller.", "/user/tfa", operations.KindRead),
		}, Options{}),
	}
	for _, s := range []string{
		"", "list open tickets", "who deleted ticket 12?", "helpdesk.tickets.get", "what files are on ticket 19",
		"I'm planning a party. Can you show me the open tickets? Also delete ticket 4.", "repos/golang/go",
		"who is in the golang org", "\x00\xff", "ticket ticket ticket ticket ticket ticket ticket ticket",
		"show solved tickets", "un-close 12 please", "GET /repos/{owner}/{repo}", "close ticket 42",
		"Get the Zulu Zebra Zeta and Two Factor Authentication", "two factor authentication of Apple and Amazon",
	} {
		f.Add(s, "list open tickets", 5)
	}
	notWrite := func(op *operations.Operation) bool { return !op.Kind.IsWrite() }
	masks := make([]*Mask, len(routers))
	for i, r := range routers {
		masks[i] = r.Mask(notWrite)
	}
	f.Fuzz(func(t *testing.T, q, before string, limit int) {
		limit = limit%12 + 1
		if limit <= 0 {
			limit += 12
		}
		for i, r := range routers {
			masked, kept := r.Search(q, Filter{Only: masks[i]}, limit), r.Search(q, Filter{Keep: notWrite}, limit)
			for _, c := range masked.Candidates {
				if !notWrite(c.Op) {
					t.Fatalf("%q under a read-only mask lists %s, a %s", q, c.Op.ID, c.Op.Kind)
				}
			}
			if masked.Decision != kept.Decision || len(masked.Candidates) != len(kept.Candidates) ||
				len(kept.Candidates) > 0 && masked.Candidates[0].Op != kept.Candidates[0].Op {
				t.Fatalf("%q: the mask answers %v, its predicate %v", q, summarise(masked), summarise(kept))
			}
			alone := r.Search(q, Filter{}, limit)
			r.Search(before, Filter{}, limit)
			again := r.Search(q, Filter{}, limit)
			if !reflect.DeepEqual(summarise(alone), summarise(again)) {
				t.Fatalf("%q after %q: %v; alone: %v", q, before, summarise(again), summarise(alone))
			}
			if len(alone.Candidates) > limit {
				t.Fatalf("%q: %d candidates, limit %d", q, len(alone.Candidates), limit)
			}
			if alone.Decision == DecisionRun && len(alone.Candidates) == 0 {
				t.Fatalf("%q: run with no candidate", q)
			}
			seen := map[string]bool{}
			for _, c := range alone.Candidates {
				if seen[c.Op.ID] {
					t.Fatalf("%q lists %s twice", q, c.Op.ID)
				}
				seen[c.Op.ID] = true
				if !(c.Confidence >= 0 && c.Confidence <= 1) || math.IsNaN(c.Score) || math.IsInf(c.Score, 0) && !alone.Exact {
					t.Fatalf("%q: %s confidence %v score %v", q, c.Op.ID, c.Confidence, c.Score)
				}
			}
		}
	})
}

// summarise is what a caller sees of a result: the decision, and each
// candidate's id, score, confidence and matched words.
func summarise(res Result) []any {
	out := []any{res.Decision, res.Verb}
	for _, c := range res.Candidates {
		out = append(out, c.Op.ID, float32(c.Score), float32(c.Confidence), c.Matched, c.Fields)
	}
	return out
}
