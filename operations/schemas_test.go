package operations

import (
	"encoding/json"
	"errors"
	"testing"
)

// Operations whose input schemas are the same bytes share one compiled
// schema, whether compiled at registration or deferred; different bytes
// never do, and each still validates by its own schema.
func TestIdenticalSchemasCompileOnce(t *testing.T) {
	same := json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	other := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	for _, deferred := range []bool{false, true} {
		r := NewRegistry()
		ops := []Operation{
			{ID: "a.get", Handler: echo, Input: same},
			{ID: "b.get", Handler: echo, Input: append(json.RawMessage(nil), same...)},
			{ID: "c.get", Handler: echo, Input: other},
		}
		if err := r.RegisterAll(ops, RegisterOptions{DeferCompile: deferred}); err != nil {
			t.Fatal(err)
		}
		if err := r.Register(Operation{ID: "d.get", Handler: echo, Input: same}); err != nil {
			t.Fatal(err)
		}
		compiled := map[string]any{}
		for _, id := range []string{"a.get", "b.get", "c.get", "d.get"} {
			s, err := r.ops[id].compiled()
			if err != nil {
				t.Fatal(err)
			}
			compiled[id] = s
		}
		if compiled["a.get"] != compiled["b.get"] || compiled["a.get"] != compiled["d.get"] {
			t.Errorf("deferred=%v: identical schemas compiled more than once", deferred)
		}
		if compiled["a.get"] == compiled["c.get"] {
			t.Errorf("deferred=%v: different schemas share a compiled schema", deferred)
		}
		if err := r.Validate("b.get", json.RawMessage(`{"id":"x"}`)); err == nil {
			t.Errorf("deferred=%v: b.get accepted a string id", deferred)
		}
		if err := r.Validate("c.get", json.RawMessage(`{"id":"x"}`)); err != nil {
			t.Errorf("deferred=%v: c.get refused a string id: %v", deferred, err)
		}
	}
}

// A schema that does not compile fails every operation that has it, each
// with an error naming its own id.
func TestIdenticalBadSchemasFailEach(t *testing.T) {
	bad := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}}}`)
	r := NewRegistry()
	err := r.RegisterAll([]Operation{{ID: "a.get", Handler: echo, Input: bad}, {ID: "b.get", Handler: echo, Input: bad}}, RegisterOptions{})
	for _, id := range []string{"a.get", "b.get"} {
		var re *RegistrationError
		found := false
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			if errors.As(e, &re) && re.ID == id {
				found = true
			}
		}
		if !found {
			t.Errorf("no registration error names %s: %v", id, err)
		}
	}
}
