package helpdesk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/operations"
)

// Example registers the help desk, files a ticket, reads one back and shows
// how a handler's domain error reaches the caller.
func Example() {
	svc := helpdesk.New()
	reg := operations.NewRegistry()
	if err := svc.Register(reg); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// Arguments are validated against the reflected input schema first.
	out, err := reg.Call(ctx, "helpdesk.tickets.create", json.RawMessage(
		`{"subject":"Printer offline","description":"The office printer shows offline.","priority":"high"}`))
	if err != nil {
		log.Fatal(err)
	}
	var created helpdesk.Ticket
	if err := json.Unmarshal(out, &created); err != nil {
		log.Fatal(err)
	}
	fmt.Println("created ticket", created.ID, "with status", created.Status)

	out, err = reg.Call(ctx, "helpdesk.tickets.get", json.RawMessage(`{"ticket_id":42}`))
	if err != nil {
		log.Fatal(err)
	}
	var t42 helpdesk.Ticket
	if err := json.Unmarshal(out, &t42); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ticket 42 is assigned to", t42.AssigneeName)

	_, err = reg.Call(ctx, "helpdesk.tickets.get", json.RawMessage(`{"ticket_id":999}`))
	var opErr *operations.Error
	if errors.As(err, &opErr) {
		fmt.Println(opErr.Code+":", opErr.Fix)
	}

	_, err = reg.Call(ctx, "helpdesk.tickets.update", json.RawMessage(`{"ticket_id":42,"priority":"critical"}`))
	var invalid *operations.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println("rejected by schema at", invalid.Problems[0].Pointer)
	}
	// Output:
	// created ticket 49 with status new
	// ticket 42 is assigned to Kenji Watanabe
	// not_found: list tickets with helpdesk.tickets.list or search them with helpdesk.tickets.search
	// rejected by schema at /priority
}

// ExampleCatalog lists the namespaces of the default catalog with their
// blurbs, as describe's overview shows them.
func ExampleCatalog() {
	reg, err := helpdesk.Catalog()
	if err != nil {
		log.Fatal(err)
	}
	for _, ns := range reg.Namespaces(nil)[:3] {
		fmt.Printf("%s (%d): %s\n", ns.Name, ns.Count, ns.Blurb)
	}
	// Output:
	// helpdesk.attachments (3): Files attached to tickets (metadata only).
	// helpdesk.audit (2): Who changed what, and when.
	// helpdesk.business_hours (6): Support opening hours and holidays.
}
