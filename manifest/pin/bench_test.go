package pin

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// BenchmarkCompare checks a catalog of 1,000 operations with a small schema
// each against its lock: what serve --lock adds to a start.
func BenchmarkCompare(b *testing.B) {
	ops := make([]*operations.Operation, 1000)
	for i := range ops {
		ops[i] = &operations.Operation{ID: fmt.Sprintf("svc.op_%d", i), Summary: "Get a thing by id", Description: "Returns the thing with that id, or not_found.",
			Input: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"the thing's id"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["id"]}`),
			Kind:  operations.KindRead}
	}
	f := Build(ops)
	b.ReportAllocs()
	for b.Loop() {
		if d := f.Compare(ops); !d.Empty() {
			b.Fatal(d)
		}
	}
}
