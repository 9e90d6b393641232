package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// Operations with the same summary share one find answer on their path:
// the gate searches each distinct summary once, and the shared answer is
// the one find gives that summary.
func TestPathFinderSearchesEachSummaryOnce(t *testing.T) {
	reg := operations.NewRegistry()
	handler := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	for i := range 12 {
		summary := []string{"List invoices", "Get one invoice by id", "Search invoices"}[i%3]
		op := operations.Operation{ID: fmt.Sprintf("svc%d.invoices.op%d", i/3, i%3), Summary: summary, Handler: handler}
		if err := reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := intent.New(reg, intent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pf := newPathFinder(srv)
	_, bad, paths, err := reachability(t.Context(), srv, pf)
	if err != nil || len(bad) > 0 {
		t.Fatalf("reachability: %v %v", err, bad)
	}
	if len(paths) != 12 {
		t.Fatalf("%d paths measured, want 12", len(paths))
	}
	if len(pf.answers) != 3 {
		t.Errorf("%d summaries searched, want 3 (one per distinct summary)", len(pf.answers))
	}
	for _, op := range reg.All() {
		q, _ := json.Marshal(map[string]string{"intent": op.Summary})
		want := srv.Call(t.Context(), intent.ToolFind, q)
		// The answers differ only in their elapsed_ms, whose digits vary.
		if got, n := pf.findBytes(t.Context(), op), len(want.JSON()); got < n-3 || got > n+3 {
			t.Errorf("%s: shared find answer is %d bytes, find's is %d", op.ID, got, n)
		}
	}
}
