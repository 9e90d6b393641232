package remote

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/intent"
)

// planRefOf returns the plan_ref a preview envelope carries.
func planRefOf(t *testing.T, env intent.Envelope) string {
	t.Helper()
	if env.Code != intent.CodeConfirmationRequired {
		t.Fatalf("want a preview, got %+v", env)
	}
	for _, s := range env.NextSteps {
		if s.PlanRef != "" {
			return s.PlanRef
		}
	}
	raw, _ := json.Marshal(env.Details)
	var d struct {
		PlanRef string `json:"plan_ref"`
	}
	if json.Unmarshal(raw, &d) == nil && d.PlanRef != "" {
		return d.PlanRef
	}
	t.Fatalf("no plan_ref in %+v", env)
	return ""
}

func TestPlanRefBindsToPrincipal(t *testing.T) {
	f := newFixture(t, nil)
	alice, bob := f.mustMCP(keyAlice), f.mustMCP(keyBob)
	args := map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 7}}
	ref := planRefOf(t, callTool(t, alice, "act", args))

	confirm := map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 7}, "plan_ref": ref}
	if env := callTool(t, bob, "act", confirm); env.OK || env.Code != intent.CodePlanInvalid {
		t.Fatalf("bob confirmed alice's plan: %+v", env)
	}
	// The REST twin binds the same way.
	body, _ := json.Marshal(confirm)
	if r := f.post("/v1/act", keyBob, string(body)); r.status != http.StatusOK || r.env.Code != intent.CodePlanInvalid {
		t.Fatalf("bob over REST: %d %s", r.status, r.body)
	}
	if n := f.cat.deleted.Load(); n != 0 {
		t.Fatalf("ran %d times before its owner confirmed", n)
	}
	if env := callTool(t, alice, "act", confirm); !env.OK {
		t.Fatalf("alice's confirmation: %+v", env)
	}
	if env := callTool(t, alice, "act", confirm); env.OK || env.Code != intent.CodePlanInvalid {
		t.Fatalf("replay: %+v", env)
	}
	if n := f.cat.deleted.Load(); n != 1 {
		t.Fatalf("ran %d times, want 1", n)
	}
}

