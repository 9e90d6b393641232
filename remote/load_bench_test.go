package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// The operation every load benchmark runs: a Go read over the help desk.
const (
	loadOp   = "helpdesk.tickets.get"
	loadArgs = `{"ticket_id":42}`
)

// runClients spreads b.N calls over n concurrent callers (each made by
// newCaller) and reports calls/s and the median and 99th percentile
// latency.
func runClients(b *testing.B, n int, newCaller func() func() error) {
	callers := make([]func() error, n)
	for i := range callers {
		callers[i] = newCaller()
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for _, call := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t := time.Now()
				if err := call(); err != nil {
					failed.Add(1)
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d calls failed", f, b.N)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// dialMCP connects an initialized streamable HTTP client with headers;
// the test's cleanup closes it.
func dialMCP(tb testing.TB, url string, headers map[string]string) *client.Client {
	tb.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "load", Version: "0"},
	}}); err != nil {
		tb.Fatal(err)
	}
	return c
}

// mcpCaller connects an initialized streamable HTTP client and returns a
// caller of tool with args.
func mcpCaller(b *testing.B, url string, headers map[string]string, tool string, args map[string]any) func() error {
	c := dialMCP(b, url, headers)
	req := toolRequest(tool, args)
	return func() error {
		res, err := c.CallTool(context.Background(), req)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error")
		}
		return err
	}
}

// plainMCP serves the load operation as an ordinary mcp-go tool, with no
// intent layer and no guards: the baseline.
func plainMCP(b *testing.B) string {
	reg := operations.NewRegistry()
	if err := helpdesk.New().Register(reg); err != nil {
		b.Fatal(err)
	}
	ms := server.NewMCPServer("plain", "0", server.WithToolCapabilities(false))
	ms.AddTool(mcp.NewTool("helpdesk_tickets_get", mcp.WithNumber("ticket_id", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, _ := json.Marshal(req.Params.Arguments)
			out, err := reg.Call(ctx, loadOp, raw)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(string(out)), nil
		})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(ms))
	b.Cleanup(hs.Close)
	return hs.URL
}

// BenchmarkAskLoad runs ask of one Go operation from 1, 16 and 64
// concurrent clients, side by side: a plain mcp-go streamable HTTP server
// exposing the operation as an ordinary tool, intentsrv's MCP over HTTP
// (this package's guards, a key per request), and the REST twin.
func BenchmarkAskLoad(b *testing.B) {
	auth := map[string]string{"Authorization": "Bearer " + keyAlice}
	var args map[string]any
	_ = json.Unmarshal([]byte(loadArgs), &args)
	for _, n := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("plain-mcp/clients=%d", n), func(b *testing.B) {
			url := plainMCP(b) + "/mcp"
			runClients(b, n, func() func() error { return mcpCaller(b, url, nil, "helpdesk_tickets_get", args) })
		})
		b.Run(fmt.Sprintf("intent-mcp/clients=%d", n), func(b *testing.B) {
			url := benchHTTP(b, false) + PathMCP
			askArgs := map[string]any{"action": loadOp, "params": args}
			runClients(b, n, func() func() error { return mcpCaller(b, url, auth, intent.ToolAsk, askArgs) })
		})
		b.Run(fmt.Sprintf("intent-rest/clients=%d", n), func(b *testing.B) {
			url := benchHTTP(b, true) + "/v1/ask"
			body := `{"action":"` + loadOp + `","params":` + loadArgs + `}`
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			runClients(b, n, func() func() error {
				return func() error {
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+keyAlice)
					resp, err := hc.Do(req)
					if err != nil {
						return err
					}
					defer resp.Body.Close()
					var env intent.Envelope
					if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || !env.OK {
						return fmt.Errorf("ask: %d %v %s", resp.StatusCode, err, env.Code)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					return nil
				}
			})
		})
	}
}
