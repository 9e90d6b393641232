package apicorpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestSplitIsAboutOneInFive(t *testing.T) {
	tune := 0
	const n = 5000
	for i := range n {
		name := "api" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)
		if SplitOf(name) == SplitTune {
			tune++
		}
	}
	if share := float64(tune) / n; share < 0.17 || share > 0.23 {
		t.Fatalf("tune share %.3f; want about 0.2", share)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestSampleIsFixed(t *testing.T) {
	var apis []API
	for i := range 50 {
		apis = append(apis, API{Name: "api" + itoa(i)})
	}
	a, b := Sample(apis, 10), Sample(apis, 10)
	if len(a) != 10 {
		t.Fatalf("sample of %d", len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			t.Fatal("sample differs between calls")
		}
	}
}

// Select keeps an API by its name or its provider's, and refuses a name
// that keeps nothing.
func TestSelectByNameOrProvider(t *testing.T) {
	apis := []API{{Name: "github.com/api.github.com"}, {Name: "github.com/ghes-3.8"}, {Name: "stripe.com"}}
	names := func(as []API) (out []string) {
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	for _, c := range []struct {
		only []string
		want []string
	}{
		{[]string{"github.com"}, []string{"github.com/api.github.com", "github.com/ghes-3.8"}},
		{[]string{"github.com/ghes-3.8", "stripe.com"}, []string{"github.com/ghes-3.8", "stripe.com"}},
	} {
		got, err := Select(apis, c.only)
		if err != nil || !slices.Equal(names(got), c.want) {
			t.Errorf("Select(%v) = %v, %v; want %v", c.only, names(got), err, c.want)
		}
	}
	if _, err := Select(apis, []string{"stripe.com", "github.com/ghes-9.9"}); err == nil || !strings.Contains(err.Error(), `"github.com/ghes-9.9"`) {
		t.Errorf("an unknown name: %v; want an error naming it", err)
	}
}

// The benchmark's index must not contain what the queries are made of.
func TestLoadWithholdsSummariesAndIDs(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "openapi", "petstore-swagger2.json")
	c, err := Load(API{Name: "petstore", File: src})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ops) != 5 || len(c.Queries) != 5 {
		t.Fatalf("%d ops, %d queries; want 5 and 5", len(c.Ops), len(c.Queries))
	}
	ids := map[string]bool{}
	for _, op := range c.Ops {
		ids[op.ID] = true
		for _, w := range []string{"addpet", "add_pet", "findpetsbystatus", "find_pets_by_status", "getpetbyid", "get_pet_by_id"} {
			if strings.Contains(strings.ToLower(op.ID), w) {
				t.Errorf("operationId leaked into id %s", op.ID)
			}
		}
		for _, q := range c.Queries {
			if strings.Contains(op.Summary, q.Text) || strings.Contains(op.Description, q.Text) {
				t.Errorf("summary %q leaked into %s", q.Text, op.ID)
			}
		}
	}
	for _, q := range c.Queries {
		if len(q.Labels) != 1 || !ids[q.Labels[0]] {
			t.Errorf("query %q has labels %v", q.Text, q.Labels)
		}
	}
}

// An operation without a summary is summarised by its description's first
// sentence, which is then its query: that sentence must leave the index
// too, or the query is found there word for word (half the tune split's
// queries and a quarter of the report split's were, before this test).
func TestLoadWithholdsTheSentenceThatSummarises(t *testing.T) {
	doc := `{"openapi": "3.0.0", "info": {"title": "contacts", "version": "1"}, "paths": {
	  "/#X-Amz-Target=Book.AssociateContact": {"post": {"operationId": "AssociateContact",
	    "description": "<p>Associates a contact with a given address book.</p>"}},
	  "/#X-Amz-Target=Book.DisassociateContact": {"post": {"operationId": "DisassociateContact",
	    "description": "Disassociates a contact from a given address book. The contact itself is kept."}},
	  "/contacts": {"get": {"operationId": "listContacts", "summary": "List contacts",
	    "description": "List contacts. Pages of fifty."}}}}`
	c := loadDoc(t, "contacts", doc, Load)
	var texts []string
	for _, q := range c.Queries {
		texts = append(texts, q.Text)
	}
	slices.Sort(texts)
	want := []string{"Associates a contact with a given address book.", "Disassociates a contact from a given address book.", "List contacts"}
	if !slices.Equal(texts, want) {
		t.Fatalf("queries %q, want %q", texts, want)
	}
	kept := false
	for _, op := range c.Ops {
		for _, q := range texts {
			if strings.Contains(strings.ToLower(op.Summary), strings.ToLower(q)) || strings.Contains(strings.ToLower(op.Description), strings.ToLower(q)) {
				t.Errorf("query %q is in the index: %s reads %q / %q", q, op.ID, op.Summary, op.Description)
			}
		}
		kept = kept || strings.Contains(op.Description, "The contact itself is kept.")
	}
	if !kept {
		t.Error("the rest of a description went with the sentence that summarises it")
	}
}

