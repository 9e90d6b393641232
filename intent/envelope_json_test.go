package intent

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// reflectedJSON is the envelope's JSON as encoding/json writes it, the
// encoding Envelope.JSON must reproduce byte for byte.
func reflectedJSON(e *Envelope) []byte {
	b, err := encodeJSON(e)
	if err != nil {
		return []byte(`{"ok":false,"error":"envelope could not be encoded","code":"internal_error"}`)
	}
	return b
}

func sameEncoding(t *testing.T, e *Envelope) {
	t.Helper()
	got, want := e.JSON(), reflectedJSON(e)
	if !bytes.Equal(got, want) {
		t.Fatalf("JSON() differs from encoding/json:\n got %s\nwant %s", got, want)
	}
}

func TestEnvelopeJSONMatchesEncodingJSON(t *testing.T) {
	full := func() *Envelope {
		return &Envelope{
			OK: true, Data: json.RawMessage(`{"a":[1,2,{"b":"c d"}]}`),
			Error: "bad <thing> & \"quoted\" \\ path", Code: CodeInvalidParams,
			Details:   map[string]any{"problems": []operations.Problem{{Pointer: "/x", Message: "too big"}}, "html": "<b>"},
			NextSteps: []Step{{Tool: "ask", Action: "notes.list", Params: map[string]any{"cursor": "c2", "limit": 5}, Why: "next page"}, {Tool: "act", PlanRef: "p.r", Why: "confirm"}},
			Remedy:    &Remedy{Tool: "describe", Action: "notes.get", Fix: "read the schema"},
			Warnings:  []string{"cut", "é ünïcode … \u2028 line sep", "tab\there\x01"},
			Meta: &Meta{RoutedTo: "notes.get", Score: 60.07, Confidence: 1, Alternatives: []string{"notes.list", "z"},
				ElapsedMS: 0.155, Truncated: true, RunID: "run_x", Replayed: true},
		}
	}
	for name, e := range map[string]*Envelope{
		"zero":              {},
		"ok only":           {OK: true},
		"full":              full(),
		"empty meta":        {OK: true, Meta: &Meta{}},
		"remedy no action":  {Remedy: &Remedy{Tool: "describe"}},
		"step empty params": {NextSteps: []Step{{Tool: "ask", Params: map[string]any{}}}},
		"typed nil details": {Details: (*Remedy)(nil)},
		"empty map details": {Details: map[string]any{}},
		"data with layout":  {OK: true, Data: json.RawMessage(" {\n \"a\" : [ 1 , \"x y\" ] }\t")},
		"data not JSON":     {OK: true, Data: json.RawMessage(`{"a":`)},
		"data trailing":     {OK: true, Data: json.RawMessage(`{} {}`)},
		"data string":       {OK: true, Data: json.RawMessage(`"<a> \u2028"`)},
		"tiny float":        {Meta: &Meta{Score: 1e-7, Confidence: -2.5e-9}},
		"huge float":        {Meta: &Meta{Score: 1e21, ElapsedMS: 123456789012.5}},
		"negative zero":     {Meta: &Meta{Score: math.Copysign(0, -1), Alternatives: []string{"a"}}},
		"NaN":               {Meta: &Meta{Score: math.NaN()}},
		"bad utf8":          {Error: "a\xffb", Warnings: []string{"\xc3"}},
		"details NaN":       {Details: map[string]any{"x": math.NaN()}},
		"params chan":       {NextSteps: []Step{{Tool: "ask", Params: map[string]any{"c": make(chan int)}}}},
	} {
		t.Run(name, func(t *testing.T) { sameEncoding(t, e) })
	}
}

// TestEnvelopeCheckedData: data the server validated is written as it is,
// compacted once when set; data replaced afterwards is checked again.
func TestEnvelopeCheckedData(t *testing.T) {
	e := &Envelope{OK: true}
	e.setData(json.RawMessage("{ \"a\" :\n[1, \"b c\"] }"))
	if string(e.Data) != `{"a":[1,"b c"]}` {
		t.Fatalf("setData kept layout: %s", e.Data)
	}
	sameEncoding(t, e)
	e.Data = json.RawMessage(`{"a":`)
	if got := string(e.JSON()); got != string(reflectedJSON(e)) || !bytes.Contains([]byte(got), []byte("internal_error")) {
		t.Fatalf("replaced data not checked again: %s", got)
	}
	e.Data = json.RawMessage(`[1, 2]`)
	sameEncoding(t, e)
	s := success(map[string]any{"x": "<y>"})
	sameEncoding(t, s)
	r := success(json.RawMessage(`{"x" : 1}`)) // passed through: checked when encoded
	sameEncoding(t, r)
}

func FuzzEnvelopeJSON(f *testing.F) {
	f.Add(true, []byte(`{"a":1}`), "err", "code", "tool", "act", "why", "fix", "warn", "routed", "run", 1.5, 0.25, 3.0, false, true)
	f.Add(false, []byte(" [1, 2 ,\n3]"), "<&>", "\u2028", "\x00", "é", "", "", "\xff", "", "", 1e-7, math.Copysign(0, -1), 1e22, true, false)
	f.Add(true, []byte(`{"a":`), "", "", "", "", "", "", "", "", "", math.Inf(1), math.NaN(), 0.0, false, false)
	f.Fuzz(func(t *testing.T, ok bool, data []byte, errMsg, code, tool, action, why, fix, warning, routed, runID string, score, confidence, elapsed float64, truncated, viaSetData bool) {
		e := &Envelope{OK: ok, Error: errMsg, Code: Code(code)}
		if len(data) > 0 {
			if viaSetData && json.Valid(data) {
				e.setData(data)
			} else {
				e.Data = data
			}
		}
		if tool != "" {
			e.Remedy = &Remedy{Tool: tool, Action: action, Fix: fix}
			e.NextSteps = []Step{{Tool: tool, Action: action, Why: why, PlanRef: fix, Params: map[string]any{why: warning}}}
			e.Details = map[string]any{"pointer": action, "n": score}
		}
		if warning != "" {
			e.Warnings = []string{warning, why}
		}
		if routed != "" || runID != "" || score != 0 || truncated {
			e.Meta = &Meta{RoutedTo: routed, Score: score, Confidence: confidence, ElapsedMS: elapsed, Truncated: truncated, RunID: runID, Replayed: !ok,
				Alternatives: []string{routed}}
		}
		sameEncoding(t, e)
	})
}
