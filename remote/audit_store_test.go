package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// downStore is a plan and idempotency store that cannot be reached, like
// Redis stopped after start-up.
type downStore struct{}

var errDown = fmt.Errorf("redis at 127.0.0.1:1: %w", intent.ErrStoreUnavailable)

func (downStore) Consume(context.Context, string, time.Time) error { return errDown }
func (downStore) ClaimIdempotency(context.Context, string, intent.IdempotencyRecord, time.Time) (intent.IdempotencyRecord, bool, error) {
	return intent.IdempotencyRecord{}, false, errDown
}
func (downStore) CompleteIdempotency(context.Context, string, intent.IdempotencyRecord, time.Time) error {
	return errDown
}
func (downStore) ReleaseIdempotency(context.Context, string, intent.IdempotencyRecord) error {
	return errDown
}

// TestAuditLogStoreDownIsRefused audits a confirmation (and a keyed call)
// that the at-most-once store could not record as refused with its code,
// not failed: the operation was never called. An upstream that is down
// while the operation runs stays failed.
func TestAuditLogStoreDownIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	f := newFixture(t, func(c *Config) { c.AuditLog = path })
	reg, cat := newCatalog(t)
	t.Cleanup(cat.finish)
	is, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm, PlanKey: bytes.Repeat([]byte("k"), 32), Timeout: 20 * time.Second, PlanStore: downStore{}})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.SetIntent(is)
	alice := f.mustMCP(keyAlice)
	args := map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 5}}
	args["plan_ref"] = planRefOf(t, callTool(t, alice, "act", args))
	if env := callTool(t, alice, "act", args); env.OK || env.Code != intent.CodeUpstreamUnavailable {
		t.Fatalf("confirm with the store down: %+v", env)
	}
	args["idempotency_key"] = "retry-1"
	body, _ := json.Marshal(args)
	res := f.post(PathREST+intent.ToolAct, keyAlice, string(body))
	if res.env.Code != intent.CodeUpstreamUnavailable {
		t.Fatalf("keyed confirm over REST with the store down: %+v", res.env)
	}
	if n := cat.deleted.Load(); n != 0 {
		t.Fatalf("the operation ran %d times with the store down", n)
	}
	recs, raw := readAudit(t, path)
	var got []string
	for _, r := range recs {
		got = append(got, r.Transport+" "+r.Outcome+" "+r.Code)
	}
	want := []string{"mcp previewed confirmation_required", "mcp refused upstream_unavailable", "rest refused upstream_unavailable"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("audit %q, want %q\n%s", got, want, raw)
	}
}

func TestOutcomeOfUpstreamUnavailable(t *testing.T) {
	ran := &intent.Envelope{Code: intent.CodeUpstreamUnavailable, Details: map[string]any{"host": "api.example"}}
	if got := outcomeOf(ran); got != OutcomeFailed {
		t.Fatalf("an unreachable upstream while the operation runs: %s, want %s", got, OutcomeFailed)
	}
	store := &intent.Envelope{Code: intent.CodeInternalError, Details: map[string]any{"cause": intent.StoreRefusalCause}}
	if got := outcomeOf(store); got != OutcomeRefused {
		t.Fatalf("a store that failed before the call: %s, want %s", got, OutcomeRefused)
	}
}
