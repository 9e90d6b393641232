package remote

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/intent"
)

func TestMCPOverStreamableHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Stateless = stateless })
			c := f.mustMCP(keyAlice)
			list, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			if got := strings.Join(names, ","); got != "find,describe,ask,act" {
				t.Fatalf("tools = %s", got)
			}
			env := callTool(t, c, "ask", map[string]any{"action": "tickets.search", "params": map[string]any{"query": "printer"}})
			if !env.OK || !strings.Contains(string(env.Data), "printer on fire") {
				t.Fatalf("ask = %+v", env)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t, nil)
	cases := []struct {
		name, header, wantChallenge string
		wantStatus                  int
	}{
		{"no key", "", `Bearer realm="intentsrv"`, http.StatusUnauthorized},
		{"wrong key", "Bearer not-a-key-of-anyone-here", `Bearer realm="intentsrv", error="invalid_token"`, http.StatusUnauthorized},
		{"key of another scheme", "Basic " + keyAlice, `Bearer realm="intentsrv"`, http.StatusUnauthorized},
		{"valid key", "Bearer " + keyAlice, "", http.StatusOK},
		{"valid key, scheme in lower case", "bearer " + keyBob, "", http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.header != "" {
				hdr = append(hdr, "Authorization: "+tc.header)
			}
			r := f.post("/v1/find", "", `{"intent":"search tickets"}`, hdr...)
			if r.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tc.wantStatus, r.body)
			}
			if got := r.header.Get("WWW-Authenticate"); got != tc.wantChallenge {
				t.Fatalf("WWW-Authenticate %q, want %q", got, tc.wantChallenge)
			}
			if tc.wantStatus == http.StatusUnauthorized && r.env.Code != intent.CodeUnauthorized {
				t.Fatalf("code %q", r.env.Code)
			}
		})
	}
	t.Run("mcp client without key", func(t *testing.T) {
		if _, err := f.mcpClient(""); err == nil {
			t.Fatal("initialize without a key succeeded")
		}
		if _, err := f.mcpClient("wrong-key-wrong-key-wrong"); err == nil {
			t.Fatal("initialize with a wrong key succeeded")
		}
	})
}

func TestOriginAndHost(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.AllowedOrigins = []string{"https://app.example.com"} })
	cases := []struct {
		name    string
		headers []string
		want    int
	}{
		{"no origin (not a browser)", nil, http.StatusOK},
		{"loopback origin", []string{"Origin: http://localhost:6274"}, http.StatusOK},
		{"listed origin", []string{"Origin: https://APP.example.com/"}, http.StatusOK},
		{"foreign origin", []string{"Origin: http://evil.example"}, http.StatusForbidden},
		{"listed host name, other scheme", []string{"Origin: http://app.example.com"}, http.StatusForbidden},
		{"null origin", []string{"Origin: null"}, http.StatusForbidden},
		{"rebound host on loopback", []string{"Host: evil.example:8080"}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.post("/v1/find", keyAlice, `{}`, tc.headers...)
			if r.status != tc.want {
				t.Fatalf("status %d, want %d: %s", r.status, tc.want, r.body)
			}
		})
	}
	t.Run("mcp endpoint too", func(t *testing.T) {
		r := f.post(PathMCP, keyAlice, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Origin: http://evil.example")
		if r.status != http.StatusForbidden {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	})
	t.Run("allowed host", func(t *testing.T) {
		g := newFixture(t, func(c *Config) { c.AllowedHosts = []string{"mcp.internal"} })
		if r := g.post("/v1/find", keyAlice, `{}`, "Host: mcp.internal:443"); r.status != http.StatusOK {
			t.Fatalf("listed host: %d %s", r.status, r.body)
		}
		if r := g.post("/v1/find", keyAlice, `{}`, "Host: other.internal"); r.status != http.StatusForbidden {
			t.Fatalf("unlisted host: %d %s", r.status, r.body)
		}
	})
}

func TestBodyCap(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBodyBytes = 256 })
	big := `{"intent":"` + strings.Repeat("x", 300) + `"}`
	for _, path := range []string{"/v1/find", PathMCP} {
		r := f.post(path, keyAlice, big)
		if r.status != http.StatusRequestEntityTooLarge || r.env.Code != intent.CodeInvalidParams {
			t.Fatalf("%s: status %d code %q", path, r.status, r.env.Code)
		}
	}
	t.Run("chunked, no length", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, f.url+"/v1/find", strings.NewReader(big))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+keyAlice)
		if r := f.do(req); r.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	})
	t.Run("no key: refused before the body is read", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, f.url+"/v1/find", strings.NewReader(big))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		if r := f.do(req); r.status != http.StatusUnauthorized {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	})
	if r := f.post("/v1/find", keyAlice, `{"intent":"search tickets"}`); r.status != http.StatusOK {
		t.Fatalf("small body: %d %s", r.status, r.body)
	}
}

