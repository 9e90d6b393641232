package router

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestRunTogetherWordsAreSplit(t *testing.T) {
	a := newAlsoWords(Options{})
	for w, want := range map[string][]string{
		"deleteschedulingpolicy": {"delete", "scheduling", "policy"},
		"assetdatabases":         {"asset", "databases"},
		"listtargets":            {"list", "targets"},
		"untag":                  {"tag"},
		"scheduling":             nil, // a word itself
		"kubernetes":             nil, // no split into known words
		"apikey":                 nil,
	} {
		if got := a.of(w); !slices.Equal(got, want) {
			t.Errorf("alsoWords.of(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestWordsBesideTheCatalogsLeadTheRanking routes requests whose words a
// catalog writes otherwise: run together in a path, or as the reversal of
// a verb. Each case also runs with its rule off, to show the rule is what
// puts the right operation first.
func TestWordsBesideTheCatalogsLeadTheRanking(t *testing.T) {
	for _, c := range []struct {
		name, query, want, ablation string
		ops                         []*operations.Operation
		// also are parts switched off in both rankings, so that the
		// rule's own effect shows.
		also []string
	}{{
		// A catalog whose paths run the words of each action together,
		// as several real APIs write them, with no prose to say them
		// apart.
		name: "run-together path", query: "Delete a scheduling policy", want: "batch.v1.post_v1_deleteschedulingpolicy", ablation: "split-words",
		ops: []*operations.Operation{
			httpOp("batch.v1.post_v1_createschedulingpolicy", "POST", "", "/v1/createschedulingpolicy", operations.KindWrite),
			httpOp("batch.v1.post_v1_deleteschedulingpolicy", "POST", "", "/v1/deleteschedulingpolicy", operations.KindWrite),
			httpOp("batch.v1.post_v1_deletejobqueue", "POST", "", "/v1/deletejobqueue", operations.KindWrite),
			httpOp("batch.v1.post_v1_describejobqueues", "POST", "", "/v1/describejobqueues", operations.KindWrite),
			httpOp("batch.v1.delete_v1_tags_resource_arn", "DELETE", "Deletes the specified tags from a resource.", "/v1/tags/{resourceArn}", operations.KindDestructive),
			httpOp("batch.v1.post_v1_tags_resource_arn", "POST", "Associates the specified tags to a resource.", "/v1/tags/{resourceArn}", operations.KindWrite),
		},
	}, {
		name: "untag in the catalog", query: "Remove tags from a certificate authority", want: "pca.untag_certificate_authority", ablation: "reversals",
		ops: []*operations.Operation{
			httpOp("pca.tag_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.TagCertificateAuthority", operations.KindWrite),
			httpOp("pca.untag_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.UntagCertificateAuthority", operations.KindWrite),
			httpOp("pca.list_tags", "POST", "", "/#X-Amz-Target=ACMPrivateCA.ListTags", operations.KindWrite),
			httpOp("pca.delete_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.DeleteCertificateAuthority", operations.KindWrite),
		},
	}, {
		// The path weights put the invitations' delete first on their
		// own (the path says "invitations"); the linear weights, which
		// order catalogs without paths, need the rule.
		name: "uninvite in the request", query: "uninvite someone from the org", want: "org.invitations.delete", ablation: "reversals", also: []string{"path-ranker"},
		ops: []*operations.Operation{
			httpOp("org.members.delete", "DELETE", "", "/orgs/{org}/members/{username}", operations.KindDestructive),
			httpOp("org.members.list", "GET", "", "/orgs/{org}/members", operations.KindRead),
			httpOp("org.invitations.delete", "DELETE", "", "/orgs/{org}/invitations/{invitation_id}", operations.KindDestructive),
			httpOp("org.invitations.create", "POST", "", "/orgs/{org}/invitations", operations.KindWrite),
			httpOp("org.invitations.list", "GET", "", "/orgs/{org}/invitations", operations.KindRead),
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			if res := New(c.ops, Options{Ablate: c.also}).Search(c.query, Filter{}, 5); len(res.Candidates) == 0 || res.Candidates[0].Op.ID != c.want {
				t.Errorf("%s: got %v, want %s first", c.query, candidateIDs(res), c.want)
			}
			off := New(c.ops, Options{Ablate: append([]string{c.ablation}, c.also...)}).Search(c.query, Filter{}, 5)
			if len(off.Candidates) > 0 && off.Candidates[0].Op.ID == c.want {
				t.Errorf("%s with %s off: %s still first; the test no longer shows what the rule does", c.query, c.ablation, c.want)
			}
		})
	}
}

// candidateIDs lists the ids of res's candidates, best first.
func candidateIDs(res Result) []string {
	var out []string
	for _, c := range res.Candidates {
		out = append(out, c.Op.ID)
	}
	return out
}

func TestRunTogetherRequestWordMeetsTheCatalogsPair(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("acct.users.update_name", "PATCH", "Changes the user name of an account.", "/accounts/{id}/userName", operations.KindWrite),
		httpOp("acct.users.update_email", "PATCH", "Changes the e-mail address of an account.", "/accounts/{id}/email", operations.KindWrite),
		httpOp("acct.users.get", "GET", "Returns an account.", "/accounts/{id}", operations.KindRead),
		httpOp("acct.zones.set", "PUT", "Sets the time zone of the account.", "/accounts/{id}/timeZone", operations.KindWrite),
	}
	for q, want := range map[string]string{"change my username": "acct.users.update_name", "set the timezone": "acct.zones.set"} {
		res := New(ops, Options{}).Search(q, Filter{}, 5)
		if res.Decision == DecisionNoMatch || len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
			t.Errorf("%s: %s %v, want %s first", q, res.Decision, candidateIDs(res), want)
		}
		if off := New(ops, Options{Ablate: []string{"split-words"}}).Search(q, Filter{}, 5); off.Decision != DecisionNoMatch {
			t.Errorf("%s with split-words off: %s; the test no longer shows what the split does", q, off.Decision)
		}
	}
}

// TestLongWordsAreNotSplitOrCorrected: a request or catalog word longer
// than any split or spelling correction is left whole, so a pathological
// word (a library caller's; the server caps an intent at 2,000
// characters) costs its length, not its square.
func TestLongWordsAreNotSplitOrCorrected(t *testing.T) {
	long := strings.Repeat("deleteschedulingpolicy", 5000) // 110,000 letters
	r := New([]*operations.Operation{
		httpOp("batch.delete_scheduling_policy", "POST", "Deletes a scheduling policy.", "/v1/deleteschedulingpolicy", operations.KindWrite),
	}, Options{})
	if _, ok := r.idx.spelledApart(long); ok {
		t.Error("a 110,000-letter request word was matched as a pair")
	}
	if got := newAlsoWords(Options{}).of(long); got != nil {
		t.Errorf("a 110,000-letter catalog word was split into %d words", len(got))
	}
	if got := r.idx.corrections(long, 3, nil); len(got) > 0 {
		t.Errorf("a 110,000-letter request word was corrected to %d terms", len(got))
	}
	if res := r.Search("remove "+long, Filter{}, 5); res.Decision == DecisionRun {
		t.Errorf("remove <110,000 letters>: %s; a word nobody can read gives no run", res.Decision)
	}
}
