package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// serving runs Serve on a loopback listener and returns its URL, a cancel
// that starts the shutdown, and the channel Serve's result arrives on.
func serving(t *testing.T, s *Server) (url string, shutdown context.CancelFunc, result <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan error, 1)
	go func() { out <- s.Serve(ctx, ln) }()
	t.Cleanup(cancel)
	return "http://" + ln.Addr().String(), cancel, out
}

func newServed(t *testing.T, timeout time.Duration) (*Server, *catalog) {
	t.Helper()
	reg, cat := newCatalog(t)
	is, err := intent.New(reg, intent.Options{Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{ShutdownTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	s.SetIntent(is)
	t.Cleanup(func() { s.Close() })
	t.Cleanup(cat.finish)
	return s, cat
}

// slowCall starts a REST ask of the slow operation and returns the channel
// its envelope (or error) arrives on, once the operation has started.
func slowCall(t *testing.T, url string, cat *catalog) <-chan any {
	out := make(chan any, 1)
	go func() {
		resp, err := http.Post(url+"/v1/ask", "application/json", strings.NewReader(`{"action":"reports.build"}`))
		if err != nil {
			out <- err
			return
		}
		defer resp.Body.Close()
		var env intent.Envelope
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			out <- err
			return
		}
		out <- env
	}()
	select {
	case <-cat.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the slow call never started")
	}
	return out
}

func TestGracefulShutdownLetsCallsInFlightFinish(t *testing.T) {
	s, cat := newServed(t, time.Minute)
	url, shutdown, result := serving(t, s)
	inflight := slowCall(t, url, cat)

	shutdown()
	// New connections are refused once the listener closes.
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts connections during shutdown")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s.Ready() {
		t.Fatal("ready while shutting down")
	}
	select {
	case err := <-result:
		t.Fatalf("Serve returned %v with a call in flight", err)
	default:
	}
	cat.finish()
	switch got := (<-inflight).(type) {
	case intent.Envelope:
		if !got.OK || !bytes.Contains(got.Data, []byte("report ready")) {
			t.Fatalf("call in flight = %+v", got)
		}
	default:
		t.Fatalf("call in flight: %v", got)
	}
	if err := <-result; err != nil {
		t.Fatalf("Serve = %v, want a clean shutdown", err)
	}
}

func TestShutdownDeadlineCancelsCallsInFlight(t *testing.T) {
	s, cat := newServed(t, 200*time.Millisecond)
	url, shutdown, result := serving(t, s)
	inflight := slowCall(t, url, cat)
	shutdown()
	if err := <-result; err == nil {
		t.Fatal("Serve reported a clean shutdown though a call outlived the deadline")
	}
	// The call was cancelled (its own timeout is ten minutes): the client
	// sees a cut connection or a failed envelope, never a result.
	select {
	case got := <-inflight:
		if env, ok := got.(intent.Envelope); ok && env.OK {
			t.Fatalf("cancelled call answered %+v", env)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight was not cancelled at the shutdown deadline")
	}
}

func TestDrainingRefusesRequestsOnOpenConnections(t *testing.T) {
	s, _ := newServed(t, time.Minute)
	s.draining.Store(true)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/find", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Connection") != "close" {
		t.Fatalf("status %d, Connection %q", rec.Code, rec.Header().Get("Connection"))
	}
}

func TestShutdownEndsListeningStreams(t *testing.T) {
	s, _ := newServed(t, time.Minute)
	url, shutdown, result := serving(t, s)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, url+PathMCP, strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	get, _ := http.NewRequest(http.MethodGet, url+PathMCP, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", session)
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", stream.StatusCode)
	}
	// The stream is open (headers arrived). A listening stream never ends
	// by itself; shutdown must end it rather than wait out its deadline.
	shutdown()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Serve = %v, want a clean shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shutdown waited on the listening stream")
	}
}
