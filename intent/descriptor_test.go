package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// bigSchema is an input schema whose $defs far exceed the descriptor
// budget: a top-level "rules" array of a oneOf over many rule definitions,
// each with long descriptions, one of them referring to a leaf definition.
func bigSchema() json.RawMessage {
	defs := map[string]any{}
	var alts []any
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("rule_%02d", i)
		defs[name] = map[string]any{
			"type":        "object",
			"description": strings.Repeat("A rule that does something rather specific. ", 10),
			"properties": map[string]any{
				"kind":  map[string]any{"type": "string", "enum": []string{name}, "description": strings.Repeat("the kind ", 30)},
				"param": map[string]any{"$ref": "#/$defs/leaf"},
			},
		}
		alts = append(alts, map[string]any{"$ref": "#/$defs/" + name})
	}
	defs["leaf"] = map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}}
	defs["rule"] = map[string]any{"oneOf": alts}
	b, _ := json.Marshal(map[string]any{
		"type":     "object",
		"required": []string{"name", "rules"},
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "description": "the ruleset's name"},
			"rules": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/rule"}},
		},
		"$defs": defs,
	})
	return b
}

func TestLongDescriptorsStayWithinBudget(t *testing.T) {
	r := operations.NewRegistry()
	err := r.Register(operations.Operation{ID: "rules.set", Summary: "Replace a ruleset", Kind: operations.KindRead, Input: bigSchema(),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(r, Options{})
	env := call(t, s, "describe", `{"action":"rules.set"}`)
	if !env.OK {
		t.Fatalf("describe: %s", env.JSON())
	}
	d := data(t, env)
	in, _ := json.Marshal(d["input"])
	if len(in) > descriptorBudgetBytes {
		t.Fatalf("input schema is %d bytes; the budget is %d", len(in), descriptorBudgetBytes)
	}
	if !strings.Contains(string(in), `"name"`) || !strings.Contains(string(in), `"required":["name","rules"]`) {
		t.Fatalf("top-level properties or required were cut: %s", in)
	}
	elided, _ := d["elided_defs"].([]any)
	if len(elided) == 0 {
		t.Fatalf("nothing elided from an oversized schema: %s", env.JSON())
	}
	// Every elided name is referred to by what was kept.
	for _, e := range elided {
		if !strings.Contains(string(in), `"#/$defs/`+e.(string)+`"`) {
			t.Errorf("elided %s is not referred to by the kept schema", e)
		}
	}
	// The elided definitions are one describe away.
	got := call(t, s, "describe", fmt.Sprintf(`{"action":"rules.set","params":{"defs":[%q]}}`, elided[0]))
	defs, _ := data(t, got)["defs"].(map[string]any)
	if !got.OK || defs[elided[0].(string)] == nil {
		t.Fatalf("describe defs: %s", got.JSON())
	}
	// A definition's own references come along while they fit, and the
	// rest are named: every reference resolves or can be fetched.
	got = call(t, s, "describe", `{"action":"rules.set","params":{"defs":["rule"]}}`)
	gd := data(t, got)
	defs, _ = gd["defs"].(map[string]any)
	more, _ := gd["elided_defs"].([]any)
	if len(defs) < 2 || len(more) == 0 || len(got.NextSteps) < 2 {
		t.Fatalf("want some referenced definitions included and the rest named: %s", got.JSON())
	}
	named := map[string]bool{}
	for _, m := range more {
		named[m.(string)] = true
	}
	for name, d := range defs {
		b, _ := json.Marshal(d)
		for _, ref := range defRefs(b) {
			if defs[ref] == nil && !named[ref] {
				t.Errorf("%s refers to %s, neither included nor named", name, ref)
			}
		}
	}
	if bad := call(t, s, "describe", `{"action":"rules.set","params":{"defs":["nope"]}}`); bad.Code != CodeInvalidParams {
		t.Fatalf("unknown def: %s", bad.JSON())
	}
	// Validation still uses the full schema.
	if res := call(t, s, "ask", `{"action":"rules.set","params":{"name":"n","rules":[{"kind":"rule_03","param":{"x":"no"}}]}}`); res.Code != CodeInvalidParams {
		t.Fatalf("a deep error must still be caught: %s", res.JSON())
	}
}

func TestResultShapeIsCapped(t *testing.T) {
	props := map[string]any{}
	for i := 0; i < 60; i++ {
		props[fmt.Sprintf("field_%02d", i)] = map[string]any{"type": "string"}
	}
	props["zz_id"] = map[string]any{"type": "integer"}
	out, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"zz_id"}, "properties": props})
	shape := shapeOf(mustMap(out), nil, outputSchemaDepth).(map[string]any)
	if len(shape) != maxShapeFields+1 || shape["zz_id"] != "integer" || shape["…"] != "37 more fields" {
		t.Fatalf("shape = %v", shape)
	}
}

