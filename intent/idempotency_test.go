package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

// idemServer serves tickets.close (a write, run at once under
// WritesAllow) and tickets.delete (destructive: preview, then plan_ref),
// counting executions.
func idemServer(t *testing.T, store PlanStore) (*Server, *atomic.Int64) {
	t.Helper()
	var ran atomic.Int64
	reg := operations.NewRegistry()
	type in struct {
		ID int `json:"id"`
	}
	for _, op := range []operations.Operation{
		{ID: "tickets.close", Summary: "Close a ticket", Kind: operations.KindWrite},
		{ID: "tickets.delete", Summary: "Delete a ticket", Kind: operations.KindDestructive},
	} {
		err := operations.Add(reg, op, func(_ context.Context, v in) (map[string]any, error) {
			return map[string]any{"id": v.ID, "run": ran.Add(1)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	srv, err := New(reg, Options{Writes: WritesAllow, PlanKey: bytes.Repeat([]byte("i"), 32), PlanStore: store})
	if err != nil {
		t.Fatal(err)
	}
	return srv, &ran
}

func actJSON(action string, id int, extra ...string) []byte {
	s := fmt.Sprintf(`{"action":%q,"params":{"id":%d}`, action, id)
	for i := 0; i+1 < len(extra); i += 2 {
		s += fmt.Sprintf(`,%q:%q`, extra[i], extra[i+1])
	}
	return []byte(s + "}")
}

func TestIdempotencyKeyRunsOnceAndReplaysTheOutcome(t *testing.T) {
	srv, ran := idemServer(t, nil)
	ctx := WithCaller(context.Background(), "alice")
	first := srv.Call(ctx, ToolAct, actJSON("tickets.close", 4, "idempotency_key", "k-1"))
	if !first.OK || ran.Load() != 1 {
		t.Fatalf("first call: %s (ran %d)", first.JSON(), ran.Load())
	}
	again := srv.Call(ctx, ToolAct, actJSON("tickets.close", 4, "idempotency_key", "k-1"))
	if !again.OK || ran.Load() != 1 || string(again.Data) != string(first.Data) || again.Meta == nil || !again.Meta.Replayed {
		t.Fatalf("retry: %s (ran %d)", again.JSON(), ran.Load())
	}
	if first.Meta != nil && first.Meta.Replayed {
		t.Fatal("the first call says replayed")
	}

	conflict := srv.Call(ctx, ToolAct, actJSON("tickets.close", 5, "idempotency_key", "k-1"))
	if conflict.OK || conflict.Code != CodeConflict || conflict.Remedy == nil || ran.Load() != 1 {
		t.Fatalf("same key, other params: %s (ran %d)", conflict.JSON(), ran.Load())
	}
	other := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 4, "idempotency_key", "k-1"))
	if other.Code != CodeConfirmationRequired {
		t.Fatalf("a preview does not use the key: %s", other.JSON())
	}

	// Keys are per caller: bob's k-1 is his own.
	bob := srv.Call(WithCaller(context.Background(), "bob"), ToolAct, actJSON("tickets.close", 9, "idempotency_key", "k-1"))
	if !bob.OK || ran.Load() != 2 {
		t.Fatalf("another caller's key: %s (ran %d)", bob.JSON(), ran.Load())
	}
	// Without a key, every call runs.
	srv.Call(ctx, ToolAct, actJSON("tickets.close", 4))
	srv.Call(ctx, ToolAct, actJSON("tickets.close", 4))
	if ran.Load() != 4 {
		t.Fatalf("ran %d, want 4", ran.Load())
	}
}

// TestIdempotencyKeyWithPlanRef confirms a preview with a key, then
// retries the confirmation (the same plan_ref, or a fresh one): the
// recorded outcome answers and nothing runs again.
func TestIdempotencyKeyWithPlanRef(t *testing.T) {
	srv, ran := idemServer(t, nil)
	ctx := context.Background()
	ref := func() string {
		env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7))
		raw, _ := json.Marshal(env.Details)
		var d struct {
			PlanRef string `json:"plan_ref"`
		}
		_ = json.Unmarshal(raw, &d)
		if d.PlanRef == "" {
			t.Fatalf("no plan_ref: %s", env.JSON())
		}
		return d.PlanRef
	}
	r1 := ref()
	if env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7, "plan_ref", r1, "idempotency_key", "del-7")); !env.OK {
		t.Fatalf("confirm: %s", env.JSON())
	}
	for _, r := range []string{r1, ref()} {
		env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7, "plan_ref", r, "idempotency_key", "del-7"))
		if !env.OK || !replayed(env) {
			t.Fatalf("retry: %s", env.JSON())
		}
	}
	// Without the key, the used plan_ref is refused as before.
	if env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7, "plan_ref", r1)); env.Code != CodePlanInvalid {
		t.Fatalf("replay without key: %s", env.JSON())
	}
	// A refused plan_ref frees the key it claimed: nothing ran.
	if env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7, "plan_ref", r1, "idempotency_key", "del-7b")); env.Code != CodePlanInvalid {
		t.Fatalf("used plan_ref under a new key: %s", env.JSON())
	}
	if env := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 7, "plan_ref", ref(), "idempotency_key", "del-7b")); !env.OK || replayed(env) {
		t.Fatalf("the key was not freed: %s", env.JSON())
	}
	if ran.Load() != 2 {
		t.Fatalf("ran %d, want 2", ran.Load())
	}
}

