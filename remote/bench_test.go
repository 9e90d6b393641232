package remote

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// benchIntent is the find every transport benchmark sends, over the
// embedded help-desk catalog.
const benchIntent = "close a ticket with a reply"

func helpdeskServer(b testing.TB) *intent.Server {
	b.Helper()
	reg := operations.NewRegistry()
	if err := helpdesk.New().Register(reg); err != nil {
		b.Fatal(err)
	}
	is, err := intent.New(reg, intent.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return is
}

// benchMCPFind returns a function that starts and initializes a client
// (made with err), then measures find calls through it.
func benchMCPFind(b *testing.B) func(c *client.Client, err error) {
	return func(c *client.Client, err error) { mcpFind(b, c, err) }
}

func mcpFind(b *testing.B, c *client.Client, err error) {
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "bench", Version: "0"},
	}}); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: intent.ToolFind, Arguments: map[string]any{"intent": benchIntent}}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := c.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatalf("find: %v %v", err, res)
		}
	}
}

// BenchmarkFindTransport measures one find call end to end on each
// transport, side by side: the intent server called directly, mcp-go's
// in-process client, stdio over pipes, streamable HTTP (with sessions and
// stateless) behind this package's guards with a key, and the REST twin.
func BenchmarkFindTransport(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		is := helpdeskServer(b)
		raw := []byte(`{"intent":"` + benchIntent + `"}`)
		b.ReportAllocs()
		for b.Loop() {
			if env := is.Call(context.Background(), intent.ToolFind, raw); !env.OK {
				b.Fatal(env.Error)
			}
		}
	})
	b.Run("mcp-inprocess", func(b *testing.B) {
		benchMCPFind(b)(client.NewInProcessClient(intent.NewMCPServer(helpdeskServer(b), "bench")))
	})
	b.Run("mcp-stdio-pipes", func(b *testing.B) {
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stdio := server.NewStdioServer(intent.NewMCPServer(helpdeskServer(b), "bench"))
		go func() { _ = stdio.Listen(ctx, toServer, fromServer) }()
		benchMCPFind(b)(client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader("")))), nil)
	})
	for _, stateless := range []bool{false, true} {
		name := "mcp-http"
		if stateless {
			name = "mcp-http-stateless"
		}
		b.Run(name, func(b *testing.B) {
			url := benchHTTP(b, stateless)
			benchMCPFind(b)(client.NewStreamableHttpClient(url+PathMCP, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + keyAlice})))
		})
	}
	b.Run("rest", func(b *testing.B) {
		url := benchHTTP(b, true)
		body := `{"intent":"` + benchIntent + `"}`
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, url+"/v1/find", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+keyAlice)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}

// benchHTTP serves the help desk through this package's handler, with a
// key and no rate limit, on a loopback httptest server.
func benchHTTP(b *testing.B, stateless bool) string {
	keys := &Keys{}
	if err := keys.add("alice", keyAlice, "bench"); err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Keys: keys, Stateless: stateless, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	s.SetIntent(helpdeskServer(b))
	hs := httptest.NewServer(s.Handler())
	b.Cleanup(func() { hs.Close(); s.Close() })
	return hs.URL
}
