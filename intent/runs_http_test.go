package intent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
)

const exportSpec = `{"openapi":"3.0.3","info":{"title":"exports","version":"1"},
"paths":{"/exports/{id}":{"get":{"operationId":"getExport","summary":"Build and download an export",
"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
"responses":{"200":{"description":"the export","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`

// TestCancelReachesTheHTTPRequest cancels the run of an OpenAPI operation
// whose server is still working on the request: the request's context
// ends on the server's side.
func TestCancelReachesTheHTTPRequest(t *testing.T) {
	arrived := make(chan struct{})
	aborted := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(aborted)
	}))
	defer api.Close()
	cat, err := openapi.Parse("exports", []byte(exportSpec), openapi.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	ops := cat.Operations(openapi.BindOptions{BaseURL: api.URL})
	for _, op := range ops {
		if err := reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	s, err := intent.New(reg, intent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	handle := s.Call(ctx, intent.ToolAsk, []byte(`{"action":"`+ops[0].ID+`","params":{"id":7,"_wait":0}}`))
	if !handle.OK || handle.Meta == nil || handle.Meta.RunID == "" {
		t.Fatalf("not a handle: %s", handle.JSON())
	}
	<-arrived
	cancel := s.Call(ctx, intent.ToolAsk, []byte(`{"action":"runs.cancel","params":{"run_id":"`+handle.Meta.RunID+`"}}`))
	if !cancel.OK {
		t.Fatalf("cancel = %s", cancel.JSON())
	}
	select {
	case <-aborted: // the API server saw the request end
	case <-time.After(time.Minute): // a liveness bound, not a speed claim
		t.Fatal("the cancel never reached the HTTP request")
	}
	res := s.Call(ctx, intent.ToolAsk, []byte(`{"action":"runs.await","params":{"run_id":"`+handle.Meta.RunID+`"}}`))
	if res.OK || res.Code != intent.CodeTimeout {
		t.Fatalf("await of the cancelled export = %s", res.JSON())
	}
}
