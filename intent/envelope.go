package intent

import (
	"bytes"
	"encoding/json"
)

// Code is a machine-readable error code carried by a failed envelope. Agents
// branch on it; humans read Error and Remedy.
type Code string

// The error codes of the contract. Every failure carries one of them.
const (
	CodeUnknownAction        Code = "unknown_action"        // no visible operation has that id; details carry did-you-mean
	CodeInvalidParams        Code = "invalid_params"        // input or params do not fit; details carry JSON pointers
	CodeAmbiguousIntent      Code = "ambiguous_intent"      // the router found candidates but is not sure enough to run one
	CodeNoMatch              Code = "no_match"              // nothing in the catalog serves the intent
	CodeNotReadOnly          Code = "not_read_only"         // ask was given a write; use act
	CodeWritesDisabled       Code = "writes_disabled"       // the write policy is deny
	CodeConfirmationRequired Code = "confirmation_required" // nothing ran: preview returned, confirm with plan_ref
	CodePlanInvalid          Code = "plan_invalid"          // plan_ref tampered, for another call, or already used
	CodePlanExpired          Code = "plan_expired"          // plan_ref past its expiry
	CodeUpstreamError        Code = "upstream_error"        // the operation's backend answered with an error
	CodeUpstreamUnavailable  Code = "upstream_unavailable"  // the backend could not be reached
	CodeTimeout              Code = "timeout"               // the operation ran past its time budget
	CodeResultTooLarge       Code = "result_too_large"      // the result exceeds the budget and cannot be cut
	CodeRateLimited          Code = "rate_limited"          // the backend or server asked to slow down
	CodeUnauthorized         Code = "unauthorized"          // credentials missing or refused
	CodeInternalError        Code = "internal_error"        // a bug: handler panic, garbage output
	CodeNotFound             Code = "not_found"             // the operation ran; the thing it names does not exist
	CodeConflict             Code = "conflict"              // the operation ran; the request contradicts current state
	// CodeLockDrift: nothing ran; under --strict-lock the operation changed
	// (or appeared) since the lock file was written.
	CodeLockDrift Code = "lock_drift"
)

// Step is one suggested next call: the golden path lives on the result.
type Step struct {
	// Tool is the intent tool to call: find, describe, ask or act (with the
	// server's tool prefix).
	Tool string `json:"tool"`
	// Action is the operation id to pass, when there is one.
	Action string `json:"action,omitempty"`
	// Params are suggested arguments (e.g. a cursor), when useful.
	Params map[string]any `json:"params,omitempty"`
	// PlanRef is set on the step that confirms a preview.
	PlanRef string `json:"plan_ref,omitempty"`
	// Why says in a few words what the step is for.
	Why string `json:"why"`
}

// Remedy says how to recover from a failure.
type Remedy struct {
	Tool   string `json:"tool"`
	Action string `json:"action,omitempty"`
	Fix    string `json:"fix"`
}

// Meta carries routing, timing and truncation facts about a call.
type Meta struct {
	RoutedTo   string  `json:"routed_to,omitempty"`
	Score      float64 `json:"score,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// Alternatives are the ids of the router's other candidates, best
	// first: what to call instead when the routed operation was not the
	// one meant. Their scores are left out (the routed operation's
	// confidence is the calibrated figure, and every alternative costs an
	// agent's context tokens on every call); find shows the full ranking.
	Alternatives []string `json:"alternatives,omitempty"`
	ElapsedMS    float64  `json:"elapsed_ms,omitempty"`
	Truncated    bool     `json:"truncated,omitempty"`
	// RunID names the run an envelope reports on: set on run handles and
	// on results returned by runs.await.
	RunID string `json:"run_id,omitempty"`
	// Replayed marks the recorded outcome of an earlier act call with the
	// same idempotency key: nothing ran this time.
	Replayed bool `json:"replayed,omitempty"`
}

// Envelope is the one result shape of every intent tool. OK is true on
// success, with Data; on failure Error, Code and Remedy say what happened and
// how to recover. MCP hosts receive it as structuredContent, with isError
// exactly when OK is false.
type Envelope struct {
	OK        bool            `json:"ok"`
	Data      json.RawMessage `json:"data,omitempty"`
	Error     string          `json:"error,omitempty"`
	Code      Code            `json:"code,omitempty"`
	Details   any             `json:"details,omitempty"`
	NextSteps []Step          `json:"next_steps,omitempty"`
	Remedy    *Remedy         `json:"remedy,omitempty"`
	Warnings  []string        `json:"warnings,omitempty"`
	Meta      *Meta           `json:"meta,omitempty"`

	// checked is Data as the server validated and compacted it (setData):
	// while Data is still that slice, the encoder appends it unscanned.
	checked json.RawMessage
}

// JSON encodes the envelope compactly. Encoding cannot fail for envelopes the
// server builds; a failure yields a minimal internal_error envelope.
//
// HTML is not escaped: the reader is a model, and "\u003c" for "<" only
// costs tokens and clarity.
func (e *Envelope) JSON() []byte {
	b, err := e.appendJSON(make([]byte, 0, 192+len(e.Data)))
	if err != nil {
		return []byte(`{"ok":false,"error":"envelope could not be encoded","code":"internal_error"}`)
	}
	return b
}

// encodeJSON is json.Marshal without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (m *Meta) empty() bool {
	return m.RoutedTo == "" && m.Score == 0 && m.Confidence == 0 && len(m.Alternatives) == 0 && m.ElapsedMS == 0 && !m.Truncated && m.RunID == "" && !m.Replayed
}

func (e *Envelope) meta() *Meta {
	if e.Meta == nil {
		e.Meta = &Meta{}
	}
	return e.Meta
}

// success builds an OK envelope around v, which must encode as JSON.
func success(v any, next ...Step) *Envelope {
	raw, err := marshal(v)
	if err != nil {
		return failure(CodeInternalError, "result could not be encoded: "+err.Error(), nil, nil)
	}
	env := &Envelope{OK: true, Data: raw, NextSteps: next}
	if _, passed := v.(json.RawMessage); !passed {
		env.checked = raw // encodeJSON wrote it: valid and compact
	}
	return env
}

// failure builds a failed envelope. Every failure carries a remedy: callers
// that pass nil get one pointing at the catalog overview.
func failure(code Code, msg string, details any, remedy *Remedy) *Envelope {
	if remedy == nil {
		remedy = &Remedy{Tool: "describe", Fix: "look at the catalog overview and try again"}
	}
	return &Envelope{OK: false, Code: code, Error: msg, Details: details, Remedy: remedy}
}

func marshal(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return encodeJSON(v)
}