func TestIdempotencyKeyConcurrentCallsRunOnce(t *testing.T) {
	srv, ran := idemServer(t, nil)
	var wg sync.WaitGroup
	var ok, busy atomic.Int64
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := srv.Call(context.Background(), ToolAct, actJSON("tickets.close", 1, "idempotency_key", "same"))
			switch {
			case env.OK:
				ok.Add(1)
			case env.Code == CodeConflict:
				busy.Add(1) // the first call was still running
			default:
				t.Error(env.JSON())
			}
		}()
	}
	wg.Wait()
	if ran.Load() != 1 || ok.Load()+busy.Load() != 16 {
		t.Fatalf("ran %d (ok %d, in flight %d)", ran.Load(), ok.Load(), busy.Load())
	}
}

func TestIdempotencyKeyOnlyOnAct(t *testing.T) {
	srv, _ := idemServer(t, nil)
	for _, tool := range []string{ToolFind, ToolDescribe, ToolAsk} {
		env := srv.Call(context.Background(), tool, []byte(`{"intent":"close","idempotency_key":"x"}`))
		if env.Code != CodeInvalidParams {
			t.Fatalf("%s with a key: %s", tool, env.JSON())
		}
	}
	long := bytes.Repeat([]byte("k"), maxIdempotencyKeyBytes+1)
	if env := srv.Call(context.Background(), ToolAct, actJSON("tickets.close", 1, "idempotency_key", string(long))); env.Code != CodeInvalidParams {
		t.Fatalf("oversized key: %s", env.JSON())
	}
}

// downStore is a store that cannot be reached.
type downStore struct{}

var errDown = fmt.Errorf("dial tcp 127.0.0.1:1: connection refused: %w", ErrStoreUnavailable)

func (downStore) Consume(context.Context, string, time.Time) error { return errDown }
func (downStore) ClaimIdempotency(context.Context, string, IdempotencyRecord, time.Time) (IdempotencyRecord, bool, error) {
	return IdempotencyRecord{}, false, errDown
}
func (downStore) CompleteIdempotency(context.Context, string, IdempotencyRecord, time.Time) error {
	return errDown
}
func (downStore) ReleaseIdempotency(context.Context, string, IdempotencyRecord) error { return errDown }