func TestRateLimitPerPrincipal(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.RatePerSecond = 0.01; c.Burst = 3 })
	for i := 0; i < 3; i++ {
		if r := f.post("/v1/find", keyAlice, `{}`); r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	r := f.post("/v1/find", keyAlice, `{}`)
	if r.status != http.StatusTooManyRequests || r.env.Code != intent.CodeRateLimited {
		t.Fatalf("4th request: %d %s", r.status, r.body)
	}
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if d, _ := r.env.Details.(map[string]any); d["retry_after_seconds"] != float64(secs) {
		t.Fatalf("details %v, Retry-After %d", r.env.Details, secs)
	}
	// The MCP endpoint draws on the same bucket.
	if _, err := f.mcpClient(keyAlice); err == nil {
		t.Fatal("mcp initialize passed an empty bucket")
	}
	// Another principal has its own bucket.
	if r := f.post("/v1/find", keyBob, `{}`); r.status != http.StatusOK {
		t.Fatalf("bob: %d %s", r.status, r.body)
	}
}

func TestConcurrentCallCap(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrentCalls = 1 })
	alice := f.mustMCP(keyAlice)
	done := make(chan intent.Envelope)
	go func() {
		done <- callTool(t, alice, "ask", map[string]any{"action": "reports.build"})
	}()
	<-f.cat.started // alice's one slot is taken

	busy := callTool(t, alice, "find", map[string]any{"intent": "search tickets"})
	if busy.OK || busy.Code != intent.CodeRateLimited {
		t.Fatalf("second MCP call = %+v", busy)
	}
	r := f.post("/v1/find", keyAlice, `{}`)
	if r.status != http.StatusTooManyRequests || r.env.Code != intent.CodeRateLimited || r.header.Get("Retry-After") == "" {
		t.Fatalf("second REST call: %d %s", r.status, r.body)
	}
	if r := f.post("/v1/find", keyBob, `{}`); r.status != http.StatusOK {
		t.Fatalf("bob is held by alice's cap: %d %s", r.status, r.body)
	}
	f.cat.finish()
	if env := <-done; !env.OK {
		t.Fatalf("slow call = %+v", env)
	}
	if env := callTool(t, alice, "find", map[string]any{"intent": "search tickets"}); !env.OK {
		t.Fatalf("slot not released: %+v", env)
	}
}

func TestReadiness(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	get := func(path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	if get(PathHealthz) != http.StatusOK || get(PathReadyz) != http.StatusServiceUnavailable {
		t.Fatal("before sources load: want healthz 200, readyz 503")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/find", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("/v1/find before ready: %d", rec.Code)
	}
	reg, _ := newCatalog(t)
	is, err := intent.New(reg, intent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetIntent(is)
	if get(PathReadyz) != http.StatusOK {
		t.Fatal("readyz after SetIntent")
	}
}

func TestCheckBind(t *testing.T) {
	keys := &Keys{}
	if err := keys.add("ci", keyAlice, "test"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		addr        string
		keys        *Keys
		allowUnauth bool
		ok          bool
	}{
		{"127.0.0.1:8080", nil, false, true},
		{"[::1]:8080", nil, false, true},
		{"localhost:8080", nil, false, true},
		{":8080", nil, false, false},
		{"0.0.0.0:8080", nil, false, false},
		{"10.1.2.3:8080", &Keys{}, false, false},
		{"example.com:8080", nil, false, false},
		{"0.0.0.0:8080", keys, false, true},
		{"0.0.0.0:8080", nil, true, true},
		{"no-port", nil, false, false},
	}
	for _, tc := range cases {
		if err := CheckBind(tc.addr, tc.keys, tc.allowUnauth); (err == nil) != tc.ok {
			t.Errorf("CheckBind(%q, %d keys, %v) = %v", tc.addr, tc.keys.lenOrZero(), tc.allowUnauth, err)
		}
	}
}

func (k *Keys) lenOrZero() int {
	if k == nil {
		return 0
	}
	return k.Len()
}
