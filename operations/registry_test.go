package operations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func echo(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }

func TestRegisterRefuses(t *testing.T) {
	tests := []struct {
		name string
		op   Operation
		want string
	}{
		{"empty id", Operation{Handler: echo}, "empty operation id"},
		{"upper case", Operation{ID: "Tickets.get", Handler: echo}, "lowercase dotted"},
		{"trailing dot", Operation{ID: "tickets.", Handler: echo}, "lowercase dotted"},
		{"slash", Operation{ID: "tickets/get", Handler: echo}, "lowercase dotted"},
		{"too long", Operation{ID: strings.Repeat("a", 129), Handler: echo}, "the limit is 128"},
		{"no handler", Operation{ID: "a.b"}, "no handler"},
		{"bad kind", Operation{ID: "a.b", Kind: "maybe", Handler: echo}, "kind"},
		{"array root", Operation{ID: "a.b", Handler: echo, Input: json.RawMessage(`{"type":"array"}`)}, "root must be an object schema"},
		{"boolean root", Operation{ID: "a.b", Handler: echo, Input: json.RawMessage(`true`)}, "root must be an object schema"},
		{"not json", Operation{ID: "a.b", Handler: echo, Input: json.RawMessage(`{"type":`)}, "not valid JSON"},
		{"does not compile", Operation{ID: "a.b", Handler: echo, Input: json.RawMessage(`{"type":"object","properties":{"x":{"type":"strnig"}}}`)}, "input schema"},
		{"external ref", Operation{ID: "a.b", Handler: echo, Input: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"file:///etc/passwd"}}}`)}, "not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := NewRegistry().Register(tc.op)
			var re *RegistrationError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RegistrationError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if tc.op.ID != "" && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.op.ID)) {
				t.Fatalf("err = %v does not name the operation", err)
			}
		})
	}
}

func TestRegisterDuplicates(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(Operation{ID: "a.b", Handler: echo, Aliases: []string{"a.show"}})
	for _, op := range []Operation{
		{ID: "a.b", Handler: echo},
		{ID: "a.show", Handler: echo},
		{ID: "a.c", Handler: echo, Aliases: []string{"a.b"}},
		{ID: "a.d", Handler: echo, Aliases: []string{"a.show"}},
	} {
		if err := r.Register(op); !errors.Is(err, ErrDuplicate) {
			t.Errorf("Register(%s aliases %v) = %v, want ErrDuplicate", op.ID, op.Aliases, err)
		}
	}
	if got, ok := r.Get("a.show"); !ok || got.ID != "a.b" {
		t.Fatalf("alias lookup = %v, %v", got, ok)
	}
	r.Remove("a.b")
	r.Remove("a.b") // not an error
	if _, ok := r.Get("a.show"); ok {
		t.Fatal("alias survives its operation")
	}
}

func TestDefaults(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(Operation{ID: "svc.tickets.get", Handler: echo})
	op, _ := r.Get("svc.tickets.get")
	if op.Namespace != "svc.tickets" || op.Kind != KindRead || op.Source != "go" {
		t.Fatalf("defaults: %+v", op)
	}
	r.SetNamespaceBlurb("svc.tickets", "Tickets")
	ns := r.Namespaces(nil)
	if len(ns) != 1 || ns[0].Count != 1 || ns[0].Blurb != "Tickets" {
		t.Fatalf("namespaces = %+v", ns)
	}
}

type ticketQuery struct {
	ID       int      `json:"id" jsonschema:"description=ticket number,minimum=1"`
	Status   string   `json:"status,omitempty" jsonschema:"description=filter by status,enum=open,enum=closed,default=open"`
	Tags     []string `json:"tags,omitempty" jsonschema:"description=tags to match"`
	Assignee *person  `json:"assignee,omitempty"`
}

type person struct {
	Email string `json:"email" jsonschema:"format=email"`
}

type ticket struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
}

func TestTypedRegistration(t *testing.T) {
	r := NewRegistry()
	calls := 0
	err := Add(r, Operation{ID: "t.get", Summary: "Get a ticket"}, func(ctx context.Context, in ticketQuery) (ticket, error) {
		calls++
		return ticket{ID: in.ID, Status: in.Status}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	op, _ := r.Get("t.get")
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(op.Input, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Required) != 1 || schema.Required[0] != "id" {
		t.Errorf("required = %v, want [id]", schema.Required)
	}
	status := string(schema.Properties["status"])
	for _, want := range []string{`"enum":["open","closed"]`, `"default":"open"`, `"description":"filter by status"`} {
		if !strings.Contains(status, want) {
			t.Errorf("status schema %s lacks %s", status, want)
		}
	}
	if _, ok := schema.Defs["person"]; !ok {
		t.Errorf("nested type not hoisted to $defs: %s", op.Input)
	}
	if !strings.Contains(string(op.Output), `"status"`) {
		t.Errorf("output schema not reflected: %s", op.Output)
	}

	tests := []struct {
		args     string
		pointers []string
	}{
		{`{"id":0}`, []string{"/id"}},
		{`{"id":3,"status":"pending"}`, []string{"/status"}},
		{`{"status":"open"}`, []string{""}},
		{`{"id":3,"assignee":{"email":"not-an-email"}}`, nil}, // formats are annotations by default
		{`{"id":3,"tags":[1]}`, []string{"/tags/0"}},
		{`{"id":3,"extra":true}`, []string{""}},
		{`{"id":"x","status":9}`, []string{"/id", "/status"}},
	}
	for _, tc := range tests {
		_, err := r.Call(context.Background(), "t.get", json.RawMessage(tc.args))
		var ve *ValidationError
		if tc.pointers == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.args, err)
			}
			continue
		}
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want *ValidationError", tc.args, err)
			continue
		}
		var got []string
		for _, p := range ve.Problems {
			got = append(got, p.Pointer)
			if p.Message == "" {
				t.Errorf("%s: problem at %q has no message", tc.args, p.Pointer)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.pointers, ",") {
			t.Errorf("%s: pointers = %q, want %q", tc.args, got, tc.pointers)
		}
	}
	if calls != 1 {
		t.Fatalf("handler ran %d times; it must run only for valid arguments", calls)
	}
	out, err := r.Call(context.Background(), "t.get", json.RawMessage(`{"id":7,"status":"closed"}`))
	if err != nil || string(out) != `{"id":7,"status":"closed"}` {
		t.Fatalf("call = %s, %v", out, err)
	}
}

func TestTypedRegistrationRefusesNonStruct(t *testing.T) {
	err := Add(NewRegistry(), Operation{ID: "x.y"}, func(ctx context.Context, in string) (string, error) { return in, nil })
	if err == nil || !strings.Contains(err.Error(), "not a struct") {
		t.Fatalf("err = %v", err)
	}
}

func TestSchemaCachePerType(t *testing.T) {
	a, _ := SchemaFor[ticketQuery]()
	b, _ := SchemaFor[ticketQuery]()
	if &a[0] != &b[0] {
		t.Fatal("schema reflected twice for the same type")
	}
}

func TestConcurrentRegistry(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = r.Register(Operation{ID: fmt.Sprintf("w%d.op%d", w, i), Handler: echo})
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				r.All()
				r.Get(fmt.Sprintf("w0.op%d", i))
				r.Namespaces(nil)
				_, _ = r.Call(context.Background(), "w0.op1", nil)
			}
		}()
	}
	wg.Wait()
	if r.Len() != 800 || len(r.All()) != 800 {
		t.Fatalf("len = %d", r.Len())
	}
}

func FuzzValidate(f *testing.F) {
	r := NewRegistry()
	if err := Add(r, Operation{ID: "t.get"}, func(ctx context.Context, in ticketQuery) (ticket, error) { return ticket{}, nil }); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte(`{"id":"x","tags":[1,{}]}`))
	f.Fuzz(func(t *testing.T, args []byte) {
		err := r.Validate("t.get", args)
		var ve *ValidationError
		if err != nil && !errors.As(err, &ve) {
			t.Fatalf("validate returned %T: %v", err, err)
		}
	})
}

func TestRegisterAll(t *testing.T) {
	good := func(id string) Operation {
		return Operation{ID: id, Handler: echo, Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}
	}
	bad := Operation{ID: "x.bad", Handler: echo, Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"nope"}}}`)}
	ops := []Operation{good("x.a"), bad, good("x.b"), good("x.a"), {ID: "Bad Id", Handler: echo}}

	r := NewRegistry()
	err := r.RegisterAll(ops, RegisterOptions{})
	if r.Len() != 2 {
		t.Fatalf("registered %d operations, want the 2 good ones", r.Len())
	}
	for _, want := range []string{`"x.bad"`, `"x.a": duplicate`, `"Bad Id"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("joined error %v lacks %s", err, want)
		}
	}

	// Deferred: the bad schema registers and fails on first validation,
	// naming the operation; good schemas validate as usual.
	r = NewRegistry()
	if err := r.RegisterAll([]Operation{good("x.a"), bad}, RegisterOptions{DeferCompile: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate("x.a", json.RawMessage(`{"n":"s"}`)); err == nil {
		t.Fatal("deferred schema did not validate")
	}
	if err := r.Validate("x.bad", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), `"x.bad"`) {
		t.Fatalf("deferred bad schema: %v", err)
	}
	if err := r.RegisterAll([]Operation{{ID: "x.arr", Handler: echo, Input: json.RawMessage(`{"type":"array"}`)}}, RegisterOptions{DeferCompile: true}); err == nil {
		t.Fatal("deferred registration must still refuse a non-object root")
	}
	// The output schema's JSON is checked with the compilation: now, or
	// not at all for a catalog known to have registered before.
	broken := Operation{ID: "x.out", Handler: echo, Output: json.RawMessage(`{"type":`)}
	if err := NewRegistry().RegisterAll([]Operation{broken}, RegisterOptions{}); err == nil || !strings.Contains(err.Error(), "output schema") {
		t.Fatalf("compiled registration of a broken output schema: %v", err)
	}
	if err := NewRegistry().RegisterAll([]Operation{broken}, RegisterOptions{DeferCompile: true}); err != nil {
		t.Fatalf("deferred registration scanned the output schema: %v", err)
	}
}

func TestTypedDecodesWholeFloats(t *testing.T) {
	r := NewRegistry()
	MustAdd(r, Operation{ID: "t.get"}, func(ctx context.Context, in ticketQuery) (ticket, error) { return ticket{ID: in.ID}, nil })
	out, err := r.Call(context.Background(), "t.get", json.RawMessage(`{"id":42.0}`))
	if err != nil || string(out) != `{"id":42,"status":""}` {
		t.Fatalf("42.0: %s, %v", out, err)
	}
	_, err = r.Call(context.Background(), "t.get", json.RawMessage(`{"id":123456789012345678901234567890}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Problems[0].Pointer != "/id" {
		t.Fatalf("too large: %v", err)
	}
}