func mustMap(b []byte) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// TestResultShapeKeepsScalarTypesAtDepth: a list of objects shows its
// items' field types; only nested objects past the depth limit read "...".
func TestResultShapeKeepsScalarTypesAtDepth(t *testing.T) {
	out := mustMap([]byte(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{
		"id":{"type":"integer"},"state":{"$ref":"#/$defs/state"},
		"owner":{"type":"object","properties":{"login":{"type":"object","properties":{"x":{"type":"string"}}}}}}}}},
		"$defs":{"state":{"type":"string","enum":["open","closed"]}}}`))
	defs := out["$defs"].(map[string]any)
	got, _ := json.Marshal(shapeOf(out, defs, 3))
	want := `{"items":[{"id":"integer","owner":{"login":"..."},"state":"string"}]}`
	if string(got) != want {
		t.Fatalf("shape = %s, want %s", got, want)
	}
}

// A descriptor whose input schema needed no capping shares the
// operation's bytes instead of keeping a copy per described operation.
func TestDescriptorSharesUncutInput(t *testing.T) {
	reg := operations.NewRegistry()
	compact := json.RawMessage(`{"properties":{"id":{"description":"Id of the invoice.","type":"string"}},"required":["id"],"type":"object"}`)
	reg.MustRegister(operations.Operation{ID: "invoices.get", Summary: "Get an invoice", Input: compact,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	s, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	op, _ := reg.Get("invoices.get")
	inf := s.info(op)
	if string(inf.input) != string(compact) {
		t.Fatalf("descriptor input %s, want the schema unchanged", inf.input)
	}
	if &inf.input[0] != &op.Input[0] {
		t.Error("the descriptor keeps a copy of an input schema it did not change")
	}
}

// capSchema drops a root $schema and $id, cuts at the depth cap (nested
// $defs restarting it), copies only what it changes, and never modifies
// the schema it is given.
func TestCapSchema(t *testing.T) {
	// nest wraps leaf in n levels of {"type":"object","properties":{"a":...}}.
	nest := func(n int, leaf string) string {
		s := leaf
		for range n {
			s = `{"type":"object","properties":{"a":` + s + `}}`
		}
		return s
	}
	const cut = `{"type":"string","x-cut":"deeper structure omitted; pass any value of the declared type"}`
	tests := []struct {
		name, in, want string
	}{
		{"nothing to cut", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, ""},
		{"root $schema and $id", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","type":"object"}`, `{"type":"object"}`},
		{"nested $id stays", `{"type":"object","properties":{"a":{"$id":"a","type":"string"}}}`, ""},
		{"just within the cap", nest(inputSchemaDepth-1, `{"type":"string"}`), ""},
		{"past the cap", nest(inputSchemaDepth, `{"type":"string"}`), nest(inputSchemaDepth, cut)},
		{"past the cap in items", `{"type":"object","properties":{"l":{"type":"array","items":` + nest(inputSchemaDepth-2, `{"type":"string"}`) + `}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":` + nest(inputSchemaDepth-2, cut) + `}}}`},
		{"past the cap in anyOf", `{"anyOf":[{"type":"null"},` + nest(inputSchemaDepth-1, `{"type":"string"}`) + `]}`,
			`{"anyOf":[{"type":"null"},` + nest(inputSchemaDepth-1, cut) + `]}`},
		{"$defs restart the cap", `{"$defs":{"d":` + nest(inputSchemaDepth-1, `{"type":"string"}`) + `},"type":"object"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(v)
			got, _ := json.Marshal(capSchema(v, inputSchemaDepth, true))
			want := tt.want
			if want == "" {
				want = tt.in
			}
			var wantV any
			if err := json.Unmarshal([]byte(want), &wantV); err != nil {
				t.Fatal(err)
			}
			wantB, _ := json.Marshal(wantV)
			if string(got) != string(wantB) {
				t.Errorf("capSchema =\n%s\nwant\n%s", got, wantB)
			}
			if after, _ := json.Marshal(v); string(after) != string(before) {
				t.Errorf("capSchema modified its input:\n%s\nwas\n%s", after, before)
			}
			// A schema with nothing to cut comes back as itself, not a copy.
			// (Counted allocations would say the same, but testing.AllocsPerRun
			// counts the whole process's, which goroutines left by other tests
			// and the race detector make noisy.)
			if tt.want == "" && reflect.ValueOf(capSchema(v, inputSchemaDepth, true)).UnsafePointer() != reflect.ValueOf(v).UnsafePointer() {
				t.Error("capSchema copied a schema it leaves as it is")
			}
		})
	}
}
