package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/tokens"
)

// catalog is a small contact book whose handlers count their calls, so a
// test can assert the gate never runs an operation.
type catalog struct {
	reg   *operations.Registry
	calls atomic.Int64
}

func newCatalog(t testing.TB, extra ...operations.Operation) *catalog {
	t.Helper()
	c := &catalog{reg: operations.NewRegistry()}
	handler := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		c.calls.Add(1)
		return json.RawMessage(`{"done":true}`), nil
	}
	idSchema := json.RawMessage(`{"type":"object","properties":{"contact_id":{"type":"string","description":"Id of the contact."}},"required":["contact_id"]}`)
	ops := []operations.Operation{
		{ID: "crm.contacts.list", Summary: "List contacts", Description: "Returns contacts, newest first.", Kind: operations.KindRead,
			Input: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","minimum":1}}}`)},
		{ID: "crm.contacts.get", Summary: "Get one contact by id", Kind: operations.KindRead, Input: idSchema},
		{ID: "crm.contacts.create", Summary: "Create a contact", Kind: operations.KindWrite,
			Input:    json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			Examples: []operations.Example{{Intent: "add Ada as a contact", Params: map[string]any{"name": "Ada"}}}},
		{ID: "crm.contacts.delete", Summary: "Delete a contact for good", Kind: operations.KindDestructive, Input: idSchema,
			Examples: []operations.Example{{Intent: "delete contact c1", Params: map[string]any{"contact_id": "c1"}}}},
		{ID: "crm.deals.list", Summary: "List deals in the pipeline", Kind: operations.KindRead},
	}
	for _, op := range append(ops, extra...) {
		if op.Handler == nil {
			op.Handler = handler
		}
		if err := c.reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func newServer(t testing.TB, reg *operations.Registry, opts intent.Options) *intent.Server {
	t.Helper()
	srv, err := intent.New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func checks(r *gate.Report) []string {
	var out []string
	for _, b := range r.Breaches {
		out = append(out, b.Check+" "+b.Subject)
	}
	return out
}

func TestRunBudgets(t *testing.T) {
	longPrefix := strings.Repeat("p", 49) + "_" // "p..._describe" is 58 characters: legal alone, not under mcp__intentsrv__
	tests := []struct {
		name    string
		opts    intent.Options
		budgets gate.Budgets
		want    []string // "check subject" of every breach, in order
	}{
		{name: "defaults pass", opts: intent.Options{Writes: intent.WritesConfirm}},
		{name: "read-only lists three tools", opts: intent.Options{}, budgets: gate.Budgets{MaxTools: 3}},
		{name: "too many tools", opts: intent.Options{Writes: intent.WritesConfirm}, budgets: gate.Budgets{MaxTools: 3},
			want: []string{"tool_count tools/list"}},
		{name: "listing over budget", budgets: gate.Budgets{MaxListTokens: 100},
			want: []string{"list_tokens tools/list"}},
		{name: "each tool over budget", budgets: gate.Budgets{MaxToolTokens: 50},
			want: []string{"tool_tokens find", "tool_tokens describe", "tool_tokens ask"}},
		{name: "negative disables a budget", budgets: gate.Budgets{MaxToolTokens: -1, MaxListTokens: -1, MaxTools: -1}},
		{name: "prefix leaves no headroom for hosts", opts: intent.Options{ToolPrefix: longPrefix},
			want: []string{"host_prefix " + longPrefix + "find", "host_prefix " + longPrefix + "describe", "host_prefix " + longPrefix + "ask"}},
		{name: "long host server name", budgets: gate.Budgets{HostServerName: strings.Repeat("s", 50)},
			want: []string{"host_prefix describe"}},
		{name: "catalog hint adds a line", opts: intent.Options{CatalogHint: true}, budgets: gate.Budgets{MaxDescriptionLines: 1},
			want: []string{"description_lines find"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCatalog(t)
			r, err := gate.Run(t.Context(), newServer(t, c.reg, tt.opts), tt.budgets)
			if err != nil {
				t.Fatal(err)
			}
			if got := checks(r); strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("breaches = %q, want %q", got, tt.want)
			}
			if r.Passed() != (len(tt.want) == 0) {
				t.Errorf("Passed() = %v with %d breaches", r.Passed(), len(r.Breaches))
			}
			if n := c.calls.Load(); n != 0 {
				t.Errorf("the gate ran %d operation handlers; it must run none", n)
			}
		})
	}
}

func TestRunMeasuresTheWireListing(t *testing.T) {
	c := newCatalog(t)
	srv := newServer(t, c.reg, intent.Options{Writes: intent.WritesAllow})
	r, err := gate.Run(t.Context(), srv, gate.Budgets{SkipReachability: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
		if tool.Enforced != max(tool.Tokens[tokens.O200K], tool.Tokens[tokens.CL100K]) {
			t.Errorf("%s: enforced %d is not the larger of %v", tool.Name, tool.Enforced, tool.Tokens)
		}
		if tool.HostName != "mcp__intentsrv__"+tool.Name {
			t.Errorf("host name = %q", tool.HostName)
		}
	}
	if got := strings.Join(names, ","); got != "find,describe,ask,act" {
		t.Errorf("tools = %s, want the contract order find,describe,ask,act", got)
	}
	// The listing measured is the tools/list result itself: its token count
	// is that of the raw JSON, which carries every tool's annotations.
	want, err := tokens.Count(tokens.O200K, string(r.Listing.Raw))
	if err != nil {
		t.Fatal(err)
	}
	if r.List.Tokens[tokens.O200K] != want || !strings.Contains(string(r.Listing.Raw), `"readOnlyHint"`) {
		t.Errorf("list tokens %d, raw count %d; raw = %s", r.List.Tokens[tokens.O200K], want, r.Listing.Raw)
	}
	if r.Reachability || r.Operations != 5 {
		t.Errorf("reachability checked = %v, operations = %d; want false, 5", r.Reachability, r.Operations)
	}
}

func TestRunEncoding(t *testing.T) {
	srv := newServer(t, newCatalog(t).reg, intent.Options{})
	for _, enc := range []string{tokens.O200K, tokens.CL100K, gate.EncodingMax} {
		r, err := gate.Run(t.Context(), srv, gate.Budgets{Encoding: enc, SkipReachability: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := r.List.Enforced, r.List.Tokens.In(enc); got != want {
			t.Errorf("%s: enforced %d, want %d", enc, got, want)
		}
	}
	if _, err := gate.Run(t.Context(), srv, gate.Budgets{Encoding: "p50k_base"}); err == nil {
		t.Error("an unknown encoding was accepted")
	}
}

func TestReachability(t *testing.T) {
	brokenPreview := operations.Operation{
		ID: "crm.contacts.merge", Summary: "Merge two contacts", Kind: operations.KindDestructive,
		Preview: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("preview backend down") },
	}
	tests := []struct {
		name      string
		opts      intent.Options
		wantOps   int
		wantHid   int
		wantUnrch []string // "id check"
	}{
		{name: "read-only checks reads, hides writes", opts: intent.Options{}, wantOps: 3, wantHid: 3},
		{name: "confirm reaches writes as far as the preview", opts: intent.Options{Writes: intent.WritesConfirm}, wantOps: 6,
			wantUnrch: []string{"crm.contacts.merge act"}},
		{name: "allow runs no write, only reaches it", opts: intent.Options{Writes: intent.WritesAllow}, wantOps: 6,
			wantUnrch: []string{"crm.contacts.merge act"}},
		{name: "deny globs hide operations", opts: intent.Options{Writes: intent.WritesAllow, Deny: []string{"crm.contacts.merge", "crm.deals.*"}},
			wantOps: 4, wantHid: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCatalog(t, brokenPreview)
			r, err := gate.Run(t.Context(), newServer(t, c.reg, tt.opts), gate.Budgets{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range r.Unreachable {
				got = append(got, u.ID+" "+u.Check)
				if !strings.Contains(u.Reason, "preview backend down") {
					t.Errorf("reason %q does not say why", u.Reason)
				}
			}
			if strings.Join(got, ";") != strings.Join(tt.wantUnrch, ";") {
				t.Errorf("unreachable = %q, want %q", got, tt.wantUnrch)
			}
			if r.Operations != tt.wantOps || r.Hidden != tt.wantHid {
				t.Errorf("operations/hidden = %d/%d, want %d/%d", r.Operations, r.Hidden, tt.wantOps, tt.wantHid)
			}
			if len(tt.wantUnrch) > 0 && (r.Passed() || r.Breaches[0].Check != gate.BreachUnreachable) {
				t.Errorf("an unreachable operation did not fail the gate: %v", checks(r))
			}
			if n := c.calls.Load(); n != 0 {
				t.Errorf("the gate ran %d operation handlers; it must run none", n)
			}
		})
	}
}

func TestBaseline(t *testing.T) {
	srv := newServer(t, newCatalog(t).reg, intent.Options{Writes: intent.WritesConfirm})
	first, err := gate.Run(t.Context(), srv, gate.Budgets{SkipReachability: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gate-baseline.json")
	if err := gate.WriteBaseline(path, first.Baseline()); err != nil {
		t.Fatal(err)
	}
	same, err := gate.ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	shrunk := *same
	shrunk.Tokens = gate.Tokens{tokens.O200K: same.Tokens[tokens.O200K] / 2, tokens.CL100K: same.Tokens[tokens.CL100K] / 2}
	tests := []struct {
		name     string
		baseline *gate.Baseline
		growth   float64
		want     []string
	}{
		{name: "unchanged", baseline: same},
		{name: "listing doubled", baseline: &shrunk, want: []string{"growth tools/list"}},
		{name: "doubling allowed", baseline: &shrunk, growth: 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := gate.Run(t.Context(), srv, gate.Budgets{SkipReachability: true, Baseline: tt.baseline, MaxGrowthPercent: tt.growth})
			if err != nil {
				t.Fatal(err)
			}
			if got := checks(r); strings.Join(got, ";") != strings.Join(tt.want, ";") {
				t.Errorf("breaches = %q, want %q", got, tt.want)
			}
			if len(r.Growth) != 1+len(r.Tools) || r.Growth[0].Subject != gate.ListSubject {
				t.Errorf("growth = %+v", r.Growth)
			}
		})
	}
}

func TestReadBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "v9.json")
	if err := gate.WriteBaseline(bad, &gate.Baseline{Version: 9}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.json"), bad} {
		if _, err := gate.ReadBaseline(path); err == nil {
			t.Errorf("ReadBaseline(%s) succeeded", filepath.Base(path))
		}
	}
}

var wireName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestWireNames(t *testing.T) {
	long := "svc." + strings.Repeat("very_long_segment.", 6) + "get"
	long2 := "svc." + strings.Repeat("very_long_segment.", 6) + "put"
	tests := []struct {
		name string
		ids  []string
		want map[string]string // only the names checked
	}{
		{name: "dots become underscores", ids: []string{"github.repos.get"}, want: map[string]string{"github.repos.get": "github_repos_get"}},
		{name: "collisions suffixed in id order", ids: []string{"a_b.c", "a.b_c", "a.b.c"},
			want: map[string]string{"a.b.c": "a_b_c", "a.b_c": "a_b_c_2", "a_b.c": "a_b_c_3"}},
		{name: "long ids cut with a hash", ids: []string{long, long2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gate.WireNames(tt.ids)
			seen := map[string]bool{}
			for _, id := range tt.ids {
				name := got[id]
				if !wireName.MatchString(name) {
					t.Errorf("%s -> %q is not host-legal", id, name)
				}
				if seen[name] {
					t.Errorf("%q names two operations", name)
				}
				seen[name] = true
			}
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("%s -> %q, want %q", id, got[id], want)
				}
			}
			reversed := make([]string, len(tt.ids))
			for i, id := range tt.ids {
				reversed[len(tt.ids)-1-i] = id
			}
			again := gate.WireNames(reversed)
			for id, name := range got {
				if again[id] != name {
					t.Errorf("%s -> %q, then %q: the mapping depends on input order", id, name, again[id])
				}
			}
		})
	}
}

func FuzzWireNames(f *testing.F) {
	f.Add("github.repos.get", "github_repos.get")
	f.Add(strings.Repeat("a.", 60)+"b", strings.Repeat("a_", 60)+"b")
	f.Fuzz(func(t *testing.T, a, b string) {
		names := gate.WireNames([]string{a, b})
		if a != b && names[a] == names[b] {
			t.Fatalf("%q and %q share the name %q", a, b, names[a])
		}
		for id, n := range names {
			if !wireName.MatchString(n) {
				t.Fatalf("%q -> %q is not host-legal", id, n)
			}
		}
	})
}

func TestFlat(t *testing.T) {
	srv := newServer(t, newCatalog(t).reg, intent.Options{Writes: intent.WritesConfirm})
	r, err := gate.Run(t.Context(), srv, gate.Budgets{SkipReachability: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WithFlat(t.Context(), srv); err != nil {
		t.Fatal(err)
	}
	if r.Flat.Tools != 5 {
		t.Errorf("flat tools = %d, want one per visible operation (5)", r.Flat.Tools)
	}
	if want := float64(r.Flat.Enforced) / float64(r.List.Enforced); r.Flat.Ratio != want || r.Flat.Enforced == 0 {
		t.Errorf("ratio = %v, want %v", r.Flat.Ratio, want)
	}
	flat := gate.FlatTools(srv)
	if flat[0].Op.ID != "crm.contacts.create" || flat[0].Name != "crm_contacts_create" {
		t.Errorf("first flat tool = %s (%s), want crm.contacts.create in id order", flat[0].Name, flat[0].Op.ID)
	}
	if tool := flat[1].MCPTool(); *tool.Annotations.DestructiveHint != true || *tool.Annotations.ReadOnlyHint {
		t.Errorf("%s annotations = %+v", tool.Name, tool.Annotations)
	}
}

func TestWriteText(t *testing.T) {
	srv := newServer(t, newCatalog(t).reg, intent.Options{})
	r, err := gate.Run(t.Context(), srv, gate.Budgets{MaxListTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"o200k_base", "cl100k_base", "describe", "tools/list", "3 of 3 operations reachable",
		"BREACH list_tokens", "FAIL: 1 breach(es)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}
