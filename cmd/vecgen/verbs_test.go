package main

import (
	"strings"
	"testing"
)

func TestCallClass(t *testing.T) {
	for path, want := range map[string]struct {
		class int
		rpc   bool
	}{
		"/#X-Amz-Target=AWSGlue.GetCrawlers":      {0, true},
		"/#Action=DescribeTags":                   {0, true},
		"/#Action=PutScalingPolicy&Version=2011":  {2, true},
		"/v1/{resource}:getIamPolicy":             {0, true},
		"/#X-Amz-Target=Svc.ActivateKey":          {-1, true},
		"/repos/{owner}/{repo}/issues":            {-1, false},
		"/v1/{name}":                              {-1, false},
		"/#X-Amz-Target=Svc.DisassociateResource": {3, true},
	} {
		call := rpcCall(path)
		if class, rpc := callClass(call), call != ""; class != want.class || rpc != want.rpc {
			t.Errorf("callClass(rpcCall(%q)) = %d, %v; want %d, %v", path, class, rpc, want.class, want.rpc)
		}
	}
}

// The table counts an RPC call under its call name's verb, whatever its
// method; gives no class to a verb whose operations are named for it (an
// action: read as a create, "activate" would make "deactivate" a delete),
// nor to one whose changes no class holds most of ("accept"), but marks
// both as writes; skips an adverb before the verb; and leaves out a word
// only one provider's summaries start with, and one that reads as often
// as it writes.
func TestVerbTable(t *testing.T) {
	v := newVerbTable()
	for i := range minVerbCount {
		v.provider = []string{"a.example", "b.example", "c.example"}[i%minVerbProviders]
		v.add("POST", "/#X-Amz-Target=Svc.DescribeThing", "Provides details of a thing.")
		v.add("POST", "/#X-Amz-Target=Svc.ActivateThing", "Activates a thing.")
		v.add("POST", "/things", "Activates a thing.") // a create by its method, but mostly an action
		v.add("DELETE", "/things/{id}", "Permanently erases a thing.")
		// Accepted by a PATCH, a PUT or a call of its own: no class
		// holds most, but every one changes state.
		v.add("PATCH", "/invitations/{id}", "Accepts an invitation.")
		v.add("PUT", "/offers/{id}/accepted", "Accepts an offer.")
		v.add("POST", "/quotes/{id}/accept", "Accepts a quote.")
		// Checked by a GET as often as by a POST: no write.
		v.add("GET", "/domains/{id}/check", "Checks a domain.")
		v.add("POST", "/domains/{id}/verify", "Checks a domain.")
	}
	v.provider = "certificates.example"
	for range 2 * minVerbCount {
		v.add("POST", "/insurance", "Insurance Policy - Health")
	}
	got := string(v.encode())
	for _, want := range []string{"provide\tread\t", "erase\tdelete\t", "accept\twrite\t", "activate\twrite\t"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	for _, left := range []string{"activate\tcreate", "permanently", "insurance", "check"} {
		if strings.Contains(got, "\n"+left+"\t") {
			t.Errorf("table has %q:\n%s", left, got)
		}
	}
}
