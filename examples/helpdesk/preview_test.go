package helpdesk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestDestructivePreviewsChangeNothing(t *testing.T) {
	reg, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		id, args, want string
	}{
		{"helpdesk.tickets.delete", `{"ticket_id":7}`, `"comments":3`},
		{"helpdesk.tickets.merge", `{"source_ticket_ids":[43],"target_ticket_id":42}`, `"would_close_and_move"`},
	}
	for _, tc := range tests {
		op, _ := reg.Get(tc.id)
		if op.Preview == nil {
			t.Fatalf("%s has no preview", tc.id)
		}
		v, err := op.Preview(ctx, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s preview %s lacks %s", tc.id, b, tc.want)
		}
	}
	if _, err := reg.Call(ctx, "helpdesk.tickets.get", json.RawMessage(`{"ticket_id":7}`)); err != nil {
		t.Fatalf("preview deleted the ticket: %v", err)
	}
	op, _ := reg.Get("helpdesk.tickets.delete")
	if _, err := op.Preview(ctx, json.RawMessage(`{"ticket_id":9999}`)); err == nil {
		t.Fatal("preview of a missing ticket should fail")
	} else if oe, ok := err.(*operations.Error); !ok || oe.Code != "not_found" {
		t.Fatalf("err = %v", err)
	}
}