func TestStoreDownIsUpstreamUnavailableAndRunsNothing(t *testing.T) {
	srv, ran := idemServer(t, downStore{})
	ctx := context.Background()
	preview := srv.Call(ctx, ToolAct, actJSON("tickets.delete", 2))
	raw, _ := json.Marshal(preview.Details)
	var d struct {
		PlanRef string `json:"plan_ref"`
	}
	_ = json.Unmarshal(raw, &d)
	for name, call := range map[string][]byte{
		"plan_ref":        actJSON("tickets.delete", 2, "plan_ref", d.PlanRef),
		"idempotency_key": actJSON("tickets.close", 2, "idempotency_key", "k"),
	} {
		env := srv.Call(ctx, ToolAct, call)
		if env.Code != CodeUpstreamUnavailable || env.Remedy == nil {
			t.Fatalf("%s with the store down: %s", name, env.JSON())
		}
	}
	if ran.Load() != 0 {
		t.Fatalf("ran %d with the store down", ran.Load())
	}
}

func TestIdempotencyKeyNeedsAStoreThatKeepsThem(t *testing.T) {
	plansOnly := struct{ PlanStore }{&MemoryPlanStore{}} // hides the idempotency methods
	srv, ran := idemServer(t, plansOnly)
	env := srv.Call(context.Background(), ToolAct, actJSON("tickets.close", 1, "idempotency_key", "k"))
	if env.Code != CodeInvalidParams || ran.Load() != 0 {
		t.Fatalf("%s (ran %d)", env.JSON(), ran.Load())
	}
}

// TestIdempotencyClaimLapses: a claim whose call never completed (its
// process died) frees the key once its lease passes, and not before.
func TestIdempotencyClaimLapses(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	store := &MemoryPlanStore{Now: func() time.Time { return now }}
	ctx := context.Background()
	claim := IdempotencyRecord{Call: "c"}
	if _, ok, _ := store.ClaimIdempotency(ctx, "k", claim, now.Add(time.Minute)); !ok {
		t.Fatal("first claim refused")
	}
	now = now.Add(59 * time.Second)
	if _, ok, _ := store.ClaimIdempotency(ctx, "k", claim, now.Add(time.Minute)); ok {
		t.Fatal("claimed twice within the lease")
	}
	now = now.Add(2 * time.Second)
	if _, ok, _ := store.ClaimIdempotency(ctx, "k", claim, now.Add(time.Minute)); !ok {
		t.Fatal("the lapsed claim still holds the key")
	}
}

// TestIdempotencyKeyInMeta sends the key in the MCP request's _meta.
func TestIdempotencyKeyInMeta(t *testing.T) {
	srv, ran := idemServer(t, nil)
	c, err := client.NewInProcessClient(NewMCPServer(srv, "v0"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "0"}}}); err != nil {
		t.Fatal(err)
	}
	call := func(args map[string]any, metaKey string) Envelope {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = ToolAct
		req.Params.Arguments = args
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{MetaIdempotencyKey: metaKey}}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var env Envelope
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &env)
		return env
	}
	args := map[string]any{"action": "tickets.close", "params": map[string]any{"id": 3}}
	if env := call(args, "m-1"); !env.OK || replayed(&env) {
		t.Fatalf("first: %+v", env)
	}
	if env := call(args, "m-1"); !env.OK || !replayed(&env) {
		t.Fatalf("retry: %+v", env)
	}
	// The same key in the input is the same key.
	args["idempotency_key"] = "m-1"
	if env := call(args, ""); !env.OK || !replayed(&env) {
		t.Fatalf("key in the input: %+v", env)
	}
	if env := call(args, "m-2"); env.Code != CodeInvalidParams {
		t.Fatalf("two different keys: %+v", env)
	}
	if ran.Load() != 1 {
		t.Fatalf("ran %d, want 1", ran.Load())
	}
}

// replayed reports whether env is a recorded outcome replayed under its
// idempotency key.
func replayed(env *Envelope) bool { return env.Meta != nil && env.Meta.Replayed }
