package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const e2eExportSpec = `{"openapi":"3.0.3","info":{"title":"exports","version":"1"},
"paths":{"/exports/{id}":{"get":{"operationId":"getExport","summary":"Build and download an export",
"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
"responses":{"200":{"description":"the export","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`

// TestE2EStdioRuns drives the real binary over stdio against a slow
// HTTP API: a call past --wait answers with a run handle, runs.await
// returns the export once the API answers, and runs.cancel aborts the
// HTTP request of another export.
func TestE2EStdioRuns(t *testing.T) {
	var mu sync.Mutex
	release := map[string]chan struct{}{"1": make(chan struct{}), "2": make(chan struct{})}
	aborted := make(chan string, 2)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/exports/")
		mu.Lock()
		ch := release[id]
		mu.Unlock()
		select {
		case <-ch:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"export":` + id + `,"rows":42}`))
		case <-r.Context().Done():
			aborted <- id
		}
	}))
	defer api.Close()
	spec := filepath.Join(t.TempDir(), "exports.json")
	if err := os.WriteFile(spec, []byte(e2eExportSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, "--openapi", "exports="+spec, "--base-url", api.URL, "--wait", "200ms", "--openapi-cache", "off")

	found := callTool(t, c, "find", map[string]any{"intent": "download an export"})
	var cands struct {
		Candidates []struct{ ID string } `json:"candidates"`
	}
	if err := json.Unmarshal(found.Data, &cands); err != nil || len(cands.Candidates) == 0 {
		t.Fatalf("find: %s", found.Data)
	}
	op := cands.Candidates[0].ID
	handleOf := func(id int) string {
		t.Helper()
		env := callTool(t, c, "ask", map[string]any{"action": op, "params": map[string]any{"id": id}})
		var h struct {
			RunID string `json:"run_id"`
			State string `json:"state"`
		}
		if err := json.Unmarshal(env.Data, &h); err != nil || !env.OK || h.RunID == "" || h.State != "running" {
			t.Fatalf("a call past --wait: %+v", env)
		}
		return h.RunID
	}
	first := handleOf(1)
	second := handleOf(2)

	list := callTool(t, c, "ask", map[string]any{"action": "runs.list", "params": map[string]any{"state": "running"}})
	if !strings.Contains(string(list.Data), first) || !strings.Contains(string(list.Data), second) {
		t.Fatalf("runs.list: %s", list.Data)
	}
	cancelled := callTool(t, c, "ask", map[string]any{"action": "runs.cancel", "params": map[string]any{"run_id": second}})
	if !cancelled.OK {
		t.Fatalf("runs.cancel: %+v", cancelled)
	}
	select {
	case id := <-aborted:
		if id != "2" {
			t.Fatalf("export %s was aborted, want 2", id)
		}
	case <-time.After(time.Minute): // a liveness bound, not a speed claim
		t.Fatal("the cancel never reached the HTTP request")
	}
	close(release["1"])
	res := callTool(t, c, "ask", map[string]any{"action": "runs.await", "params": map[string]any{"run_id": first, "wait_seconds": 60}})
	if !res.OK || !strings.Contains(string(res.Data), `"rows":42`) || !strings.Contains(string(res.Data), `"export":1`) {
		t.Fatalf("runs.await: %+v", res)
	}
	gone := callTool(t, c, "ask", map[string]any{"action": "runs.await", "params": map[string]any{"run_id": second}})
	if gone.OK || gone.Code != "timeout" {
		t.Fatalf("await of the cancelled export: %+v", gone)
	}
}
