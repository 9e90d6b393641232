package helpdesk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func mustCatalog(t *testing.T) *operations.Registry {
	t.Helper()
	reg, err := Catalog()
	if err != nil {
		t.Fatalf("Catalog: %v", err)
	}
	return reg
}

// isListOp reports whether an operation returns a page of items, judged by
// its verb: list, list_*, search and run.
func isListOp(id string) bool {
	verb := id[strings.LastIndexByte(id, '.')+1:]
	return verb == "list" || strings.HasPrefix(verb, "list_") || verb == "search" || verb == "run"
}

func TestCatalogInvariants(t *testing.T) {
	reg := mustCatalog(t)
	ops := reg.All()
	if len(ops) < 64 {
		t.Errorf("catalog has %d operations, want at least 64", len(ops))
	}
	nss := reg.Namespaces(nil)
	if len(nss) < 10 {
		t.Errorf("catalog has %d namespaces, want at least 10", len(nss))
	}
	for _, ns := range nss {
		if ns.Blurb == "" {
			t.Errorf("namespace %s has no blurb", ns.Name)
		}
	}
	seen := map[string]bool{}
	kinds := map[operations.Kind]int{}
	for _, op := range ops {
		if seen[op.ID] {
			t.Errorf("duplicate id %s", op.ID)
		}
		seen[op.ID] = true
		kinds[op.Kind]++
		segs := strings.Split(op.ID, ".")
		if len(segs) != 3 || segs[0] != "helpdesk" {
			t.Errorf("%s: want helpdesk.<namespace>.<verb>", op.ID)
		}
		if op.Namespace != operations.DefaultNamespace(op.ID) {
			t.Errorf("%s: namespace %q, want the default", op.ID, op.Namespace)
		}
		if op.Summary == "" || strings.Contains(op.Summary, "\n") || len(op.Summary) > 120 {
			t.Errorf("%s: summary %q should be one line of at most 120 characters", op.ID, op.Summary)
		}
		if n := strings.Count(op.Description, ". ") + 1; op.Description == "" || n > 3 {
			t.Errorf("%s: description should be 1-3 sentences, got %q", op.ID, op.Description)
		}
		if op.Kind == operations.KindRead && !op.Idempotent {
			t.Errorf("%s: reads must be marked idempotent", op.ID)
		}
		if strings.HasSuffix(op.ID, ".delete") && op.Kind != operations.KindDestructive {
			t.Errorf("%s: deletes must be destructive, got %s", op.ID, op.Kind)
		}
		if len(op.Output) == 0 {
			t.Errorf("%s: no output schema", op.ID)
		}
		for _, a := range op.Aliases {
			if !operations.ValidID(a) {
				t.Errorf("%s: alias %q is not a valid id", op.ID, a)
			}
		}
		for _, ex := range op.Examples {
			args, _ := json.Marshal(ex.Params)
			if err := reg.Validate(op.ID, args); err != nil {
				t.Errorf("%s: example %q does not validate: %v", op.ID, ex.Intent, err)
			}
		}
		var in schemaNode
		if err := json.Unmarshal(op.Input, &in); err != nil {
			t.Fatalf("%s: input schema: %v", op.ID, err)
		}
		for _, missing := range in.undescribed("") {
			t.Errorf("%s: input property %s has no description", op.ID, missing)
		}
		if isListOp(op.ID) {
			for _, p := range []string{"limit", "cursor"} {
				if _, ok := in.Properties[p]; !ok {
					t.Errorf("%s: list operation has no %s parameter", op.ID, p)
				}
			}
			var out schemaNode
			if err := json.Unmarshal(op.Output, &out); err != nil {
				t.Fatalf("%s: output schema: %v", op.ID, err)
			}
			for _, p := range []string{"items", "next_cursor"} {
				if _, ok := out.Properties[p]; !ok {
					t.Errorf("%s: list output has no %s", op.ID, p)
				}
			}
		}
	}
	for _, k := range []operations.Kind{operations.KindRead, operations.KindWrite, operations.KindDestructive} {
		if kinds[k] < 5 {
			t.Errorf("only %d %s operations; the catalog should show a mix", kinds[k], k)
		}
	}
}

// schemaNode is the part of a JSON Schema the invariants look at.
type schemaNode struct {
	Ref         string                 `json:"$ref"`
	Description string                 `json:"description"`
	Properties  map[string]*schemaNode `json:"properties"`
	Items       *schemaNode            `json:"items"`
	Defs        map[string]*schemaNode `json:"$defs"`
}

// undescribed returns the JSON paths of properties, at any depth and in
// $defs, that carry no description.
func (n *schemaNode) undescribed(path string) []string {
	var out []string
	for name, p := range n.Properties {
		if p.Description == "" {
			out = append(out, path+"/"+name)
		}
		out = append(out, p.undescribed(path+"/"+name)...)
	}
	if n.Items != nil {
		out = append(out, n.Items.undescribed(path+"/items")...)
	}
	for name, d := range n.Defs {
		out = append(out, d.undescribed("#/$defs/"+name)...)
	}
	return out
}

func TestRegisterTwiceFailsLoudly(t *testing.T) {
	reg := operations.NewRegistry()
	svc := New()
	if err := svc.Register(reg); err != nil {
		t.Fatalf("first Register: %v", err)
	}
	err := svc.Register(reg)
	if err == nil {
		t.Fatal("second Register into the same registry succeeded; want duplicate errors")
	}
	if !strings.Contains(err.Error(), "helpdesk.tickets.get") {
		t.Errorf("error does not name the duplicate operation: %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	reg := mustCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := reg.Call(ctx, "helpdesk.tickets.get", json.RawMessage(`{"ticket_id":42}`)); err == nil {
		t.Fatal("call with a canceled context succeeded")
	}
}
