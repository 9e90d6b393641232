package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// dialRaw opens a plain TCP connection to the fixture's server, so a test
// can send and read at its own pace.
func (f *fixture) dialRaw() net.Conn {
	f.t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { conn.Close() })
	return conn
}

// rawRequestHead is the head of a REST POST of length body bytes by key.
func rawRequestHead(path, key string, length int) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n", path, key, length)
}

// readRawResponse reads one HTTP response from conn within 10 s.
func readRawResponse(t *testing.T, conn net.Conn) (*http.Response, []byte) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp, body
}

// TestSlowBodyIsCutOff: a client that sends its headers and then the body
// slower than BodyReadTimeout allows gets 408 and its connection closed,
// instead of holding a server goroutine for as long as it likes.
func TestSlowBodyIsCutOff(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.BodyReadTimeout = 300 * time.Millisecond })
	body := `{"intent":"search tickets"}`
	conn := f.dialRaw()
	if _, err := io.WriteString(conn, rawRequestHead("/v1/find", keyAlice, len(body))+body[:5]); err != nil {
		t.Fatal(err)
	}
	resp, raw := readRawResponse(t, conn)
	var env intent.Envelope
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != http.StatusRequestTimeout || env.Code != intent.CodeTimeout || env.Remedy == nil {
		t.Fatalf("slow body: %d %s", resp.StatusCode, raw)
	}
	if !resp.Close {
		t.Fatal("the connection of a cut-off body must close")
	}

	// A body that arrives in pieces within the deadline is served, and
	// the deadline does not outlive the body: the same connection serves
	// a second request after more than the deadline.
	conn = f.dialRaw()
	for i, part := range []string{rawRequestHead("/v1/find", keyAlice, len(body)) + body[:5], body[5:]} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := io.WriteString(conn, part); err != nil {
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(conn)
	for i := range 2 {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		if i == 0 {
			time.Sleep(500 * time.Millisecond)
			if _, err := io.WriteString(conn, rawRequestHead("/v1/find", keyAlice, len(body))+body); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSlowReaderHoldsNoSlot: a client that sends a call and does not read
// the answer holds neither its concurrency slot nor anyone else's; it
// gets the whole answer when it reads at last.
func TestSlowReaderHoldsNoSlot(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrentCalls = 1 })
	body := `{"action":"tickets.search","params":{"query":"printer"}}`
	slow := `{"action":"reports.build","params":{"query":"monthly"}}`
	conn := f.dialRaw()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(1024)
	}
	if _, err := io.WriteString(conn, rawRequestHead("/v1/ask", keyAlice, len(slow))+slow); err != nil {
		t.Fatal(err)
	}
	// The unread call holds alice's one slot first (it was racing the
	// calls below), then ends.
	<-f.cat.started
	f.cat.finish()
	// While its answer waits unread, alice's one slot is free again and
	// bob is not held up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := f.post("/v1/ask", keyAlice, body)
		if r.status == http.StatusOK && r.env.OK {
			break
		}
		if r.env.Code != intent.CodeRateLimited || time.Now().After(deadline) {
			t.Fatalf("alice beside her unread answer: %d %s", r.status, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := f.post("/v1/ask", keyBob, body); r.status != http.StatusOK || !r.env.OK {
		t.Fatalf("bob: %d %s", r.status, r.body)
	}
	resp, raw := readRawResponse(t, conn)
	var env intent.Envelope
	if err := json.Unmarshal(raw, &env); err != nil || resp.StatusCode != http.StatusOK || !env.OK {
		t.Fatalf("the slow reader's answer: %d %s", resp.StatusCode, raw)
	}
}

// TestDisconnectMidMCPCallFreesTheSlot is TestDisconnectMidCallFreesTheSlot
// over MCP: the POST of a tools/call is dropped while the call runs.
func TestDisconnectMidMCPCallFreesTheSlot(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrentCalls = 1 })
	alice := f.mustMCP(keyAlice)
	ctx, hangUp := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := alice.CallTool(ctx, toolRequest("ask", map[string]any{"action": "reports.build"}))
		gone <- err
	}()
	<-f.cat.started
	hangUp()
	if err := <-gone; err == nil {
		t.Fatal("the call completed though the client hung up")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		env := callTool(t, alice, "find", map[string]any{"intent": "search tickets"})
		if env.OK {
			break
		}
		if env.Code != intent.CodeRateLimited || time.Now().After(deadline) {
			t.Fatalf("slot not freed after the hang-up: %+v", env)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFloodFromOnePrincipal: one principal sends many requests at once
// over REST and MCP; each is answered 200 or 429 rate_limited with
// Retry-After, while another principal's calls all succeed and the server
// stays healthy.
func TestFloodFromOnePrincipal(t *testing.T) {
	const burst, flood = 10, 200
	f := newFixture(t, func(c *Config) { c.RatePerSecond = 1; c.Burst = burst; c.MaxConcurrentCalls = 4 })
	// Sessions open before the flood, so their initialize is not in it.
	bob := f.mustMCP(keyBob)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"0"}}}`
	session := f.rawMCP(keyAlice, "", init).Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("alice's initialize opened no session")
	}
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"intent":"search tickets"}}}`

	var mu sync.Mutex
	statuses := map[int]int{}
	var bad []string
	var wg sync.WaitGroup
	for i := range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path, body := "/v1/find", `{"intent":"search tickets"}`
			if i%2 == 1 {
				path, body = PathMCP, mcpCall
			}
			req, _ := http.NewRequest(http.MethodPost, f.url+path, strings.NewReader(body))
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+keyAlice)
			resp, err := http.DefaultClient.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad = append(bad, err.Error())
				return
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			statuses[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests {
				var env intent.Envelope
				if json.Unmarshal(raw, &env) != nil || env.Code != intent.CodeRateLimited || resp.Header.Get("Retry-After") == "" {
					bad = append(bad, fmt.Sprintf("429 without rate_limited and Retry-After: %s", raw))
				}
			}
		}()
	}
	// Bob calls throughout the flood, within his own burst.
	for range burst / 2 {
		if env := callTool(t, bob, "find", map[string]any{"intent": "search tickets"}); !env.OK {
			t.Fatalf("bob during alice's flood: %+v", env)
		}
	}
	wg.Wait()
	for _, b := range bad {
		t.Error(b)
	}
	if limited := statuses[http.StatusTooManyRequests]; limited < flood-burst-5 {
		t.Errorf("only %d of %d flooding requests were limited (burst %d): %v", limited, flood, burst, statuses)
	}
	for status := range statuses {
		if status != http.StatusOK && status != http.StatusTooManyRequests {
			t.Errorf("flood answered with status %d: %v", status, statuses)
		}
	}
	resp, err := http.Get(f.url + PathHealthz)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz after the flood: %v %v", resp, err)
	}
	resp.Body.Close()
	if env := callTool(t, bob, "find", map[string]any{"intent": "search tickets"}); !env.OK {
		t.Fatalf("bob after the flood: %+v", env)
	}
}
