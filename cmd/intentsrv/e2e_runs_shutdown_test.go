package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// TestE2ERunsShutdownAndBound: serve --http with a run store file and
// --max-runs 1. A second call while one run is under way is refused with
// rate_limited and the way forward. SIGTERM then cuts the run cleanly: its
// HTTP request is aborted, its record is saved interrupted by the stopping
// server itself (the next start finds nothing left running to mark), and
// the restarted server reads it interrupted.
func TestE2ERunsShutdownAndBound(t *testing.T) {
	api := newSlowExports(t)
	file := t.TempDir() + "/runs.db"
	start := func() (*lockedBuffer, func() e2eEnvelope, func(args map[string]any) e2eEnvelope, func() error) {
		base, cmd, stderr := startHTTPServer(t, "--openapi", "exports="+api.spec, "--base-url", api.url,
			"--openapi-cache", "off", "--wait", "200ms", "--rate", "0", "--run-store", file, "--max-runs", "1")
		c := dialHTTP(t, base, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + e2eKey}))
		ask := func(args map[string]any) e2eEnvelope { return callTool(t, c, "ask", args) }
		export := func() e2eEnvelope {
			return ask(map[string]any{"action": "exports.exports.get_export", "params": map[string]any{"id": 2}})
		}
		stop := func() error {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				return err
			}
			return cmd.Wait()
		}
		return stderr, export, ask, stop
	}
	stderr, export, ask, stop := start()
	cut := export()
	if !cut.OK || !strings.Contains(string(cut.Data), `"state":"running"`) {
		t.Fatalf("a call past --wait: %+v", cut)
	}
	refused := export()
	if refused.OK || refused.Code != "rate_limited" || refused.Remedy == nil || refused.Remedy.Action != "runs.list" {
		t.Fatalf("a call past --max-runs 1: %+v", refused)
	}
	var id string
	if i := strings.Index(string(cut.Data), `"run_id":"`); i >= 0 {
		id = string(cut.Data)[i+10 : i+10+26]
	}

	api.waitArrived(t, "2") // shut down with the request in flight, so it must be aborted
	if err := stop(); err != nil {
		t.Fatalf("serve did not exit cleanly on SIGTERM: %v\n%s", err, stderr.String())
	}
	select {
	case got := <-api.aborted:
		if got != "2" {
			t.Fatalf("export %s was aborted, want 2", got)
		}
	case <-time.After(time.Minute): // a liveness bound, not a speed claim
		t.Fatal("the shutdown never aborted the run's HTTP request")
	}
	if !strings.Contains(stderr.String(), "runs were cut by the shutdown and saved") {
		t.Fatalf("the stopping server did not save its run:\n%s", stderr.String())
	}

	stderr2, _, ask2, _ := start()
	got := ask2(map[string]any{"action": "runs.get", "params": map[string]any{"run_id": id}})
	if !got.OK || !strings.Contains(string(got.Data), `"state":"interrupted"`) {
		t.Fatalf("runs.get after the restart: %+v", got)
	}
	if strings.Contains(stderr2.String(), "interrupted when the previous process stopped") {
		t.Fatalf("the restarted server had to mark the run itself: the shutdown did not save it\n%s", stderr2.String())
	}
	_ = ask
}
