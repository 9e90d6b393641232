package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/intent"
)

func TestRESTTwin(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.Tools = func(_ context.Context, srv *intent.Server, format string) (any, error) {
			return map[string]any{"format": format, "tools": len(srv.Tools())}, nil
		}
	})
	t.Run("verbs answer the envelope", func(t *testing.T) {
		r := f.post("/v1/ask", keyAlice, `{"action":"tickets.search","params":{"query":"printer"}}`)
		if r.status != http.StatusOK || !r.env.OK || !strings.Contains(string(r.env.Data), "printer on fire") {
			t.Fatalf("%d %s", r.status, r.body)
		}
		// A tool's refusal is still 200: the call reached the tool.
		r = f.post("/v1/ask", keyAlice, `{"action":"tickets.delete","params":{"id":1}}`)
		if r.status != http.StatusOK || r.env.Code != intent.CodeNotReadOnly {
			t.Fatalf("%d %s", r.status, r.body)
		}
		r = f.post("/v1/find", keyAlice, `{"stray":1}`)
		if r.status != http.StatusOK || r.env.Code != intent.CodeInvalidParams || r.env.Remedy == nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("empty body is the empty input", func(t *testing.T) {
		if r := f.post("/v1/describe", keyAlice, ``); r.status != http.StatusOK || !r.env.OK {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, tc := range []struct {
			method, path, ctype string
			want                int
		}{
			{http.MethodPost, "/v1/nope", "application/json", http.StatusNotFound},
			{http.MethodGet, "/v1/find", "", http.StatusMethodNotAllowed},
			{http.MethodPost, "/v1/find", "text/plain", http.StatusUnsupportedMediaType},
			{http.MethodPost, "/v1/tools", "application/json", http.StatusMethodNotAllowed},
		} {
			req, _ := http.NewRequest(tc.method, f.url+tc.path, strings.NewReader(`{}`))
			req.Header.Set("Authorization", "Bearer "+keyAlice)
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			if r := f.do(req); r.status != tc.want || r.env.Code == "" || r.env.Remedy == nil {
				t.Errorf("%s %s (%s): %d %s", tc.method, tc.path, tc.ctype, r.status, r.body)
			}
		}
	})
	t.Run("tools", func(t *testing.T) {
		for format, want := range map[string]int{"": http.StatusOK, "openai": http.StatusOK, "anthropic": http.StatusOK, "yaml": http.StatusBadRequest} {
			req, _ := http.NewRequest(http.MethodGet, f.url+"/v1/tools?format="+format, nil)
			req.Header.Set("Authorization", "Bearer "+keyAlice)
			r := f.do(req)
			if r.status != want {
				t.Fatalf("format %q: %d %s", format, r.status, r.body)
			}
			var doc map[string]any
			if want == http.StatusOK && (json.Unmarshal(r.body, &doc) != nil || doc["tools"] != float64(4) || (format != "" && doc["format"] != format)) {
				t.Fatalf("format %q: %s", format, r.body)
			}
		}
		req, _ := http.NewRequest(http.MethodGet, f.url+"/v1/tools", nil)
		if r := f.do(req); r.status != http.StatusUnauthorized {
			t.Fatalf("tools without a key: %d", r.status)
		}
	})
}

func TestRESTActOnReadOnlyServer(t *testing.T) {
	reg, cat := newCatalog(t)
	is, err := intent.New(reg, intent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetIntent(is)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/act", strings.NewReader(`{"action":"tickets.delete","params":{"id":1}}`))
	req.Header.Set("Content-Type", "application/json")
	s.Handler().ServeHTTP(rec, req)
	var env intent.Envelope
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != http.StatusOK || env.Code != intent.CodeWritesDisabled {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if cat.deleted.Load() != 0 {
		t.Fatal("a read-only server ran a delete")
	}
}
