package planstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/redistest"
)

func openRedis(t *testing.T, url string) *Redis {
	t.Helper()
	r, err := OpenRedis(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRedisConsumeOnceAcrossClients is two replicas (two clients) racing
// to consume the same plan_ref: exactly one wins.
func TestRedisConsumeOnceAcrossClients(t *testing.T) {
	srv := redistest.Start(t)
	replicas := []*Redis{openRedis(t, srv.URL()), openRedis(t, srv.URL())}
	assertOneWinner(t, 32, func(i int) intent.PlanStore { return replicas[i%2] })
	exp := time.Now().Add(time.Hour)
	if err := replicas[0].Consume(context.Background(), "v1.other-ref", exp); err != nil {
		t.Fatalf("another ref: %v", err)
	}
}

// TestRedisKeysAreNamespacedHashesWithExpiry reads the server's keys: each
// under the prefix, none holding the plan_ref, each expiring with it.
func TestRedisKeysAreNamespacedHashesWithExpiry(t *testing.T) {
	srv := redistest.Start(t)
	r := openRedis(t, srv.URL()+"?prefix=team-a:")
	ref := "v1.1800000000.nonce.SECRETMAC"
	exp := time.Now().Add(10 * time.Minute)
	if err := r.Consume(context.Background(), ref, exp); err != nil {
		t.Fatal(err)
	}
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	keys, err := raw.Keys(context.Background(), "*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	if !strings.HasPrefix(keys[0], "team-a:plan:") || strings.Contains(keys[0], "SECRETMAC") || strings.Contains(keys[0], "nonce") {
		t.Fatalf("key %q is not a namespaced digest", keys[0])
	}
	ttl, err := raw.TTL(context.Background(), keys[0]).Result()
	if err != nil || ttl <= 9*time.Minute || ttl > 10*time.Minute {
		t.Fatalf("TTL %v (%v), want the plan's 10 minutes", ttl, err)
	}
	// Another prefix is another namespace.
	other := openRedis(t, srv.URL()+"?prefix=team-b:")
	if err := other.Consume(context.Background(), ref, exp); err != nil {
		t.Fatalf("same ref in another namespace: %v", err)
	}
}

// TestRedisDownIsUnavailableThenRecovers kills the server: the store says
// unavailable (not "used", not a success), and once the server is back
// (with its append-only file) the records are still there.
func TestRedisDownIsUnavailableThenRecovers(t *testing.T) {
	srv := redistest.Start(t)
	r := openRedis(t, srv.URL())
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	if err := r.Consume(ctx, "before", exp); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if err := r.Consume(ctx, "during", exp); !errors.Is(err, intent.ErrStoreUnavailable) {
		t.Fatalf("consume with redis down = %v, want ErrStoreUnavailable", err)
	}
	if _, _, err := r.ClaimIdempotency(ctx, "k", intent.IdempotencyRecord{Call: "c"}, exp); !errors.Is(err, intent.ErrStoreUnavailable) {
		t.Fatalf("claim with redis down = %v, want ErrStoreUnavailable", err)
	}
	if _, err := OpenRedis(ctx, srv.URL()); !errors.Is(err, intent.ErrStoreUnavailable) {
		t.Fatalf("open with redis down = %v, want ErrStoreUnavailable", err)
	}
	srv.Restart()
	if err := r.Consume(ctx, "before", exp); !errors.Is(err, intent.ErrPlanUsed) {
		t.Fatalf("record lost across the restart: %v", err)
	}
	if err := r.Consume(ctx, "during", exp); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

func TestRedisRefusesBadURLsWithoutLeakingPasswords(t *testing.T) {
	for _, u := range []string{"redis://user:hunter2@127.0.0.1:1/notanumber", "redis://user:hunter2@[::1", "redis://user:hunter2@127.0.0.1:1/0?bogus=1"} {
		_, err := OpenRedis(context.Background(), u)
		if err == nil {
			t.Fatalf("%s opened", u)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("%s: the error shows the password: %v", u, err)
		}
	}
}

// TestIdempotencyStores holds every store to the same contract.
func TestIdempotencyStores(t *testing.T) {
	stores := map[string]func(t *testing.T) intent.IdempotencyStore{
		"memory": func(*testing.T) intent.IdempotencyStore { return &intent.MemoryPlanStore{} },
		"bolt": func(t *testing.T) intent.IdempotencyStore {
			b := open(t, filepath.Join(t.TempDir(), "plans.db"), nil)
			t.Cleanup(func() { b.Close() })
			return b
		},
		"redis": func(t *testing.T) intent.IdempotencyStore { return openRedis(t, redistest.Start(t).URL()) },
	}
	for name, openStore := range stores {
		t.Run(name, func(t *testing.T) {
			s := openStore(t)
			ctx := context.Background()
			lease := time.Now().Add(time.Minute)
			claim := intent.IdempotencyRecord{Call: "call-1"}
			if _, claimed, err := s.ClaimIdempotency(ctx, "k1", claim, lease); err != nil || !claimed {
				t.Fatalf("first claim: %v %v", claimed, err)
			}
			held, claimed, err := s.ClaimIdempotency(ctx, "k1", intent.IdempotencyRecord{Call: "call-2"}, lease)
			if err != nil || claimed || held.Call != "call-1" || held.Done {
				t.Fatalf("second claim: %+v %v %v", held, claimed, err)
			}
			// Releasing someone else's claim does nothing.
			if err := s.ReleaseIdempotency(ctx, "k1", intent.IdempotencyRecord{Call: "call-2"}); err != nil {
				t.Fatal(err)
			}
			done := intent.IdempotencyRecord{Call: "call-1", Done: true, Outcome: []byte(`{"ok":true}`)}
			if err := s.CompleteIdempotency(ctx, "k1", done, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			// A completed record is not released.
			if err := s.ReleaseIdempotency(ctx, "k1", claim); err != nil {
				t.Fatal(err)
			}
			held, claimed, err = s.ClaimIdempotency(ctx, "k1", claim, lease)
			if err != nil || claimed || !held.Done || string(held.Outcome) != `{"ok":true}` {
				t.Fatalf("claim after completion: %+v %v %v", held, claimed, err)
			}
			// A released claim frees the key.
			if _, claimed, _ := s.ClaimIdempotency(ctx, "k2", claim, lease); !claimed {
				t.Fatal("k2 not claimed")
			}
			if err := s.ReleaseIdempotency(ctx, "k2", claim); err != nil {
				t.Fatal(err)
			}
			if _, claimed, err := s.ClaimIdempotency(ctx, "k2", claim, lease); err != nil || !claimed {
				t.Fatalf("claim after release: %v %v", claimed, err)
			}
		})
	}
}
