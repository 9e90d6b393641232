package intent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/tokens"
)

// pathBudget is DESIGN's aim for the whole path an agent pays to reach any
// one operation: the listing, one find and one describe.
const pathBudget = 3000

// TestWholePathBudget checks, for every demo operation, that listing + find
// (by its summary) + describe (its descriptor) stays within pathBudget
// tokens, the larger of o200k_base and cl100k_base.
func TestWholePathBudget(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	s, err := intent.New(reg, intent.Options{Writes: intent.WritesAllow})
	if err != nil {
		t.Fatal(err)
	}
	listing, _ := json.Marshal(map[string]any{"tools": s.MCPTools()})
	base, err := tokens.Max(string(listing))
	if err != nil {
		t.Fatal(err)
	}
	worst, worstID := 0, ""
	for _, op := range reg.All() {
		q, _ := json.Marshal(map[string]string{"intent": op.Summary})
		f := s.Call(context.Background(), intent.ToolFind, q)
		d := s.Call(context.Background(), intent.ToolDescribe, []byte(`{"action":"`+op.ID+`"}`))
		if !f.OK || !d.OK {
			t.Fatalf("%s: find ok=%v describe ok=%v", op.ID, f.OK, d.OK)
		}
		fn, _ := tokens.Max(string(f.JSON()))
		dn, _ := tokens.Max(string(d.JSON()))
		if total := base + fn + dn; total > worst {
			worst, worstID = total, op.ID
		}
	}
	t.Logf("listing %d tokens; worst whole path %d tokens (%s)", base, worst, worstID)
	if worst > pathBudget {
		t.Fatalf("reaching %s costs %d tokens; the budget is %d", worstID, worst, pathBudget)
	}
}
