package mcpsrc

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// BenchmarkCancelToUpstreamTool measures the time from runs.Manager.Cancel
// of a run waiting on an upstream tool to that tool's handler seeing its
// context end, for upstreams served in this process over streamable HTTP
// (the POST is aborted) and SSE (a notifications/cancelled is sent); it
// reports the median and 90th percentile.
func BenchmarkCancelToUpstreamTool(b *testing.B) {
	started := make(chan struct{}, 1)
	ended := make(chan time.Time, 1)
	ms := server.NewMCPServer("waiter", "1", server.WithToolCapabilities(true))
	ms.AddTool(mcp.Tool{Name: "wait", Description: "Wait until cancelled.", InputSchema: mcp.ToolInputSchema{Type: "object"},
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(true)}},
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- time.Now()
			return nil, ctx.Err()
		})
	stream := httptest.NewServer(server.NewStreamableHTTPServer(ms))
	defer stream.Close()
	sse := server.NewSSEServer(ms)
	sseTS := httptest.NewServer(sse)
	defer sseTS.Close()
	server.WithBaseURL(sseTS.URL)(sse)
	servers, err := ParseJSON([]byte(`{"mcpServers": {"stream": {"url": "`+stream.URL+`/mcp"}, "sse": {"type": "sse", "url": "`+sseTS.URL+`/sse"}}}`), "", os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	reg := operations.NewRegistry()
	f := Start(context.Background(), reg, servers, Options{StartTimeout: 10 * time.Second})
	defer f.Close()
	m := runs.NewManager(runs.Options{CancelWait: 10 * time.Second})
	for _, name := range []string{"stream", "sse"} {
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				r := m.Start(context.Background(), "p", name+".wait", func(ctx context.Context) runs.Outcome {
					_, err := reg.Call(ctx, name+".wait", json.RawMessage(`{}`))
					return runs.Outcome{Failed: err != nil}
				})
				<-started
				rec, _, _ := r.Detach()
				t0 := time.Now()
				if _, err := m.Cancel(context.Background(), "p", rec.ID); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, (<-ended).Sub(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "ns-median/cancel")
			b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "ns-p90/cancel")
		})
	}
}