func TestRestatesPath(t *testing.T) {
	for s, want := range map[string]bool{
		"GET /V1.0/ActionTypes/{id}": true,
		"/users/{id}":                true,
		"Get a user":                 false,
		"Post a message to /general": false,
	} {
		if restatesPath(s) != want {
			t.Errorf("restatesPath(%q) = %v", s, !want)
		}
	}
}

func TestTextsAreDeterministic(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "openapi", "petstore-swagger2.json")
	if _, err := os.Stat(src); err != nil {
		t.Fatal(err)
	}
	collect := func() []string {
		var out []string
		if err := Texts(API{File: src}, func(s string) { out = append(out, s) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := collect(), collect()
	if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("texts differ or are empty: %d vs %d", len(a), len(b))
	}
	if !strings.Contains(strings.Join(a, "\n"), "Add a new pet to the store") {
		t.Fatalf("summaries missing from texts: %q", a)
	}
}

func TestOneProviderOneSplit(t *testing.T) {
	for _, p := range []string{"github.com", "azure.com", "googleapis.com", "apideck.com"} {
		want := SplitOf(p)
		for _, v := range []string{"/api.github.com", "/ghes-3.0", "/v1", "/crm"} {
			if got := SplitOf(p + v); got != want {
				t.Errorf("%s%s is in %s, %s in %s", p, v, got, p, want)
			}
		}
	}
}

// Foreign asks a catalog another provider's summaries: never its own
// provider's, never a summary the catalog itself has, never from a
// description that does not read, the same sample every time.
func TestForeignIsAnotherProvidersSummaries(t *testing.T) {
	dir := t.TempDir()
	spec := func(name string, summaries ...string) API {
		paths := map[string]any{}
		for i, s := range summaries {
			paths["/p"+itoa(i)] = map[string]any{"get": map[string]any{"summary": s, "responses": map[string]any{"200": map[string]any{"description": "ok"}}}}
		}
		raw, err := json.Marshal(map[string]any{"openapi": "3.0.0", "info": map[string]any{"title": name, "version": "1"}, "paths": paths})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".json")
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return API{Name: name, File: file}
	}
	apis := []API{
		spec("a.com/one", "List pets", "Get a pet"),
		spec("a.com/two", "List owners"),
		spec("b.com", "List invoices", "Pay an invoice", "List pets", "GET /invoices/{id}", "Void an invoice"),
		spec("c.com", "Send a message"),
	}
	own := []Query{{Text: "List pets"}, {Text: "Get a pet"}}
	got := Foreign(apis, 0, 10, own)
	// Half the list away from a.com/one is b.com: its summaries less the
	// one a.com/one has and the one that restates a path.
	want := map[string]bool{"List invoices": true, "Pay an invoice": true, "Void an invoice": true}
	if len(got) != len(want) {
		t.Fatalf("Foreign = %q, want the three of %v", got, want)
	}
	for _, s := range got {
		if !want[s] {
			t.Errorf("Foreign gave %q", s)
		}
	}
	two, again := Foreign(apis, 0, 2, own), Foreign(apis, 0, 2, own)
	if len(two) != 2 || !slices.Equal(two, again) || !slices.Contains(got, two[0]) || !slices.Contains(got, two[1]) {
		t.Errorf("a sample of 2: %q then %q, want the same two of %q", two, again, got)
	}
	// From a.com/two, half the list away is b.com too; from b.com it is
	// a.com/one's provider, another.
	if g := Foreign(apis, 2, 10, nil); len(g) != 2 || slices.Contains(g, "List invoices") {
		t.Errorf("Foreign of b.com = %q, want a.com/one's two summaries", g)
	}
	// A donor whose paths do not read (a path that is a string) is
	// passed over for the next one.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"openapi":"3.0.0","paths":{"/x":"oops"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	withBad := []API{apis[0], apis[1], {Name: "bad.com", File: bad}, apis[2], apis[3]}
	if g := Foreign(withBad, 0, 10, own); len(g) != 3 || !slices.Contains(g, "Void an invoice") {
		t.Errorf("Foreign past a description that does not read = %q, want b.com's three", g)
	}
	// One provider only: nothing to ask.
	if g := Foreign(apis[:2], 0, 10, nil); len(g) != 0 {
		t.Errorf("Foreign among one provider's APIs = %q, want none", g)
	}
}

