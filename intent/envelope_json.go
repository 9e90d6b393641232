package intent

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// The envelope is encoded on every call, then read again by the transport
// and the host, so its encoder matters: this one appends the envelope's
// fields in order, byte for byte as encodeJSON (encoding/json, HTML not
// escaped) writes them, without reflection. Values of open shape (details,
// a step's params) and strings that need escaping go through encodeJSON;
// FuzzEnvelopeJSON holds the two encoders to the same output.

// errUnencodable is a float the JSON grammar cannot hold (NaN, ±Inf).
var errUnencodable = errors.New("a number is NaN or infinite")

// appendJSON appends e's JSON to b.
func (e *Envelope) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"ok":`...)
	b = strconv.AppendBool(b, e.OK)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		if b, err = appendRawJSON(b, e.Data, e.checked); err != nil {
			return nil, err
		}
	}
	if e.Error != "" {
		b = appendField(b, "error", e.Error)
	}
	if e.Code != "" {
		b = appendField(b, "code", string(e.Code))
	}
	if e.Details != nil {
		b = append(b, `,"details":`...)
		if b, err = appendAny(b, e.Details); err != nil {
			return nil, err
		}
	}
	if len(e.NextSteps) > 0 {
		b = append(b, `,"next_steps":[`...)
		for i := range e.NextSteps {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = e.NextSteps[i].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if r := e.Remedy; r != nil {
		b = append(b, `,"remedy":{"tool":`...)
		b = appendString(b, r.Tool)
		if r.Action != "" {
			b = appendField(b, "action", r.Action)
		}
		b = appendField(b, "fix", r.Fix)
		b = append(b, '}')
	}
	if len(e.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range e.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, w)
		}
		b = append(b, ']')
	}
	if e.Meta != nil {
		b = append(b, `,"meta":`...)
		if b, err = e.Meta.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (s *Step) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tool":`...)
	b = appendString(b, s.Tool)
	if s.Action != "" {
		b = appendField(b, "action", s.Action)
	}
	if len(s.Params) > 0 {
		b = append(b, `,"params":`...)
		var err error
		if b, err = appendAny(b, s.Params); err != nil {
			return nil, err
		}
	}
	if s.PlanRef != "" {
		b = appendField(b, "plan_ref", s.PlanRef)
	}
	b = appendField(b, "why", s.Why)
	return append(b, '}'), nil
}

func (m *Meta) appendJSON(b []byte) ([]byte, error) {
	// Every field is omitted when empty; sep is what goes before the next.
	sep := byte('{')
	field := func(name string) {
		b = append(b, sep, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		sep = ','
	}
	var err error
	if m.RoutedTo != "" {
		field("routed_to")
		b = appendString(b, m.RoutedTo)
	}
	if m.Score != 0 {
		field("score")
		if b, err = appendFloat(b, m.Score); err != nil {
			return nil, err
		}
	}
	if m.Confidence != 0 {
		field("confidence")
		if b, err = appendFloat(b, m.Confidence); err != nil {
			return nil, err
		}
	}
	if len(m.Alternatives) > 0 {
		field("alternatives")
		for i, a := range m.Alternatives {
			if i > 0 {
				b = append(b, ',')
			} else {
				b = append(b, '[')
			}
			b = appendString(b, a)
		}
		b = append(b, ']')
	}
	if m.ElapsedMS != 0 {
		field("elapsed_ms")
		if b, err = appendFloat(b, m.ElapsedMS); err != nil {
			return nil, err
		}
	}
	if m.Truncated {
		field("truncated")
		b = append(b, "true"...)
	}
	if m.RunID != "" {
		field("run_id")
		b = appendString(b, m.RunID)
	}
	if m.Replayed {
		field("replayed")
		b = append(b, "true"...)
	}
	if sep == '{' {
		return append(b, "{}"...), nil
	}
	return append(b, '}'), nil
}

// appendField appends `,"name":` and s as a JSON string.
func appendField(b []byte, name, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendString appends s as a JSON string. Printable ASCII other than the
// quote and the backslash goes as it is; anything else takes
// encodeJSON's escaping.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := encodeJSON(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat appends f as encoding/json writes a float64: plain decimal
// digits between 1e-6 and 1e21, exponent form (via encodeJSON) outside.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errUnencodable
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		q, err := encodeJSON(f)
		return append(b, q...), err
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64), nil
}

func appendAny(b []byte, v any) ([]byte, error) {
	q, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// appendRawJSON appends raw compacted, as encoding/json writes a
// json.RawMessage, or fails when raw is not JSON. checked is the slice
// the server already validated and compacted (setData); when raw is still
// that slice, it goes as it is.
func appendRawJSON(b []byte, raw, checked json.RawMessage) ([]byte, error) {
	if len(checked) == len(raw) && &checked[0] == &raw[0] {
		return append(b, raw...), nil
	}
	if !json.Valid(raw) {
		return nil, errors.New("data is not JSON")
	}
	if !hasLayout(raw) {
		return append(b, raw...), nil
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// hasLayout reports whether valid JSON raw holds whitespace between its
// tokens, which compacting removes.
func hasLayout(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			return true
		}
	}
	return false
}

// setData sets e's data to raw, which the caller has validated as JSON,
// compacting it when it holds layout, and remembers it as checked so the
// encoder does not scan it again.
func (e *Envelope) setData(raw json.RawMessage) {
	if hasLayout(raw) {
		var buf bytes.Buffer
		buf.Grow(len(raw))
		if json.Compact(&buf, raw) != nil {
			e.Data = raw // not JSON after all: the encoder refuses it
			return
		}
		raw = buf.Bytes()
	}
	e.Data, e.checked = raw, raw
}
