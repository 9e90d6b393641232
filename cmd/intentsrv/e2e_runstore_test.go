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

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/intentsrv/intentsrv/internal/redistest"
)

// slowExports is the exports API on loopback: GET /exports/N answers once
// release(N) is called, reports on aborted the exports whose request was
// cancelled, and records which requests arrived (waitArrived).
type slowExports struct {
	url     string
	spec    string
	mu      sync.Mutex
	gates   map[string]chan struct{}
	aborted chan string
	arrived map[string]chan struct{}
}

func newSlowExports(t *testing.T) *slowExports {
	t.Helper()
	s := &slowExports{gates: map[string]chan struct{}{}, aborted: make(chan string, 8), arrived: map[string]chan struct{}{}}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/exports/")
		s.arrive(id)
		select {
		case <-s.gate(id):
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"export":` + id + `,"rows":42}`))
		case <-r.Context().Done():
			s.aborted <- id
		}
	}))
	t.Cleanup(api.Close)
	s.url = api.URL
	s.spec = filepath.Join(t.TempDir(), "exports.json")
	if err := os.WriteFile(s.spec, []byte(e2eExportSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// signal returns id's channel in m, made on first use.
func (s *slowExports) signal(m map[string]chan struct{}, id string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m[id] == nil {
		m[id] = make(chan struct{})
	}
	return m[id]
}

func (s *slowExports) gate(id string) chan struct{} { return s.signal(s.gates, id) }

func (s *slowExports) release(id string) { close(s.gate(id)) }

// arrivedChan is closed once the request for export id has reached the API.
func (s *slowExports) arrivedChan(id string) chan struct{} { return s.signal(s.arrived, id) }

func (s *slowExports) arrive(id string) {
	c := s.arrivedChan(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-c: // a repeated request
	default:
		close(c)
	}
}

// waitArrived waits until the request for export id has reached the API,
// so that cancelling its call must abort a request in flight.
func (s *slowExports) waitArrived(t *testing.T, id string) {
	t.Helper()
	select {
	case <-s.arrivedChan(id):
	case <-time.After(e2eHangGuard):
		t.Fatalf("the request for export %s never reached the API", id)
	}
}

// startExportsServer is serve --http on the exports API with a short
// --wait and the given run store; it returns the base URL, the process
// and an MCP session as alice.
func startExportsServer(t *testing.T, api *slowExports, runStore string) (string, *client.Client, func()) {
	t.Helper()
	base, cmd, _ := startHTTPServer(t, "--openapi", "exports="+api.spec, "--base-url", api.url,
		"--openapi-cache", "off", "--wait", "200ms", "--rate", "0", "--run-store", runStore)
	c := dialHTTP(t, base, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + e2eKey}))
	kill := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	return base, c, kill
}

// startExport asks for export id and returns the run handle's id.
func startExport(t *testing.T, c *client.Client, id int) string {
	t.Helper()
	env := callTool(t, c, "ask", map[string]any{"action": "exports.exports.get_export", "params": map[string]any{"id": id}})
	var h struct {
		RunID string `json:"run_id"`
		State string `json:"state"`
	}
	if err := json.Unmarshal(env.Data, &h); err != nil || !env.OK || h.RunID == "" || h.State != "running" {
		t.Fatalf("a call past --wait: %+v", env)
	}
	return h.RunID
}

func runOp(t *testing.T, c *client.Client, op, runID string) e2eEnvelope {
	t.Helper()
	params := map[string]any{"run_id": runID}
	if op == "runs.await" {
		params["wait_seconds"] = 30
	}
	return callTool(t, c, "ask", map[string]any{"action": op, "params": params})
}

// TestE2ERunStoreRestart: with --run-store FILE, a finished run's result
// is readable after the server restarts, and a run the killed server was
// executing reads interrupted, with a note on its effects.
func TestE2ERunStoreRestart(t *testing.T) {
	api := newSlowExports(t)
	file := filepath.Join(t.TempDir(), "runs.db")
	_, c, kill := startExportsServer(t, api, file)
	done := startExport(t, c, 1)
	api.release("1")
	if res := runOp(t, c, "runs.await", done); !res.OK || !strings.Contains(string(res.Data), `"rows":42`) {
		t.Fatalf("runs.await before the restart: %+v", res)
	}
	cut := startExport(t, c, 2)
	kill() // SIGKILL mid-run: nothing gets to mark it

	_, c2, _ := startExportsServer(t, api, file)
	if res := runOp(t, c2, "runs.await", done); !res.OK || !strings.Contains(string(res.Data), `"rows":42`) || !strings.Contains(string(res.Data), `"export":1`) {
		t.Fatalf("the finished run after a restart: %+v", res)
	}
	got := runOp(t, c2, "runs.get", cut)
	if !got.OK || !strings.Contains(string(got.Data), `"state":"interrupted"`) {
		t.Fatalf("runs.get of the run cut by the restart: %+v", got)
	}
	res := runOp(t, c2, "runs.await", cut)
	if res.OK || !strings.Contains(res.Error, "interrupted") || !strings.Contains(res.Error, "effects") {
		t.Fatalf("runs.await of the run cut by the restart: %+v", res)
	}
	list := callTool(t, c2, "ask", map[string]any{"action": "runs.list", "params": map[string]any{"state": "interrupted"}})
	if !strings.Contains(string(list.Data), cut) || strings.Contains(string(list.Data), done) {
		t.Fatalf("runs.list interrupted: %s", list.Data)
	}
}

// TestE2ERunStoreRedisReplicas: two servers on one Redis. A run started
// on A is awaited from B; a cancel asked of B aborts A's HTTP request.
func TestE2ERunStoreRedisReplicas(t *testing.T) {
	rdb := redistest.Start(t)
	api := newSlowExports(t)
	_, a, _ := startExportsServer(t, api, rdb.URL())
	_, b, _ := startExportsServer(t, api, rdb.URL())

	first := startExport(t, a, 1)
	go func() { time.Sleep(300 * time.Millisecond); api.release("1") }()
	if res := runOp(t, b, "runs.await", first); !res.OK || !strings.Contains(string(res.Data), `"export":1`) {
		t.Fatalf("B awaits A's run: %+v", res)
	}
	second := startExport(t, a, 2)
	api.waitArrived(t, "2") // cancelled in flight, so its request must be aborted
	if res := runOp(t, b, "runs.cancel", second); !res.OK {
		t.Fatalf("B cancels A's run: %+v", res)
	}
	select {
	case id := <-api.aborted:
		if id != "2" {
			t.Fatalf("export %s was aborted, want 2", id)
		}
	case <-time.After(time.Minute): // a liveness bound, not a speed claim
		t.Fatal("the cancel asked of B never reached A's HTTP request")
	}
	if got := runOp(t, a, "runs.get", second); !strings.Contains(string(got.Data), `"state":"cancelled"`) {
		t.Fatalf("A reads its cancelled run: %+v", got)
	}
}
