package operations

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
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

// Under a limit the registry keeps at most that many compiled schemas,
// also while registering and validating from many goroutines, and every
// operation still validates by its own schema, compiling it again when it
// was let go. Without a limit it keeps every one.
func TestLimitCompiledSchemas(t *testing.T) {
	const n, limit = 60, 7
	schema := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"integer"}},"required":["p%d"]}`, i, i))
	}
	var ops []Operation
	for i := range n {
		ops = append(ops, Operation{ID: fmt.Sprintf("s.op%d", i), Handler: echo, Input: schema(i)})
	}
	for _, deferred := range []bool{false, true} {
		r := NewRegistry()
		r.LimitCompiledSchemas(limit)
		if err := r.RegisterAll(ops, RegisterOptions{DeferCompile: deferred}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for k := range 3 * n {
					i := (k + w*13) % n
					if err := r.Validate(fmt.Sprintf("s.op%d", i), json.RawMessage(fmt.Sprintf(`{"p%d":1}`, i))); err != nil {
						t.Errorf("deferred=%v: op%d refused its own params: %v", deferred, i, err)
					}
					if err := r.Validate(fmt.Sprintf("s.op%d", i), json.RawMessage(`{"other":1}`)); err == nil {
						t.Errorf("deferred=%v: op%d accepted params without its required one", deferred, i)
					}
				}
			})
		}
		wg.Wait()
		if kept := len(r.schemas.m); kept > limit {
			t.Errorf("deferred=%v: %d compiled schemas kept, limit %d", deferred, kept, limit)
		}
		r.LimitCompiledSchemas(0)
		for i := range n {
			if err := r.Validate(fmt.Sprintf("s.op%d", i), json.RawMessage(fmt.Sprintf(`{"p%d":1}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		if kept := len(r.schemas.m); kept != n {
			t.Errorf("deferred=%v: without a limit %d of %d compiled schemas kept", deferred, kept, n)
		}
	}
}

// Under a limit the least recently used compiled schema is let go first:
// a schema validated again and again while others come and go stays
// compiled, and validating the operations that share a schema one after
// the other compiles each distinct schema once, even with a limit of one.
func TestLimitKeepsRecentlyUsedSchemas(t *testing.T) {
	schema := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"integer"}}}`, i))
	}
	r := NewRegistry()
	r.LimitCompiledSchemas(2)
	var ops []Operation
	for i := range 6 {
		ops = append(ops, Operation{ID: fmt.Sprintf("s.op%d", i), Handler: echo, Input: schema(i)})
	}
	if err := r.RegisterAll(ops, RegisterOptions{DeferCompile: true}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 6; i++ {
		for _, id := range []string{"s.op0", fmt.Sprintf("s.op%d", i)} {
			if err := r.Validate(id, json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := r.schemas.compiles.Load(); n != 6 {
		t.Errorf("%d compilations for 6 schemas with op0's used between the others; want 6", n)
	}

	r = NewRegistry()
	r.LimitCompiledSchemas(1)
	ops = ops[:0]
	for i := range 12 {
		ops = append(ops, Operation{ID: fmt.Sprintf("s.op%02d", i), Handler: echo, Input: schema(i / 4)})
	}
	if err := r.RegisterAll(ops, RegisterOptions{DeferCompile: true}); err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if err := r.Validate(op.ID, json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.schemas.compiles.Load(); n != 3 {
		t.Errorf("%d compilations for 3 distinct schemas validated in groups; want 3", n)
	}
}

// Registering under a limit checks each distinct schema once, however the
// operations sharing schemas are interleaved, and still refuses every
// operation whose shared schema does not compile.
func TestRegisterAllUnderLimitCompilesEachSchemaOnce(t *testing.T) {
	schema := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"integer"}}}`, i))
	}
	bad := json.RawMessage(`{"type":"object","properties":{"n":{"minimum":"zero"}}}`)
	var ops []Operation
	for i := range 16 {
		in := schema(i % 3)
		if i%4 == 1 {
			in = bad
		}
		ops = append(ops, Operation{ID: fmt.Sprintf("s.op%02d", i), Handler: echo, Input: in})
	}
	r := NewRegistry()
	r.LimitCompiledSchemas(1)
	err := r.RegisterAll(ops, RegisterOptions{})
	if n := r.schemas.compiles.Load(); n != 4 {
		t.Errorf("%d compilations for 4 distinct schemas interleaved; want 4", n)
	}
	refused := map[string]bool{}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *RegistrationError
		if errors.As(e, &re) {
			refused[re.ID] = true
		}
	}
	for i, op := range ops {
		if want := i%4 == 1; refused[op.ID] != want {
			t.Errorf("%s refused %v, want %v", op.ID, refused[op.ID], want)
		}
		if _, ok := r.Get(op.ID); ok == refused[op.ID] {
			t.Errorf("%s registered %v although refused %v", op.ID, ok, refused[op.ID])
		}
	}
}
