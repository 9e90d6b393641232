package intent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An act call may carry an idempotency key (the reserved input field
// idempotency_key). The first call with a key executes and its outcome is
// recorded; a later call with the same key and the same action and params
// gets the recorded outcome without executing again; the same key with a
// different call is a conflict. Keys are scoped to the caller, and stores
// see only a hash of (caller, key), never the key itself.

// MetaIdempotencyKey is the field of an MCP tools/call request's _meta that
// may carry the idempotency key instead of the input's idempotency_key.
const MetaIdempotencyKey = "idempotency_key"

// metaIdempotencyKey is the context key of a key that came in _meta.
type metaIdempotencyKey struct{}

// idempotencyKeyOf returns the call's idempotency key: the input field, or
// the one from the request's _meta. Both given and different is an
// invalid_params failure.
func idempotencyKeyOf(ctx context.Context, in Input) (string, *Envelope) {
	meta, _ := ctx.Value(metaIdempotencyKey{}).(string)
	meta = strings.TrimSpace(meta)
	switch {
	case meta == "":
		return in.IdempotencyKey, nil
	case len(meta) > maxIdempotencyKeyBytes:
		return "", failure(CodeInvalidParams, fmt.Sprintf("_meta.idempotency_key is %d bytes; use at most %d, e.g. a UUID", len(meta), maxIdempotencyKeyBytes),
			map[string]string{"field": "_meta.idempotency_key"}, &Remedy{Tool: ToolAct, Fix: "send a shorter key"})
	case in.IdempotencyKey != "" && in.IdempotencyKey != meta:
		return "", failure(CodeInvalidParams, "idempotency_key and _meta.idempotency_key differ; nothing ran",
			map[string]string{"field": "idempotency_key"}, &Remedy{Tool: ToolAct, Fix: "send the key in one place only"})
	}
	return meta, nil
}

// DefaultIdempotencyTTL is how long an idempotency key's outcome is kept.
const DefaultIdempotencyTTL = 24 * time.Hour

// maxIdempotencyKeyBytes bounds the key an agent may send.
const maxIdempotencyKeyBytes = 256

// ErrStoreUnavailable wraps a store failure that means the store could not
// be reached (e.g. Redis down). act answers it with upstream_unavailable,
// and nothing runs.
var ErrStoreUnavailable = errors.New("the plan store is unavailable")

// IdempotencyRecord is what a store keeps under one idempotency key.
type IdempotencyRecord struct {
	// Call fingerprints the action and canonical params the key was first
	// used with.
	Call string `json:"call"`
	// Done is false while the first call runs, true once its outcome is in.
	Done bool `json:"done"`
	// Outcome is the first call's envelope, as JSON, once Done.
	Outcome json.RawMessage `json:"outcome,omitempty"`
}

// IdempotencyStore keeps the outcomes of act calls under idempotency keys.
// A PlanStore that also implements it serves both (Options.PlanStore).
// Keys reaching a store are hex SHA-256 digests. Implementations must be
// safe for concurrent use and, for replicas, shared like the PlanStore.
type IdempotencyStore interface {
	// ClaimIdempotency atomically stores rec (not Done) under key until
	// lease, unless key holds a record already: then it returns that
	// record and claimed is false.
	ClaimIdempotency(ctx context.Context, key string, rec IdempotencyRecord, lease time.Time) (existing IdempotencyRecord, claimed bool, err error)
	// CompleteIdempotency replaces key's record with rec (Done, with its
	// outcome) until expires.
	CompleteIdempotency(ctx context.Context, key string, rec IdempotencyRecord, expires time.Time) error
	// ReleaseIdempotency deletes key's record when it is still the claim
	// rec, for a call that did not run.
	ReleaseIdempotency(ctx context.Context, key string, rec IdempotencyRecord) error
}

// idempotencyKey is what stores see for a caller's key: a digest, so a key
// that happens to be a secret never lands in a store.
func idempotencyKey(caller, key string) string {
	h := sha256.New()
	for _, part := range []string{"intentsrv-idempotency-v1", caller, key} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// callFingerprint identifies (action, canonical params).
func callFingerprint(action string, canon []byte) string {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(len(action)) + ":" + action))
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs call at most once per (caller, key): it claims the key,
// runs call, and records its outcome; or returns the recorded outcome, or a
// conflict. call reports ran=false when it did not execute the operation
// (e.g. its plan_ref was refused), which frees the key.
func (s *Server) idempotent(ctx context.Context, key, action string, args json.RawMessage, call func() (env *Envelope, ran bool)) *Envelope {
	store, ok := s.plans.store.(IdempotencyStore)
	if !ok {
		return failure(CodeInvalidParams, "this server's store does not keep idempotency keys; nothing ran", map[string]string{"field": "idempotency_key"},
			&Remedy{Tool: ToolAct, Action: action, Fix: "call act without idempotency_key (writes that need confirmation still run once per plan_ref)"})
	}
	canon, err := canonicalParams(args)
	if err != nil {
		return failure(CodeInvalidParams, "params are not valid JSON: "+err.Error(), nil, nil)
	}
	id := idempotencyKey(callerOf(ctx), key)
	claim := IdempotencyRecord{Call: callFingerprint(action, canon)}
	// The claim outlives the call (bounded by the timeout) so a second
	// request waits its turn; if this process dies mid-call, the claim
	// lapses and the key can be used again.
	lease := s.opts.Now().Add(2*s.opts.Timeout + time.Minute)
	existing, claimed, err := store.ClaimIdempotency(ctx, id, claim, lease)
	if err != nil {
		return s.storeFailure(action, err)
	}
	if !claimed {
		switch {
		case existing.Call != claim.Call:
			return failure(CodeConflict, "idempotency_key was already used for a different call (another action or other params); nothing ran", map[string]string{"field": "idempotency_key"},
				&Remedy{Tool: ToolAct, Action: action, Fix: "use a fresh idempotency_key for a new call, or repeat the first call's exact action and params to get its outcome"})
		case !existing.Done:
			return failure(CodeConflict, "the first call with this idempotency_key is still running; nothing ran", map[string]string{"field": "idempotency_key"},
				&Remedy{Tool: ToolAct, Action: action, Fix: "retry the same call in a few seconds to get its outcome"})
		}
		var env Envelope
		if err := json.Unmarshal(existing.Outcome, &env); err != nil {
			return failure(CodeInternalError, "the recorded outcome of this idempotency_key is unreadable; nothing ran", nil,
				&Remedy{Tool: ToolAct, Action: action, Fix: "use a fresh idempotency_key after checking whether the first call took effect"})
		}
		env.meta().Replayed = true
		return &env
	}
	env, ran := call()
	if !ran {
		// Best effort: a claim left behind lapses with its lease.
		if err := store.ReleaseIdempotency(context.WithoutCancel(ctx), id, claim); err != nil {
			s.log.Warn("could not release an idempotency claim; it lapses with its lease", "err", err)
		}
		return env
	}
	done := claim
	done.Done = true
	done.Outcome = env.JSON()
	if err := store.CompleteIdempotency(context.WithoutCancel(ctx), id, done, s.opts.Now().Add(s.opts.IdempotencyTTL)); err != nil {
		s.log.Error("could not record an idempotency outcome; a retry with the key answers conflict until the claim lapses", "err", err)
		env.Warnings = append(env.Warnings, "the call ran, but its outcome could not be recorded under idempotency_key: do not retry it with that key")
	}
	return env
}

// StoreRefusalCause is details.cause of a failure because the store that
// keeps plan_refs and idempotency keys at most once failed (unreachable:
// upstream_unavailable; else internal_error) before anything ran: the
// operation was not called.
const StoreRefusalCause = "plan_store"

// IsStoreRefusal reports whether env is such a failure, built here or
// decoded from JSON.
func IsStoreRefusal(env *Envelope) bool {
	if env == nil || env.OK {
		return false
	}
	switch d := env.Details.(type) {
	case map[string]string:
		return d["cause"] == StoreRefusalCause
	case map[string]any:
		return d["cause"] == StoreRefusalCause
	}
	return false
}

// storeFailure answers a store error other than "already used": nothing ran.
func (s *Server) storeFailure(action string, err error) *Envelope {
	s.log.Error("plan store failed", "err", err)
	details := map[string]string{"cause": StoreRefusalCause}
	if errors.Is(err, ErrStoreUnavailable) {
		return failure(CodeUpstreamUnavailable, "the store that keeps calls at most once could not be reached, so nothing ran: "+err.Error(), details,
			&Remedy{Tool: ToolAct, Action: action, Fix: "retry the same call (with the same plan_ref or idempotency_key) once the store is back"})
	}
	return failure(CodeInternalError, "could not record the call in the store, so it did not run: "+err.Error(), details,
		&Remedy{Tool: ToolAct, Action: action, Fix: "retry in a moment with the same plan_ref or idempotency_key"})
}

// memoryIdempotency is MemoryPlanStore's IdempotencyStore half.
type memoryIdempotency struct {
	mu   sync.Mutex
	recs map[string]memoryRecord
}

type memoryRecord struct {
	rec     IdempotencyRecord
	expires time.Time
}

func (m *memoryIdempotency) claim(now time.Time, key string, rec IdempotencyRecord, lease time.Time) (IdempotencyRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]memoryRecord{}
	}
	for k, r := range m.recs {
		if !now.Before(r.expires) {
			delete(m.recs, k)
		}
	}
	if r, ok := m.recs[key]; ok {
		return r.rec, false
	}
	m.recs[key] = memoryRecord{rec: rec, expires: lease}
	return IdempotencyRecord{}, true
}

func (m *memoryIdempotency) complete(key string, rec IdempotencyRecord, expires time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]memoryRecord{}
	}
	m.recs[key] = memoryRecord{rec: rec, expires: expires}
}

func (m *memoryIdempotency) release(key string, rec IdempotencyRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.recs[key]; ok && !r.rec.Done && r.rec.Call == rec.Call {
		delete(m.recs, key)
	}
}
