// Package synth generates realistic, varied operations for scale tests,
// benchmarks and the surface gate: many services and namespaces, ids such
// as "svc12.invoices.list_line_items", one-line summaries, longer
// descriptions, input schemas with one to six described properties, and a
// mix of read, write and destructive kinds. Output is deterministic for a
// given (n, seed).
package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// domain is a family of related resources a generated service exposes.
type domain struct {
	name      string
	resources []string // plural nouns, snake_case
}

var domains = []domain{
	{"billing", []string{"invoices", "payments", "refunds", "subscriptions", "plans", "coupons", "credit_notes", "tax_rates", "payouts", "disputes"}},
	{"crm", []string{"contacts", "companies", "deals", "leads", "pipelines", "activities", "notes", "campaigns", "segments", "owners"}},
	{"helpdesk", []string{"tickets", "agents", "macros", "queues", "slas", "satisfaction_ratings", "views", "groups", "articles", "tags"}},
	{"devops", []string{"repositories", "branches", "pull_requests", "pipelines", "deployments", "environments", "releases", "runners", "artifacts", "secrets"}},
	{"storage", []string{"buckets", "objects", "volumes", "snapshots", "backups", "lifecycle_rules", "access_keys", "quotas", "replicas", "mounts"}},
	{"hr", []string{"employees", "departments", "positions", "time_off_requests", "payroll_runs", "benefits", "reviews", "candidates", "offers", "timesheets"}},
	{"commerce", []string{"products", "orders", "carts", "customers", "inventory_items", "shipments", "warehouses", "discounts", "returns", "reviews"}},
	{"messaging", []string{"channels", "messages", "threads", "reactions", "members", "webhooks", "templates", "broadcasts", "attachments", "mentions"}},
	{"analytics", []string{"reports", "dashboards", "metrics", "events", "funnels", "cohorts", "exports", "alerts", "queries", "annotations"}},
	{"identity", []string{"users", "roles", "permissions", "sessions", "api_keys", "groups", "invitations", "audit_logs", "policies", "devices"}},
	{"compute", []string{"instances", "images", "clusters", "node_pools", "load_balancers", "firewalls", "networks", "subnets", "ip_addresses", "certificates"}},
	{"content", []string{"pages", "posts", "media_assets", "categories", "comments", "authors", "menus", "redirects", "translations", "revisions"}},
	{"calendar", []string{"events", "calendars", "attendees", "rooms", "reminders", "availability_slots", "bookings", "resources", "holidays", "invites"}},
	{"logistics", []string{"routes", "vehicles", "drivers", "stops", "manifests", "carriers", "rates", "pickups", "parcels", "depots"}},
}

// sub-resources that hang off any resource: "list_line_items".
var subResources = []string{"line_items", "history", "comments", "attachments", "members", "settings", "versions", "labels", "permissions", "events", "notes", "metrics", "links", "status", "owners", "tags"}

// verb templates: id verb, kind, summary pattern (%s = resource phrase).
type verb struct {
	id      string
	kind    operations.Kind
	summary string
	desc    string
}

var verbs = []verb{
	{"list", operations.KindRead, "List %s", "Returns a paginated list of %s, newest first. Use the cursor from the previous page to continue."},
	{"get", operations.KindRead, "Get one of the %s by id", "Fetches a single record among %s, with every field expanded."},
	{"search", operations.KindRead, "Search %s", "Full-text search over %s; matches names, descriptions and custom fields."},
	{"count", operations.KindRead, "Count %s", "Returns how many %s match the given filters, without fetching them."},
	{"export", operations.KindRead, "Export %s as CSV", "Builds a CSV export of %s and returns a download link that expires in an hour."},
	{"create", operations.KindWrite, "Create one of the %s", "Creates a new record among %s and returns it with its generated id."},
	{"update", operations.KindWrite, "Update one of the %s", "Changes fields of an existing record among %s; omitted fields are left as they are."},
	{"archive", operations.KindWrite, "Archive one of the %s", "Hides a record among %s from default listings; it can be restored later."},
	{"restore", operations.KindWrite, "Restore an archived item of %s", "Brings back an archived record among %s."},
	{"assign", operations.KindWrite, "Assign one of the %s to an owner", "Sets the owner of a record among %s and notifies them."},
	{"delete", operations.KindDestructive, "Delete one of the %s", "Permanently deletes a record among %s. This cannot be undone."},
	{"purge", operations.KindDestructive, "Purge old %s", "Deletes every record among %s older than the retention window."},
}

type param struct {
	name, typ, desc string
}

