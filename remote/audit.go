package remote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// Outcomes recorded in the audit log.
const (
	OutcomeExecuted  = "executed"  // the operation ran and succeeded
	OutcomeFailed    = "failed"    // the operation ran, or may have, and failed (upstream error, timeout)
	OutcomePreviewed = "previewed" // nothing ran: a preview and plan_ref were returned
	OutcomeRefused   = "refused"   // nothing ran: policy, validation, plan, store, auth or limits said no
	OutcomeReplayed  = "replayed"  // nothing ran: the recorded outcome of an earlier call with the same idempotency key
)

// AuditRecord is one line of the audit log: one act call that executed or
// was refused. It never holds a key or the raw params, only a digest of the
// params, so two calls with the same arguments can be matched without
// revealing them.
type AuditRecord struct {
	Time      time.Time `json:"time"`
	Principal string    `json:"principal"`
	Transport string    `json:"transport"`           // "mcp" or "rest"
	Operation string    `json:"operation,omitempty"` // the action, or the routed operation of an intent
	Intent    bool      `json:"intent,omitempty"`    // the call named an intent, not an action
	Confirm   bool      `json:"confirm,omitempty"`   // the call carried a plan_ref
	Params    string    `json:"params_sha256"`       // digest of the canonical params; "" when none
	Outcome   string    `json:"outcome"`
	Code      string    `json:"code,omitempty"` // the envelope's error code when not executed
}

// auditLog appends AuditRecords as JSON lines and syncs each to disk: acts
// are rare, and a record lost in a crash is the one that mattered. A nil
// *auditLog records nothing. It is safe for concurrent use.
type auditLog struct {
	mu sync.Mutex
	w  io.Writer
	f  *os.File // w when it is a file, for Sync and Close
}

// openAuditLog opens path for appending (creating it, mode 0600).
func openAuditLog(path string) (*auditLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &auditLog{w: f, f: f}, nil
}

func (a *auditLog) write(rec AuditRecord) error {
	if a == nil {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if a.f != nil {
		return a.f.Sync()
	}
	return nil
}

func (a *auditLog) Close() error {
	if a == nil || a.f == nil {
		return nil
	}
	return a.f.Close()
}

// actRecord describes an act call from its raw arguments and the envelope
// it got. Raw arguments that do not decode still get a record (operation
// empty).
func actRecord(principal, transport string, raw []byte, env *intent.Envelope, now time.Time) AuditRecord {
	rec := AuditRecord{Time: now.UTC(), Principal: principal, Transport: transport, Outcome: outcomeOf(env)}
	if !env.OK {
		rec.Code = string(env.Code)
	}
	if in, err := intent.DecodeInput(raw); err == nil {
		rec.Operation = in.Action
		rec.Intent = in.Action == "" && in.Intent != ""
		rec.Confirm = in.PlanRef != ""
		if len(in.Params) > 0 {
			rec.Params = paramsDigest(in.Params)
		}
	}
	if rec.Operation == "" && env.Meta != nil {
		rec.Operation = env.Meta.RoutedTo
	}
	return rec
}

func outcomeOf(env *intent.Envelope) string {
	switch {
	case env.Meta != nil && env.Meta.Replayed:
		return OutcomeReplayed
	case env.OK:
		return OutcomeExecuted
	case env.Code == intent.CodeConfirmationRequired:
		return OutcomePreviewed
	case intent.IsStoreRefusal(env):
		return OutcomeRefused // the at-most-once store failed first: nothing ran
	case env.Code == intent.CodeUpstreamError || env.Code == intent.CodeUpstreamUnavailable || env.Code == intent.CodeTimeout ||
		env.Code == intent.CodeNotFound || env.Code == intent.CodeConflict || env.Code == intent.CodeInternalError ||
		env.Code == intent.CodeResultTooLarge:
		return OutcomeFailed
	}
	return OutcomeRefused
}

// paramsDigest is the hex SHA-256 of params re-encoded with sorted keys, so
// equal arguments digest alike however they were spaced or ordered.
func paramsDigest(params json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	canon := []byte(params)
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
