package synth

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestOperationsValidUniqueDeterministic(t *testing.T) {
	for _, n := range []int{1, 37, 1000, 10000} {
		ops := Operations(n, 1)
		if len(ops) != n {
			t.Fatalf("n=%d: got %d operations", n, len(ops))
		}
		seen := map[string]bool{}
		for _, op := range ops {
			if err := operations.CheckID(op.ID); err != nil {
				t.Fatal(err)
			}
			if seen[op.ID] {
				t.Fatalf("duplicate id %q", op.ID)
			}
			seen[op.ID] = true
			if op.Handler == nil || op.Summary == "" || !op.Kind.Valid() {
				t.Fatalf("incomplete operation %+v", op)
			}
		}
		again := Operations(n, 1)
		for i := range ops {
			if ops[i].ID != again[i].ID || string(ops[i].Input) != string(again[i].Input) {
				t.Fatalf("not deterministic at %d: %s vs %s", i, ops[i].ID, again[i].ID)
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	reg, err := Registry(1000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Len() != 1000 {
		t.Fatalf("len %d", reg.Len())
	}
	kinds := map[operations.Kind]int{}
	namespaces := map[string]bool{}
	for _, op := range reg.All() {
		kinds[op.Kind]++
		namespaces[op.Namespace] = true
	}
	if len(kinds) != 3 || len(namespaces) < 50 {
		t.Fatalf("not varied: kinds %v, %d namespaces", kinds, len(namespaces))
	}
	op := reg.All()[0]
	out, err := reg.Call(context.Background(), op.ID, json.RawMessage(`{}`))
	if err == nil {
		var v map[string]any
		if json.Unmarshal(out, &v) != nil {
			t.Fatalf("handler returned invalid JSON %s", out)
		}
	}
}
