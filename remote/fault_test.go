package remote

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// TestDisconnectMidCallFreesTheSlot: a client that hangs up during a slow
// call must not keep its concurrency slot; the call is cancelled and the
// principal can call again.
func TestDisconnectMidCallFreesTheSlot(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrentCalls = 1 })
	ctx, hangUp := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url+"/v1/ask", strings.NewReader(`{"action":"reports.build"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+keyAlice)
	gone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gone <- err
	}()
	<-f.cat.started
	hangUp()
	if err := <-gone; err == nil {
		t.Fatal("the request completed though the client hung up")
	}
	// The server notices the hang-up asynchronously; the slot must come
	// back without the slow operation ever being released.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := f.post("/v1/find", keyAlice, `{}`)
		if r.status == http.StatusOK {
			break
		}
		if r.env.Code != intent.CodeRateLimited || time.Now().After(deadline) {
			t.Fatalf("slot not freed after the hang-up: %d %s", r.status, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMalformedRequestsLeaveTheServerWhole(t *testing.T) {
	f := newFixture(t, nil)
	for _, body := range []string{`{`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`, `null`, "\x00\xff"} {
		r := f.post(PathMCP, keyAlice, body)
		if r.status < 400 && !strings.Contains(string(r.body), `"error"`) {
			t.Errorf("%q: %d %s", body, r.status, r.body)
		}
		if body == "null" {
			continue // the empty input, as on MCP
		}
		if r := f.post("/v1/find", keyAlice, body); r.status != http.StatusOK || r.env.Code != intent.CodeInvalidParams {
			t.Errorf("REST %q: %d %s", body, r.status, r.body)
		}
	}
	if env := callTool(t, f.mustMCP(keyAlice), "find", map[string]any{"intent": "search tickets"}); !env.OK {
		t.Fatalf("after malformed requests: %+v", env)
	}
}
