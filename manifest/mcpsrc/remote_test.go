package mcpsrc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/operations"
)

// headerCheck counts requests that carry the configured header, so the
// test sees headers reach the remote server.
func headerCheck(next http.Handler, seen *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == "k3y" {
			seen.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

func TestFleetRemoteTransports(t *testing.T) {
	var streamSeen, sseSeen atomic.Int32
	stream := httptest.NewServer(headerCheck(server.NewStreamableHTTPServer(testupstream.New()), &streamSeen))
	defer stream.Close()
	sse := server.NewSSEServer(testupstream.New())
	sseTS := httptest.NewServer(headerCheck(sse, &sseSeen))
	defer sseTS.Close()
	server.WithBaseURL(sseTS.URL)(sse)

	doc := `{"mcpServers": {
	  "stream": {"url": "` + stream.URL + `/mcp", "headers": {"X-Api-Key": "${KEY}"}},
	  "legacy": {"type": "sse", "url": "` + sseTS.URL + `/sse", "headers": {"X-Api-Key": "${KEY}"}}}}`
	servers, err := ParseJSON([]byte(doc), "", env(map[string]string{"KEY": "k3y"}))
	if err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	f := Start(context.Background(), reg, servers, Options{StartTimeout: 10 * time.Second})
	defer f.Close()
	for _, name := range []string{"stream", "legacy"} {
		if st := statusOf(f, name); st.State != StateReady {
			t.Fatalf("%s: %+v", name, st)
		}
		out, err := reg.Call(context.Background(), name+".echo", json.RawMessage(`{"message":"over `+name+`"}`))
		if err != nil || !strings.Contains(string(out), "echo: over "+name) {
			t.Fatalf("%s echo: %s, %v", name, out, err)
		}
	}
	// tools/list_changed arrives between calls on both transports.
	for _, name := range []string{"stream", "legacy"} {
		if _, err := reg.Call(context.Background(), name+".grow_later", json.RawMessage(`{"name":"late"}`)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, ok := reg.Get(name + ".late"); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the tool added at run time was not registered", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if streamSeen.Load() == 0 || sseSeen.Load() == 0 {
		t.Fatalf("configured headers did not reach the servers (streamable %d, sse %d)", streamSeen.Load(), sseSeen.Load())
	}
}
