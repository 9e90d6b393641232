package intent

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// A plan_ref is "v1.<expiry unix seconds>.<nonce>.<mac>", where mac is
// HMAC-SHA256 over (version, action, canonical params, caller, expiry,
// nonce). It is stateless: any replica holding the same key verifies it.
// The nonce makes two previews of the same call distinct, so the
// at-most-once record of one does not block the other.

// MinPlanKeyBytes is the shortest plan key New accepts: HMAC-SHA256 wants
// a key of at least its output size.
const MinPlanKeyBytes = 32

var (
	errPlanMalformed = errors.New("plan_ref is malformed")
	errPlanMismatch  = errors.New("plan_ref does not match this action, params and caller")
	errPlanExpired   = errors.New("plan_ref has expired")
	// ErrPlanUsed is returned by a PlanStore for a plan_ref that already
	// executed.
	ErrPlanUsed = errors.New("plan_ref was already executed")
)

// PlanStore records which plan_refs have executed, so that each executes at
// most once. Implementations must be safe for concurrent use; replicas that
// share a plan key should share a store.
type PlanStore interface {
	// Consume marks ref as executed until expires (after which the ref is
	// refused as expired anyway, so the record may be forgotten). It
	// returns ErrPlanUsed when ref was consumed before.
	Consume(ctx context.Context, ref string, expires time.Time) error
}

// MemoryPlanStore is the default PlanStore (and IdempotencyStore): records
// in this process's memory, swept of expired ones as it goes. The zero
// value is ready to use.
type MemoryPlanStore struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time
	idem memoryIdempotency
}

func (m *MemoryPlanStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// ClaimIdempotency implements IdempotencyStore.
func (m *MemoryPlanStore) ClaimIdempotency(_ context.Context, key string, rec IdempotencyRecord, lease time.Time) (IdempotencyRecord, bool, error) {
	existing, claimed := m.idem.claim(m.now(), key, rec, lease)
	return existing, claimed, nil
}

// CompleteIdempotency implements IdempotencyStore.
func (m *MemoryPlanStore) CompleteIdempotency(_ context.Context, key string, rec IdempotencyRecord, expires time.Time) error {
	m.idem.complete(key, rec, expires)
	return nil
}

// ReleaseIdempotency implements IdempotencyStore.
func (m *MemoryPlanStore) ReleaseIdempotency(_ context.Context, key string, rec IdempotencyRecord) error {
	m.idem.release(key, rec)
	return nil
}

// Consume implements PlanStore.
func (m *MemoryPlanStore) Consume(_ context.Context, ref string, expires time.Time) error {
	t := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used == nil {
		m.used = map[string]time.Time{}
	}
	if _, done := m.used[ref]; done {
		return ErrPlanUsed
	}
	for r, exp := range m.used {
		if t.After(exp) {
			delete(m.used, r)
		}
	}
	m.used[ref] = expires
	return nil
}

// planSigner issues and verifies plan_refs, and consults a PlanStore so
// each executes at most once.
type planSigner struct {
	key   []byte
	ttl   time.Duration
	now   func() time.Time
	store PlanStore
}

func newPlanSigner(key []byte, ttl time.Duration, now func() time.Time, store PlanStore) *planSigner {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			panic("intent: no randomness for the plan key: " + err.Error())
		}
	}
	if store == nil {
		store = &MemoryPlanStore{Now: now}
	}
	return &planSigner{key: key, ttl: ttl, now: now, store: store}
}

// canonicalParams re-encodes params with sorted keys and no insignificant
// space, so semantically equal params sign equally.
func canonicalParams(params json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return []byte("{}"), nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	// 3.0 and 3 are the same call: sign them alike.
	v, _ = operations.WholeNumbers(v)
	return json.Marshal(v)
}

func (p *planSigner) mac(action string, canon []byte, caller string, exp int64, nonce string) string {
	h := hmac.New(sha256.New, p.key)
	for _, part := range [][]byte{[]byte("v1"), []byte(action), canon, []byte(caller), []byte(strconv.FormatInt(exp, 10)), []byte(nonce)} {
		// Length-prefix every part so no two tuples share an encoding.
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write(part)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// issue returns a plan_ref for the call and its expiry.
func (p *planSigner) issue(action string, params json.RawMessage, caller string) (string, time.Time, error) {
	canon, err := canonicalParams(params)
	if err != nil {
		return "", time.Time{}, err
	}
	expiry := p.now().Add(p.ttl).Truncate(time.Second)
	nb := make([]byte, 9)
	if _, err := rand.Read(nb); err != nil {
		return "", time.Time{}, err
	}
	nonce := base64.RawURLEncoding.EncodeToString(nb)
	exp := expiry.Unix()
	return "v1." + strconv.FormatInt(exp, 10) + "." + nonce + "." + p.mac(action, canon, caller, exp, nonce), expiry, nil
}

// verify checks ref against the call. It does not consume it.
func (p *planSigner) verify(ref, action string, params json.RawMessage, caller string) error {
	parts := strings.Split(ref, ".")
	if len(parts) != 4 || parts[0] != "v1" {
		return errPlanMalformed
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return errPlanMalformed
	}
	canon, err := canonicalParams(params)
	if err != nil {
		return errPlanMismatch
	}
	want := p.mac(action, canon, caller, exp, parts[2])
	if !hmac.Equal([]byte(want), []byte(parts[3])) {
		return errPlanMismatch
	}
	if !p.now().Before(time.Unix(exp, 0)) {
		return errPlanExpired
	}
	if time.Unix(exp, 0).After(p.now().Add(p.ttl + time.Second)) {
		// Signed with this key but valid for longer than this server
		// issues: a replica with a longer TTL, or a forged clock. It
		// would outlive the at-most-once record; refuse it.
		return errPlanMismatch
	}
	return nil
}

// consume marks ref executed in the store; it fails when ref already was.
func (p *planSigner) consume(ctx context.Context, ref string) error {
	exp := p.now().Add(p.ttl)
	if parts := strings.Split(ref, "."); len(parts) == 4 {
		if s, err := strconv.ParseInt(parts[1], 10, 64); err == nil {
			exp = time.Unix(s, 0)
		}
	}
	return p.store.Consume(ctx, ref, exp)
}
