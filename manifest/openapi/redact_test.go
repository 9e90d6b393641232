package openapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// An upstream that echoes a secret back, in any encoding it can take on
// the wire, must not hand it to the agent: not in a result, not in an
// error, not in a preview.
func TestSecretsAreRedactedInEveryEncoding(t *testing.T) {
	const key = "ab+cd/ef==gh<i>"
	const user, pass = "svc-user", "p@ss/w+rd=="
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	jsonKey, _ := json.Marshal(key)
	echoes := []string{
		key,
		url.QueryEscape(key),
		strings.ToLower(url.QueryEscape(key)),
		url.PathEscape(key),
		string(jsonKey[1 : len(jsonKey)-1]),
		strings.ReplaceAll(string(jsonKey[1:len(jsonKey)-1]), "/", `\/`),
		basic,
		url.QueryEscape(pass),
	}
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		// The query as received, and every encoding, as text.
		w.Write([]byte(`{"query": ` + strconvQuote(r.URL.RawQuery) + `, "auth": ` + strconvQuote(r.Header.Get("Authorization")) + `, "echo": ` + strconvQuote(strings.Join(echoes, " | ")) + `}`))
	}))
	defer srv.Close()
	spec := `openapi: 3.0.3
info: {title: echo, version: "1"}
servers: [{url: "` + srv.URL + `"}]
security: [{key: [], basic: []}]
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
    basic: {type: http, scheme: basic}
paths:
  /echo:
    get:
      operationId: echo
      responses: {"200": {description: ok}}
    delete:
      operationId: wipe
      responses: {"200": {description: ok}}
`
	cat, err := Parse("echo", []byte(spec), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	creds := LoadCredentials(DefaultAuthEnv("echo"), func(k string) string {
		return map[string]string{"ECHO_API_KEY": key, "ECHO_USERNAME": user, "ECHO_PASSWORD": pass}[k]
	})
	reg := operations.NewRegistry()
	for _, op := range cat.Operations(BindOptions{Credentials: creds}) {
		if err := reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	leaks := func(where, s string) {
		t.Helper()
		for _, e := range echoes {
			if strings.Contains(s, e) {
				t.Errorf("%s leaks %q:\n%s", where, e, s)
			}
		}
	}
	var getID, delID string
	for _, op := range reg.All() {
		if op.HTTP.Method == "GET" {
			getID = op.ID
		} else {
			delID = op.ID
		}
	}
	out, err := reg.Call(context.Background(), getID, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), redacted) {
		t.Fatalf("the echo should come back redacted: %s", out)
	}
	leaks("a 200 result", string(out))

	status = http.StatusInternalServerError
	_, err = reg.Call(context.Background(), getID, json.RawMessage(`{}`))
	if err == nil {
		t.Fatal("want an upstream error")
	}
	leaks("an upstream error", err.Error())

	op, _ := reg.Get(delID)
	if op.Preview == nil {
		t.Fatal("a DELETE should have a preview")
	}
	p, err := op.Preview(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p)
	leaks("a preview", string(raw))
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOverlappingSecretsLeaveNoPart: two secrets that overlap where an
// upstream echoes them are redacted as one stretch; replacing one first
// would have left the other's outer part in the text.
func TestOverlappingSecretsLeaveNoPart(t *testing.T) {
	x := &executor{secrets: []string{"1234wxyz", "abcd1234", "zz99"}}
	for in, want := range map[string]string{
		"id=abcd1234wxyz;":      "id=" + redacted + ";",
		"abcd1234 and 1234wxyz": redacted + " and " + redacted,
		"1234wxyzz99 abcd1234":  redacted + " " + redacted,
		"nothing secret here":   "nothing secret here",
		"abcd1234abcd1234":      redacted + redacted,
		"head 1234wxyzz99 tail": "head " + redacted + " tail",
	} {
		if got := x.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