// The paraphrase case asks each operation its description's first
// sentence where that sentence says its summary in other words, and
// neither the sentence nor the summary is left in the index for it to be
// found by; a first sentence that is the summary, a note about something
// else, or markup asks nothing.
func TestLoadDescribedAsksParaphrases(t *testing.T) {
	doc := `{"openapi": "3.0.0", "info": {"title": "billing", "version": "1"}, "paths": {
	  "/payments": {"get": {"operationId": "listPayments", "summary": "List payments",
	    "description": "Retrieves the information about all payments from your customer accounts. Filter by status."}},
	  "/payments/{id}": {"get": {"operationId": "getPayment", "summary": "Get a payment",
	    "description": "Get a payment."},
	    "delete": {"operationId": "deletePayment", "summary": "Delete a payment",
	    "description": "This feature was introduced in version 8. It cannot be undone."}},
	  "/refunds": {"get": {"operationId": "listRefunds", "summary": "List refunds",
	    "description": "**Note:** refunds of the last day are listed too."}}}}`
	c := loadDoc(t, "billing", doc, LoadDescribed)
	if len(c.Ops) != 4 {
		t.Fatalf("%d ops, want 4", len(c.Ops))
	}
	want := "Retrieves the information about all payments from your customer accounts."
	if len(c.Queries) != 1 || c.Queries[0].Text != want || len(c.Queries[0].Labels) != 1 {
		t.Fatalf("queries %+v, want only %q, with one label", c.Queries, want)
	}
	for _, op := range c.Ops {
		text := strings.ToLower(op.Summary + " " + op.Description)
		for _, leak := range []string{"retrieves the information", "list payments", "this feature was introduced"} {
			if strings.Contains(text, leak) {
				t.Errorf("%q is in the index: %s reads %q / %q", leak, op.ID, op.Summary, op.Description)
			}
		}
		if strings.Contains(strings.ToLower(op.ID), "listpayments") || strings.Contains(op.ID, "list_payments") {
			t.Errorf("operationId leaked into id %s", op.ID)
		}
	}
	if !slices.ContainsFunc(c.Ops, func(op *operations.Operation) bool { return strings.Contains(op.Description, "Filter by status.") }) {
		t.Error("the rest of a description went with its first sentence")
	}
}

// The paraphrase case with ids asks the same first sentences of a catalog
// that keeps every operationId, as a served catalog does, and withholds
// the rest as LoadDescribed does: the label is the operation's id as the
// operationId names it.
func TestLoadDescribedWithIDsKeepsTheOperationIDs(t *testing.T) {
	doc := `{"openapi": "3.0.0", "info": {"title": "billing", "version": "1"}, "paths": {
	  "/payments": {"get": {"operationId": "listPayments", "summary": "List payments",
	    "description": "Retrieves the information about all payments from your customer accounts. Filter by status."}},
	  "/payments/{id}": {"get": {"operationId": "getPayment", "summary": "Get a payment",
	    "description": "Get a payment."}}}}`
	blind, named := loadDoc(t, "billing", doc, LoadDescribed), loadDoc(t, "billing", doc, LoadDescribedWithIDs)
	if len(named.Queries) != 1 || named.Queries[0].Text != blind.Queries[0].Text {
		t.Fatalf("queries %+v, want those of LoadDescribed: %+v", named.Queries, blind.Queries)
	}
	if label := named.Queries[0].Labels; len(label) != 1 || !strings.Contains(strings.ToLower(label[0]), "list_payments") {
		t.Errorf("label %v, want the id of operationId listPayments", label)
	}
	for _, op := range named.Ops {
		text := strings.ToLower(op.Summary + " " + op.Description)
		for _, leak := range []string{"retrieves the information", "list payments"} {
			if strings.Contains(text, leak) {
				t.Errorf("%q is in the index: %s reads %q / %q", leak, op.ID, op.Summary, op.Description)
			}
		}
	}
}

// loadDoc writes doc, an OpenAPI description, to a file of API name and
// loads it as a benchmark case with load (Load or LoadDescribed).
func loadDoc(t *testing.T, name, doc string, load func(API) (*Case, error)) *Case {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := load(API{Name: name, File: file})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
