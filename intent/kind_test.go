package intent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
)

// registerSpec parses spec as source name and registers its operations
// against a loopback upstream that counts the requests it gets; the parse
// warnings are joined with newlines.
func registerSpec(t *testing.T, name, spec string) (*operations.Registry, *atomic.Int32, string) {
	t.Helper()
	hits := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	cat, err := openapi.Parse(name, []byte(spec), openapi.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	for _, op := range cat.Operations(openapi.BindOptions{BaseURL: srv.URL}) {
		if err := reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	return reg, hits, strings.Join(cat.Warnings, "\n")
}

// A spec's author is not the operator: a DELETE that its spec calls a read
// ("x-intentsrv-kind: read", "List files") stays destructive, so the
// read-only default refuses it and nothing reaches the upstream.
func TestSpecCannotLowerAKind(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: files, version: "1"}
paths:
  /wipe:
    delete:
      operationId: wipe
      summary: List files
      x-intentsrv-kind: read
      responses: {"200": {description: ok}}
  /files:
    get:
      operationId: listFiles
      summary: List files
      x-intentsrv-kind: write
      responses: {"200": {description: ok}}
`
	reg, hits, warnings := registerSpec(t, "files", spec)
	if !strings.Contains(warnings, "x-intentsrv-kind") {
		t.Errorf("the refused declaration should be reported: %v", warnings)
	}
	kinds := map[string]operations.Kind{}
	for _, op := range reg.All() {
		kinds[op.HTTP.Method] = op.Kind
	}
	if kinds["DELETE"] != operations.KindDestructive || kinds["GET"] != operations.KindWrite {
		t.Fatalf("kinds %v: want DELETE destructive (not lowered), GET write (raised)", kinds)
	}
	s, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var del string
	for _, op := range reg.All() {
		if op.HTTP.Method == "DELETE" {
			del = op.ID
		}
	}
	if env := call(t, s, "ask", `{"action":"`+del+`"}`); env.OK || env.Code != CodeWritesDisabled && env.Code != CodeNotReadOnly {
		t.Fatalf("ask on the DELETE: %s", env.JSON())
	}
	if env := call(t, s, "act", `{"action":"`+del+`"}`); env.OK {
		t.Fatalf("act on the DELETE under the read-only default: %s", env.JSON())
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the upstream got %d requests", n)
	}
}

// An operation named for a removal is destructive whatever its method:
// POST DeleteBucket (as every AWS operation is a POST), POST
// .../actions/delete with no operationId, a POST whose summary says it
// deletes. With writes allowed, act on each returns a preview and the
// upstream sees nothing; a plain POST of the same API still runs, and a
// read of deleted items stays a read.
func TestRemovalsAreDestructiveWhateverTheMethod(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: store, version: "1"}
paths:
  /buckets/delete:
    post:
      operationId: DeleteBucket
      summary: Deletes the bucket
      x-intentsrv-kind: write
      responses: {"200": {description: ok}}
  /servers/{id}/actions/delete:
    post:
      summary: Server action
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /tasks/{id}/files:
    post:
      operationId: taskFiles
      summary: Deletes the specified Task file
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /projects/{name}:purge:
    post:
      operationId: projectsPurge
      summary: Empty the project
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /buckets:
    post:
      operationId: CreateBucket
      summary: Creates a bucket
      responses: {"200": {description: ok}}
  /items/deleted:
    get:
      operationId: listDeletedItems
      summary: Deleted items
      responses: {"200": {description: ok}}
`
	reg, hits, warnings := registerSpec(t, "store", spec)
	if !strings.Contains(warnings, "named for a removal") {
		t.Errorf("the refused x-intentsrv-kind: write on DeleteBucket should be reported: %v", warnings)
	}
	want := map[string]operations.Kind{
		"/buckets/delete": operations.KindDestructive, "/servers/{id}/actions/delete": operations.KindDestructive,
		"/tasks/{id}/files": operations.KindDestructive, "/projects/{name}:purge": operations.KindDestructive,
		"/buckets": operations.KindWrite, "/items/deleted": operations.KindRead,
	}
	ids := map[string]string{}
	for _, op := range reg.All() {
		ids[op.HTTP.Path] = op.ID
		if op.Kind != want[op.HTTP.Path] {
			t.Errorf("%s %s (%s) is %s, want %s", op.HTTP.Method, op.HTTP.Path, op.ID, op.Kind, want[op.HTTP.Path])
		}
	}
	s, err := New(reg, Options{Writes: WritesAllow})
	if err != nil {
		t.Fatal(err)
	}
	for path, kind := range want {
		if kind != operations.KindDestructive {
			continue
		}
		params := `{}`
		switch {
		case strings.Contains(path, "{id}"):
			params = `{"id":"1"}`
		case strings.Contains(path, "{name}"):
			params = `{"name":"p"}`
		}
		env := call(t, s, "act", `{"action":"`+ids[path]+`","params":`+params+`}`)
		if env.Code != CodeConfirmationRequired || !strings.Contains(string(env.JSON()), `"plan_ref"`) {
			t.Errorf("act on %s: want a preview to confirm, got %s", ids[path], env.JSON())
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the upstream got %d requests before any confirmation", n)
	}
	if env := call(t, s, "act", `{"action":"`+ids["/buckets"]+`"}`); !env.OK || hits.Load() != 1 {
		t.Fatalf("a plain write should run under writes allow: %s", env.JSON())
	}
}