// rawMCP posts one JSON-RPC message to /mcp with key and session id and
// returns the response.
func (f *fixture) rawMCP(key, session, msg string) *http.Response {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.url+PathMCP, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestSessionBindsToPrincipal(t *testing.T) {
	f := newFixture(t, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	resp := f.rawMCP(keyAlice, "", init)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := f.rawMCP(keyBob, session, list); r.StatusCode != http.StatusNotFound {
		t.Fatalf("bob used alice's session: %d", r.StatusCode)
	}
	if r := f.rawMCP(keyAlice, session, list); r.StatusCode != http.StatusOK {
		t.Fatalf("alice's own session: %d", r.StatusCode)
	}
	// Bob cannot end it either.
	del, _ := http.NewRequest(http.MethodDelete, f.url+PathMCP, nil)
	del.Header.Set("Authorization", "Bearer "+keyBob)
	del.Header.Set("Mcp-Session-Id", session)
	del.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if r := f.do(del); r.status == http.StatusOK {
		t.Fatal("bob terminated alice's session")
	}
	if r := f.rawMCP(keyAlice, session, list); r.StatusCode != http.StatusOK {
		t.Fatalf("alice's session after bob's delete: %d", r.StatusCode)
	}
	if r := f.rawMCP(keyAlice, "mcp-session-made-up", list); r.StatusCode != http.StatusNotFound {
		t.Fatalf("made-up session: %d", r.StatusCode)
	}
}

func readAudit(t *testing.T, path string) ([]AuditRecord, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []AuditRecord
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		var r AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs, string(raw)
}

func TestAuditLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	f := newFixture(t, func(c *Config) { c.AuditLog = path; c.RatePerSecond = 0.01; c.Burst = 6 })
	const secretNote = "customer-ssn-123-45-6789"
	args := map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 9, "note": secretNote}}
	alice := f.mustMCP(keyAlice) // initialize: 1 request
	ref := planRefOf(t, callTool(t, alice, "act", args))
	args["plan_ref"] = ref
	if env := callTool(t, alice, "act", args); !env.OK {
		t.Fatalf("confirm: %+v", env)
	}
	body, _ := json.Marshal(args)
	f.post("/v1/act", keyAlice, string(body))                                    // replay over REST: refused
	f.post("/v1/act", "wrong-key-wrong-key-wrong", string(body))                 // unauthenticated: refused
	f.post("/v1/find", keyAlice, `{"intent":"search tickets"}`)                  // not an act: no record
	f.post("/v1/act", keyAlice, `{"intent":"delete ticket 4"}`)                  // intent-only act: refused or previewed, never run
	f.post("/v1/act", keyAlice, `{"action":"tickets.delete","params":{"id":1}}`) // over the rate limit: refused

	recs, raw := readAudit(t, path)
	type row struct{ principal, transport, outcome, code string }
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Principal, r.Transport, r.Outcome, r.Code})
		if r.Time.IsZero() {
			t.Errorf("record without time: %+v", r)
		}
	}
	want := []row{
		{"alice", "mcp", OutcomePreviewed, "confirmation_required"},
		{"alice", "mcp", OutcomeExecuted, ""},
		{"alice", "rest", OutcomeRefused, "plan_invalid"},
		{"", "rest", OutcomeRefused, "unauthorized"},
	}
	if len(got) != len(want)+2 {
		t.Fatalf("audit rows = %+v\n%s", got, raw)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("row %d = %+v, want %+v", i, got[i], w)
		}
	}
	if intentOnly := got[len(want)]; intentOnly.outcome == OutcomeExecuted || intentOnly.principal != "alice" {
		t.Errorf("intent-only act = %+v; it must never execute", intentOnly)
	}
	if last := got[len(got)-1]; last != (row{"alice", "rest", OutcomeRefused, "rate_limited"}) {
		t.Errorf("rate-limited act = %+v", last)
	}
	if recs[0].Operation != "tickets.delete" || recs[0].Params == "" || recs[0].Params != recs[1].Params || !recs[1].Confirm {
		t.Errorf("preview and confirmation should name the operation and share a params digest: %+v / %+v", recs[0], recs[1])
	}
	for _, secret := range []string{secretNote, keyAlice, keyBob, ref, "wrong-key-wrong-key-wrong"} {
		if strings.Contains(raw, secret) {
			t.Errorf("audit log holds %q", secret)
		}
	}
}

// TestAuditLogReplayedIdempotencyKey records a retry answered from an
// idempotency key's record as replayed, not as a second execution, and
// never records the key.
func TestAuditLogReplayedIdempotencyKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	f := newFixture(t, func(c *Config) { c.AuditLog = path })
	const key = "idem-key-secret-0001"
	alice := f.mustMCP(keyAlice)
	for range 2 {
		args := map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 5}}
		args["plan_ref"] = planRefOf(t, callTool(t, alice, "act", args))
		args["idempotency_key"] = key
		if env := callTool(t, alice, "act", args); !env.OK {
			t.Fatalf("confirm: %+v", env)
		}
	}
	recs, raw := readAudit(t, path)
	var outcomes []string
	for _, r := range recs {
		outcomes = append(outcomes, r.Outcome)
	}
	want := []string{OutcomePreviewed, OutcomeExecuted, OutcomePreviewed, OutcomeReplayed}
	if strings.Join(outcomes, " ") != strings.Join(want, " ") {
		t.Fatalf("outcomes %v, want %v\n%s", outcomes, want, raw)
	}
	if strings.Contains(raw, key) {
		t.Fatal("the audit log holds the idempotency key")
	}
}
