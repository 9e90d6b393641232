// Package helpdesk is an in-memory help-desk service registered as
// intentsrv operations. It is the default demonstration catalog of the
// server and the worked example of the operations API for Go programmers.
//
// The service keeps tickets, comments, attachment metadata, users (customers,
// agents and admins), teams, organizations, tags, SLA policies, macros, saved
// views, knowledge-base articles, webhooks, business hours and an audit log.
// [New] seeds it with the same realistic data every time, so demonstrations
// and tests are reproducible: ticket 42, for instance, is always an urgent
// checkout outage assigned to an agent.
//
// The service runs on a simulated clock that starts at [SeedNow] and moves
// forward one minute per write, and it never reaches the network: webhook
// test deliveries are simulated.
//
// Registering the catalog and calling an operation:
//
//	svc := helpdesk.New()
//	reg := operations.NewRegistry()
//	if err := svc.Register(reg); err != nil {
//		log.Fatal(err)
//	}
//	out, err := reg.Call(ctx, "helpdesk.tickets.get", json.RawMessage(`{"ticket_id": 42}`))
//
// Each operation is a typed Go function registered with [operations.Add]:
// its input schema is reflected from the input struct's json and jsonschema
// tags, and the registry validates arguments against it before the function
// runs. Handlers report domain failures as *[operations.Error] values with a
// machine code ("not_found", "conflict", "invalid_params") and a fix an agent
// can follow.
//
// Operation ids follow helpdesk.<namespace>.<verb_noun>, for example
// helpdesk.tickets.assign or helpdesk.sla.list_breaches. List operations take
// limit and cursor and return {"items": [...], "next_cursor": "..."}, where an
// absent next_cursor means the last page.
package helpdesk
