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
