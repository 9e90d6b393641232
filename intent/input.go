package intent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/buger/jsonparser"
)

// Input is the condensed input every intent tool takes.
type Input struct {
	// Action is an operation id, or "describe" on any tool.
	Action string `json:"action,omitempty"`
	// Params are the operation's arguments; for find and describe, filters
	// (namespace, kind, limit, cursor). Always a JSON object when set.
	Params json.RawMessage `json:"params,omitempty"`
	// Intent is natural language; with no Action the router resolves it.
	Intent string `json:"intent,omitempty"`
	// PlanRef confirms a preview (act only).
	PlanRef string `json:"plan_ref,omitempty"`
	// IdempotencyKey makes an act call run at most once: repeating it with
	// the same key returns the recorded outcome (act only).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// Limits on the condensed input, so a hostile caller cannot make the router
// or the validator chew on megabytes.
const (
	maxInputBytes  = 1 << 20
	maxIntentRunes = 2000
	maxActionBytes = 128
)

// InputError is a problem with the condensed input itself, before any
// operation is involved. Field names the offending top-level field.
type InputError struct {
	Field   string
	Message string
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

var knownFields = map[string]bool{"action": true, "params": true, "intent": true, "plan_ref": true, "idempotency_key": true}

// DecodeInput parses raw tool arguments into an Input. An empty or null
// argument object is the empty Input. It refuses non-object input, unknown
// top-level fields (naming them, since agents often put operation arguments
// at the top level by mistake), non-object params and oversized fields, with
// an *InputError.
func DecodeInput(raw []byte) (Input, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Input{}, nil
	}
	if len(raw) > maxInputBytes {
		return Input{}, &InputError{Message: fmt.Sprintf("input is %d bytes; the limit is %d", len(raw), maxInputBytes)}
	}
	if in, ok := decodeInputFast(raw); ok {
		return in.checked()
	}
	return decodeInputGeneral(raw)
}

// decodeInputGeneral is DecodeInput for any non-empty raw within the size
// limit: it accepts every form hosts send and names what is wrong with the
// rest.
func decodeInputGeneral(raw []byte) (Input, error) {
	if raw[0] == '"' {
		// Some hosts send the whole argument object as a JSON string.
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
			raw = []byte(strings.TrimSpace(s))
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Input{}, &InputError{Message: "input must be a JSON object with action, params, intent and (act only) plan_ref and idempotency_key"}
		}
		return Input{}, &InputError{Message: "input is not valid JSON: " + err.Error()}
	}
	var unknown []string
	for k := range fields {
		if !knownFields[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Input{}, &InputError{Field: unknown[0], Message: fmt.Sprintf(
			"unknown field(s) %s; the input has only action, params, intent, plan_ref and idempotency_key — put operation arguments inside params",
			strings.Join(unknown, ", "))}
	}
	var in Input
	for _, f := range []struct {
		name string
		dst  *string
	}{{"action", &in.Action}, {"intent", &in.Intent}, {"plan_ref", &in.PlanRef}, {"idempotency_key", &in.IdempotencyKey}} {
		name, dst := f.name, f.dst
		v, ok := fields[name]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return Input{}, &InputError{Field: name, Message: "must be a string"}
		}
	}
	if p, ok := fields["params"]; ok {
		p = bytes.TrimSpace(p)
		switch {
		case bytes.Equal(p, []byte("null")):
		case len(p) > 0 && p[0] == '{':
			in.Params = p
		case len(p) > 0 && p[0] == '"':
			// Some hosts send nested objects as JSON strings; accept a string
			// that holds an object, refuse anything else.
			var s string
			if err := json.Unmarshal(p, &s); err == nil && strings.HasPrefix(strings.TrimSpace(s), "{") && json.Valid([]byte(s)) {
				in.Params = json.RawMessage(strings.TrimSpace(s))
			} else {
				return Input{}, &InputError{Field: "params", Message: "must be a JSON object"}
			}
		default:
			return Input{}, &InputError{Field: "params", Message: "must be a JSON object"}
		}
	}
	return in.checked()
}

// checked trims the decoded input's strings and applies the size limits.
func (in Input) checked() (Input, error) {
	in.Action = strings.TrimSpace(in.Action)
	in.Intent = strings.TrimSpace(in.Intent)
	in.PlanRef = strings.TrimSpace(in.PlanRef)
	in.IdempotencyKey = strings.TrimSpace(in.IdempotencyKey)
	if len(in.Action) > maxActionBytes {
		return Input{}, &InputError{Field: "action", Message: fmt.Sprintf("is %d characters, longer than any operation id (at most 128); put plain words in intent", len(in.Action))}
	}
	if len(in.IdempotencyKey) > maxIdempotencyKeyBytes {
		return Input{}, &InputError{Field: "idempotency_key", Message: fmt.Sprintf("is %d bytes; use at most %d, e.g. a UUID", len(in.IdempotencyKey), maxIdempotencyKeyBytes)}
	}
	if n := len([]rune(in.Intent)); n > maxIntentRunes {
		return Input{}, &InputError{Field: "intent", Message: fmt.Sprintf("is %d characters; say it in at most %d", n, maxIntentRunes)}
	}
	return in, nil
}

// decodeInputFast decodes the input agents send nearly always, a JSON object
// of known fields whose strings are plain ASCII with no escapes and whose
// params, if any, is an object, without the general path's map and
// reflection (a tenth of an ask's time on the wire). It gives the same
// Input the general path would; ok is false for anything else, which the
// general path then decodes or refuses with its messages.
func decodeInputFast(raw []byte) (in Input, ok bool) {
	if raw[0] != '{' || !json.Valid(raw) {
		return Input{}, false
	}
	ok = true
	err := jsonparser.ObjectEach(raw, func(key, value []byte, t jsonparser.ValueType, _ int) error {
		var dst *string
		switch string(key) {
		case "action":
			dst = &in.Action
		case "intent":
			dst = &in.Intent
		case "plan_ref":
			dst = &in.PlanRef
		case "params":
			switch t {
			case jsonparser.Object:
				in.Params = value
			case jsonparser.Null:
			default:
				ok = false
			}
			return nil
		default:
			ok = false
			return nil
		}
		switch {
		case t == jsonparser.String && plainASCII(value):
			*dst = string(value)
		case t == jsonparser.Null:
		default:
			ok = false
		}
		return nil
	})
	if err != nil || !ok {
		return Input{}, false
	}
	return in, true
}

// plainASCII reports whether b is printable ASCII with no escapes: the JSON
// string's content is then its value.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// paramsMap decodes params into a map for filters; nil params give an empty
// map.
func (in Input) paramsMap() (map[string]any, error) {
	m := map[string]any{}
	if len(in.Params) == 0 {
		return m, nil
	}
	d := json.NewDecoder(bytes.NewReader(in.Params))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// argsJSON returns params as operation arguments: "{}" when absent.
func (in Input) argsJSON() json.RawMessage {
	if len(in.Params) == 0 {
		return json.RawMessage(`{}`)
	}
	return in.Params
}