var commonParams = []param{
	{"limit", "integer", "Maximum number of items to return (1-100)."},
	{"cursor", "string", "Opaque cursor from the previous page."},
	{"status", "string", "Only items with this status (open, pending, closed)."},
	{"since", "string", "Only items changed after this RFC 3339 timestamp."},
	{"query", "string", "Free-text search terms."},
	{"owner_id", "string", "Id of the owning user."},
	{"sort", "string", "Sort order, e.g. created_at or -updated_at."},
	{"include_archived", "boolean", "Also return archived items."},
	{"region", "string", "Region code such as eu-west-1."},
	{"name", "string", "Display name."},
	{"note", "string", "Free-form note stored with the change."},
	{"dry_run", "boolean", "Validate the request without applying it."},
}

// Operations returns n generated operations with unique, valid ids, each
// with a Handler that echoes its arguments. The same (n, seed) always gives
// the same operations.
func Operations(n int, seed int64) []operations.Operation {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	ops := make([]operations.Operation, 0, n)
	seen := make(map[string]bool, n)
	perService := 40
	for svc := 0; len(ops) < n; svc++ {
		dom := domains[rng.IntN(len(domains))]
		service := fmt.Sprintf("svc%d", svc)
		made := 0
		for try := 0; try < 4*perService && made < perService && len(ops) < n; try++ {
			res := dom.resources[rng.IntN(len(dom.resources))]
			v := verbs[rng.IntN(len(verbs))]
			name := v.id
			phrase := words(res)
			if rng.IntN(3) == 0 {
				sub := subResources[rng.IntN(len(subResources))]
				name = v.id + "_" + sub
				phrase = words(sub) + " of " + singular(words(res))
			}
			id := service + "." + res + "." + name
			if seen[id] {
				continue
			}
			seen[id] = true
			made++
			ops = append(ops, makeOp(rng, id, service, dom, res, v, phrase))
		}
	}
	return ops
}

func makeOp(rng *rand.Rand, id, service string, dom domain, res string, v verb, phrase string) operations.Operation {
	summary := fmt.Sprintf(v.summary, phrase)
	desc := fmt.Sprintf(v.desc, phrase) + fmt.Sprintf(" Part of the %s %s API of %s.", dom.name, words(res), service)
	nparams := 1 + rng.IntN(6)
	props := map[string]any{}
	var required []string
	idParam := singularSnake(res) + "_id"
	props[idParam] = map[string]any{"type": "string", "description": fmt.Sprintf("Id of the %s.", singular(words(res)))}
	if v.id != "list" && v.id != "search" && v.id != "count" && v.id != "export" && v.id != "purge" {
		required = append(required, idParam)
	}
	for len(props) < nparams {
		p := commonParams[rng.IntN(len(commonParams))]
		props[p.name] = map[string]any{"type": p.typ, "description": p.desc}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, _ := json.Marshal(schema)
	op := operations.Operation{
		ID:          id,
		Namespace:   operations.DefaultNamespace(id),
		Summary:     summary,
		Description: desc,
		Tags:        []string{dom.name, words(res)},
		Input:       raw,
		Kind:        v.kind,
		Idempotent:  v.kind == operations.KindRead,
		Source:      "go",
		Handler:     echo,
	}
	method := map[operations.Kind]string{operations.KindRead: "GET", operations.KindWrite: "POST", operations.KindDestructive: "DELETE"}[v.kind]
	path := "/" + service + "/" + strings.ReplaceAll(res, "_", "-")
	if _, ok := props[idParam]; ok && v.id != "list" && v.id != "search" {
		path += "/{" + idParam + "}"
	}
	if v.id != "list" && v.id != "get" && v.id != "create" && v.id != "update" && v.id != "delete" {
		path += "/" + strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(id[strings.LastIndexByte(id, '.')+1:], v.id), "_"), "_", "-")
		path = strings.TrimSuffix(path, "/")
	}
	op.HTTP = &operations.HTTPBinding{Method: method, Path: path}
	if rng.IntN(4) == 0 {
		op.Examples = []operations.Example{{Intent: strings.ToLower(summary[:1]) + summary[1:] + " for " + service}}
	}
	return op
}

// echo is the generated operations' handler: it returns its arguments.
func echo(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	return json.RawMessage(fmt.Sprintf(`{"echo":%s}`, args)), nil
}

func words(snake string) string { return strings.ReplaceAll(snake, "_", " ") }

func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

func singularSnake(res string) string {
	return strings.ReplaceAll(singular(words(res)), " ", "_")
}

// Registry returns a registry holding Operations(n, seed).
func Registry(n int, seed int64) (*operations.Registry, error) {
	reg := operations.NewRegistry()
	// RegisterAll compiles the schemas on every CPU, as Register would one
	// by one: at 100,000 operations that is most of the generation's time.
	if err := reg.RegisterAll(Operations(n, seed), operations.RegisterOptions{}); err != nil {
		return nil, err
	}
	return reg, nil
}
