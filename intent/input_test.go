package intent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeInput(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Input
		wantErr string // substring; "" means success
	}{
		{"empty", ``, Input{}, ""},
		{"null", `null`, Input{}, ""},
		{"empty object", `{}`, Input{}, ""},
		{"all fields", `{"action":" a.b ","params":{"x":1},"intent":" hi ","plan_ref":"r"}`, Input{Action: "a.b", Params: json.RawMessage(`{"x":1}`), Intent: "hi", PlanRef: "r"}, ""},
		{"null params", `{"params":null}`, Input{}, ""},
		{"params as a JSON string holding an object", `{"params":"{\"x\":1}"}`, Input{Params: json.RawMessage(`{"x":1}`)}, ""},
		{"params array", `{"params":[1]}`, Input{}, "params: must be a JSON object"},
		{"params string not object", `{"params":"x=1"}`, Input{}, "params: must be a JSON object"},
		{"action not string", `{"action":1}`, Input{}, "action: must be a string"},
		{"unknown field", `{"action":"a.b","id":3}`, Input{}, "put operation arguments inside params"},
		{"array", `[1,2]`, Input{}, "must be a JSON object"},
		{"broken", `{"action":`, Input{}, "not valid JSON"},
		{"long action", `{"action":"` + strings.Repeat("a", 300) + `"}`, Input{}, "at most 128"},
		{"long intent", `{"intent":"` + strings.Repeat("é", 2001) + `"}`, Input{}, "at most 2000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeInput([]byte(tc.in))
			if tc.wantErr != "" {
				var ie *InputError
				if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want *InputError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.want.Action || got.Intent != tc.want.Intent || got.PlanRef != tc.want.PlanRef || string(got.Params) != string(tc.want.Params) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzDecodeInput checks that any bytes decode to an Input or an
// *InputError, never a panic, and that accepted params are a JSON object.
func FuzzDecodeInput(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"action":"a.b","params":{"x":[1,2]}}`, `{"intent":"list open tickets"}`,
		`{"params":"{\"a\":1}"}`, `{"plan_ref":"v1.1.a.b"}`, `[`, `{"action":null}`, "{\"intent\":\"\u200b\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := DecodeInput(raw)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		if len(in.Params) > 0 {
			var m map[string]any
			if json.Unmarshal(in.Params, &m) != nil {
				t.Fatalf("accepted params that are not an object: %s", in.Params)
			}
		}
	})
}

// FuzzCall drives the whole server with arbitrary input on every tool: it
// must always answer with a well-formed envelope.
func FuzzCall(f *testing.F) {
	s, _ := newTestServer(f, Options{Writes: WritesAllow})
	f.Add("ask", []byte(`{"action":"notes.get","params":{"id":1}}`))
	f.Add("act", []byte(`{"action":"notes.delete","params":{"id":2},"plan_ref":"v1.9.x.y"}`))
	f.Add("find", []byte(`{"intent":"notes","params":{"limit":3}}`))
	f.Add("describe", []byte(`{"params":{"namespace":"notes","cursor":"1"}}`))
	f.Fuzz(func(t *testing.T, tool string, raw []byte) {
		env := s.Call(t.Context(), tool, raw)
		if env.OK == (env.Code != "") {
			t.Fatalf("ok=%v with code %q", env.OK, env.Code)
		}
		if !env.OK && env.Remedy == nil {
			t.Fatalf("failure without remedy: %s", env.JSON())
		}
		if !json.Valid(env.JSON()) {
			t.Fatal("envelope is not JSON")
		}
	})
}

// FuzzDecodeInputFast checks the fast path against the general one: on
// every input the fast path takes, both give the same Input and the same
// error, so the fast path changes nothing but the time.
func FuzzDecodeInputFast(f *testing.F) {
	for _, seed := range []string{`{}`, `{"action":"a.b","params":{"x":[1,2]}}`, `{"intent":"list open tickets","params":{}}`,
		`{"action":"a.b","action":"c.d"}`, `{"action":1,"action":"a.b"}`, `{"Action":"a.b"}`, `{"act\u0069on":"a.b"}`,
		`{"action":"a\"b"}`, `{"intent":"caf\u00e9"}`, `{"params":null,"plan_ref":null}`, `{"params":"{}"}`, `{"action":" a.b "}`,
		`{"params":{"a":1},"params":{"b":2}}`, `{"action":"a.b"} `, `{"action":"a.b",}`, `{"action":"` + strings.Repeat("a", 129) + `"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = []byte(strings.TrimSpace(string(raw)))
		if len(raw) == 0 {
			return
		}
		fast, ok := decodeInputFast(raw)
		if !ok {
			return
		}
		fastIn, fastErr := fast.checked()
		in, err := decodeInputGeneral(raw)
		if (err == nil) != (fastErr == nil) || (err != nil && err.Error() != fastErr.Error()) {
			t.Fatalf("%s: fast error %v, general error %v", raw, fastErr, err)
		}
		if in.Action != fastIn.Action || in.Intent != fastIn.Intent || in.PlanRef != fastIn.PlanRef || string(in.Params) != string(fastIn.Params) {
			t.Fatalf("%s: fast %+v, general %+v", raw, fastIn, in)
		}
	})
}
