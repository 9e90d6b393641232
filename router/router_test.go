package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/internal/synth"
	"github.com/intentsrv/intentsrv/operations"
)

func synthRouter(t testing.TB, n int) (*Router, []*operations.Operation) {
	t.Helper()
	gen := synth.Operations(n, 1)
	ops := make([]*operations.Operation, len(gen))
	for i := range gen {
		ops[i] = &gen[i]
	}
	return New(ops, Options{}), ops
}

func TestExactIDWins(t *testing.T) {
	r, ops := synthRouter(t, 2000)
	for _, op := range ops {
		res := r.Search(op.ID, Filter{}, 5)
		if !res.Exact || res.Candidates[0].Op != op || res.Decision != DecisionRun {
			t.Fatalf("exact %q: %+v", op.ID, res)
		}
	}
}

func TestSmoke(t *testing.T) {
	r, _ := synthRouter(t, 2000)
	for _, q := range []string{"list invoices of svc3", "delete the refund", "svc1.invoices.lst", "asdkjh qwe", "the of and", "kill old deployments"} {
		res := r.Search(q, Filter{}, 3)
		t.Logf("%q → %s", q, res.Decision)
		for _, c := range res.Candidates {
			t.Logf("   %s %.2f conf %.2f %v %v", c.Op.ID, c.Score, c.Confidence, c.Matched, c.Fields)
		}
	}
	t.Log(r.Suggest("svc1.invoice.list", Filter{}, 3))
}
