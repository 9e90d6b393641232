package router

import (
	"slices"
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

// batchOps is a catalog whose paths run the words of each action together,
// as several real APIs write them, with no prose to say them apart.
func batchOps() []*operations.Operation {
	return []*operations.Operation{
		httpOp("batch.v1.post_v1_createschedulingpolicy", "POST", "", "/v1/createschedulingpolicy", operations.KindWrite),
		httpOp("batch.v1.post_v1_deleteschedulingpolicy", "POST", "", "/v1/deleteschedulingpolicy", operations.KindWrite),
		httpOp("batch.v1.post_v1_deletejobqueue", "POST", "", "/v1/deletejobqueue", operations.KindWrite),
		httpOp("batch.v1.post_v1_describejobqueues", "POST", "", "/v1/describejobqueues", operations.KindWrite),
		httpOp("batch.v1.delete_v1_tags_resource_arn", "DELETE", "Deletes the specified tags from a resource.", "/v1/tags/{resourceArn}", operations.KindDestructive),
		httpOp("batch.v1.post_v1_tags_resource_arn", "POST", "Associates the specified tags to a resource.", "/v1/tags/{resourceArn}", operations.KindWrite),
	}
}

func TestRequestMeetsAPathThatRunsItsWordsTogether(t *testing.T) {
	const q = "Delete a scheduling policy"
	want := "batch.v1.post_v1_deleteschedulingpolicy"
	if res := New(batchOps(), Options{}).Search(q, Filter{}, 5); len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
		t.Errorf("%s: got %v, want %s first", q, candidateIDs(res), want)
	}
	if off := New(batchOps(), Options{Ablate: []string{"split-words"}}).Search(q, Filter{}, 5); len(off.Candidates) > 0 && off.Candidates[0].Op.ID == want {
		t.Errorf("%s with split-words off: %s still first; the test no longer shows what splitting does", q, want)
	}
}

func TestRemovingTagsMeetsTheUntagOperation(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("pca.tag_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.TagCertificateAuthority", operations.KindWrite),
		httpOp("pca.untag_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.UntagCertificateAuthority", operations.KindWrite),
		httpOp("pca.list_tags", "POST", "", "/#X-Amz-Target=ACMPrivateCA.ListTags", operations.KindWrite),
		httpOp("pca.delete_certificate_authority", "POST", "", "/#X-Amz-Target=ACMPrivateCA.DeleteCertificateAuthority", operations.KindWrite),
	}
	const q = "Remove tags from a certificate authority"
	want := "pca.untag_certificate_authority"
	if res := New(ops, Options{}).Search(q, Filter{}, 5); len(res.Candidates) == 0 || res.Candidates[0].Op.ID != want {
		t.Errorf("%s: got %v, want %s first", q, candidateIDs(res), want)
	}
	if off := New(ops, Options{Ablate: []string{"reversals"}}).Search(q, Filter{}, 5); len(off.Candidates) > 0 && off.Candidates[0].Op.ID == want {
		t.Errorf("%s with reversals off: %s still first; the test no longer shows what the reversal does", q, want)
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
