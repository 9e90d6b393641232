package planstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/redisconn"
)

// DefaultRedisPrefix namespaces every key the Redis store writes.
const DefaultRedisPrefix = "intentsrv:"

// Redis is an intent.PlanStore and intent.IdempotencyStore in a Redis or
// Valkey server, for replicas that share a plan key. Each record is one
// key that expires with the record (plan_refs at the plan's expiry), so
// the server forgets them by itself. Consume is a single SET NX, claims a
// Lua script: both atomic on the server, whichever replica calls first.
// Keys are the prefix, a kind, and a SHA-256 digest: no plan_ref or
// idempotency key is stored in the clear.
//
// Every failure to reach the server wraps intent.ErrStoreUnavailable, so act
// answers upstream_unavailable and runs nothing.
type Redis struct {
	client *redis.Client
	prefix string
	where  string // host:port/db, for messages (never the password)
}

// claimScript stores ARGV[1] under KEYS[1] until ARGV[2] (Unix ms) unless
// the key holds a value, which it returns instead (nil when it stored).
var claimScript = redis.NewScript(`
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
return false
`)

// releaseScript deletes KEYS[1] when it still holds ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// OpenRedis connects to the server named by rawURL,
// redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss:// for TLS, with an
// optional query parameter prefix (default DefaultRedisPrefix) that
// namespaces the keys, e.g. to share one server among deployments. It
// checks that the server answers before returning.
func OpenRedis(ctx context.Context, rawURL string) (*Redis, error) {
	conn, err := redisconn.Open(ctx, rawURL, "plan store", DefaultRedisPrefix)
	if errors.Is(err, redisconn.ErrUnavailable) {
		return nil, fmt.Errorf("%w: %w", intent.ErrStoreUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	return &Redis{client: conn.Client, prefix: conn.Prefix, where: conn.Where}, nil
}

// String names the server (address and database, no credentials).
func (r *Redis) String() string { return "redis " + r.where }

// Close closes the connections.
func (r *Redis) Close() error { return r.client.Close() }

func (r *Redis) unavailable(err error) error {
	return fmt.Errorf("redis plan store at %s: %w: %w", r.where, intent.ErrStoreUnavailable, err)
}

func (r *Redis) planKey(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return r.prefix + "plan:" + hex.EncodeToString(sum[:])
}

// idemKey is already a digest (see intent.IdempotencyStore).
func (r *Redis) idemKey(key string) string { return r.prefix + "idem:" + key }

// atLeastASecond keeps an expiry in the future, so a record is never
// written already expired (Redis would drop it at once).
func atLeastASecond(t time.Time) time.Time {
	if min := time.Now().Add(time.Second); t.Before(min) {
		return min
	}
	return t
}

// Consume implements intent.PlanStore.
func (r *Redis) Consume(ctx context.Context, ref string, expires time.Time) error {
	err := r.client.SetArgs(ctx, r.planKey(ref), "1", redis.SetArgs{Mode: "NX", ExpireAt: atLeastASecond(expires)}).Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.Nil):
		return intent.ErrPlanUsed
	default:
		return r.unavailable(err)
	}
}

// ClaimIdempotency implements intent.IdempotencyStore.
func (r *Redis) ClaimIdempotency(ctx context.Context, key string, rec intent.IdempotencyRecord, lease time.Time) (intent.IdempotencyRecord, bool, error) {
	var existing intent.IdempotencyRecord
	raw, err := json.Marshal(rec)
	if err != nil {
		return existing, false, err
	}
	held, err := claimScript.Run(ctx, r.client, []string{r.idemKey(key)}, raw, atLeastASecond(lease).UnixMilli()).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return existing, true, nil
	case err != nil:
		return existing, false, r.unavailable(err)
	}
	if err := json.Unmarshal([]byte(held), &existing); err != nil {
		return existing, false, fmt.Errorf("idempotency record in %s: %w", r.where, err)
	}
	return existing, false, nil
}

// CompleteIdempotency implements intent.IdempotencyStore.
func (r *Redis) CompleteIdempotency(ctx context.Context, key string, rec intent.IdempotencyRecord, expires time.Time) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := r.client.SetArgs(ctx, r.idemKey(key), raw, redis.SetArgs{ExpireAt: atLeastASecond(expires)}).Err(); err != nil {
		return r.unavailable(err)
	}
	return nil
}

// ReleaseIdempotency implements intent.IdempotencyStore.
func (r *Redis) ReleaseIdempotency(ctx context.Context, key string, rec intent.IdempotencyRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := releaseScript.Run(ctx, r.client, []string{r.idemKey(key)}, raw).Err(); err != nil {
		return r.unavailable(err)
	}
	return nil
}
