package intent

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

func TestShortPlanKeyIsRefused(t *testing.T) {
	_, err := New(operations.NewRegistry(), Options{PlanKey: []byte("too-short-key")})
	if err == nil || !strings.Contains(err.Error(), "INTENTSRV_PLAN_KEY") || !strings.Contains(err.Error(), "32") {
		t.Fatalf("want a clear error naming the variable and the minimum, got %v", err)
	}
	if _, err := New(operations.NewRegistry(), Options{PlanKey: bytes.Repeat([]byte("k"), MinPlanKeyBytes)}); err != nil {
		t.Fatalf("a %d-byte key: %v", MinPlanKeyBytes, err)
	}
}

func TestRandomPlanKeyWithWritesWarns(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := New(operations.NewRegistry(), Options{Writes: WritesConfirm, Logger: log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "random key") {
		t.Fatalf("want a warning about the random plan key, got %q", logs.String())
	}
	logs.Reset()
	if _, err := New(operations.NewRegistry(), Options{Logger: log}); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Fatalf("read-only servers issue no plans and need no warning: %q", logs.String())
	}
}

// A plan_ref signed with the shared key but valid for longer than this
// server's TTL (a replica configured otherwise, a forged expiry) is refused.
func TestPlanLongerThanTTLIsRefused(t *testing.T) {
	key := bytes.Repeat([]byte("x"), 32)
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	long := newPlanSigner(key, 2*time.Hour, now, nil)
	short := newPlanSigner(key, 10*time.Minute, now, nil)
	params := json.RawMessage(`{"id":1}`)
	ref, _, err := long.issue("notes.delete", params, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := long.verify(ref, "notes.delete", params, "alice"); err != nil {
		t.Fatalf("its own signer: %v", err)
	}
	if err := short.verify(ref, "notes.delete", params, "alice"); err == nil {
		t.Fatal("a plan valid for 2h was accepted by a server whose plans live 10m")
	}
	ref, _, _ = short.issue("notes.delete", params, "alice")
	if err := long.verify(ref, "notes.delete", params, "alice"); err != nil {
		t.Fatalf("a shorter plan is fine: %v", err)
	}
}
