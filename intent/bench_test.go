package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/mcpstdio"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkAsk measures one ask call end to end in-process: input decoding,
// lookup, schema validation, the handler, the result budget and the
// envelope encoding an MCP host would receive.
func BenchmarkAsk(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	raw := []byte(`{"action":"notes.get","params":{"id":3}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		env := s.Call(ctx, ToolAsk, raw)
		if !env.OK {
			b.Fatal(string(env.JSON()))
		}
		_ = env.JSON()
	}
}

// BenchmarkAskIntent is ask with only an intent: the router picks the
// operation.
func BenchmarkAskIntent(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	raw := []byte(`{"intent":"notes.list","params":{"limit":5}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if env := s.Call(ctx, ToolAsk, raw); !env.OK {
			b.Fatal(string(env.JSON()))
		}
	}
}

// BenchmarkAskMCP is the same ask through mcp-go's in-process client and
// server: the protocol layer's share of a call.
func BenchmarkAskMCP(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	c, err := client.NewInProcessClient(NewMCPServer(s, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		b.Fatal(err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = ToolAsk
	req.Params.Arguments = map[string]any{"action": "notes.get", "params": map[string]any{"id": 3}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}

// BenchmarkBudget cuts large answers of three shapes (an array of objects;
// a list four objects deep; one huge string, which is refused) to the
// default 8,000-token budget, with the budget before issue #10 item 5
// (impl=old, budget_old_test.go) and now (impl=new), side by side:
//
//	go test ./intent -run '^$' -bench 'Budget$' -count 5 | benchstat -col /impl -
func BenchmarkBudget(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	op := &operations.Operation{ID: "big.list"}
	ctx := context.Background()
	for _, shape := range resultShapes {
		// 0.02 MB (21 KB) fits the budget: the common case, counted once.
		for _, mb := range []float64{0.02, 1, 2, 4, 7.5, 8} {
			raw := shape.gen(int(mb * (1 << 20)))
			for _, impl := range []string{"old", "new"} {
				b.Run(fmt.Sprintf("shape=%s/size=%gMB/impl=%s", shape.name, mb, impl), func(b *testing.B) {
					b.SetBytes(int64(len(raw)))
					b.ReportAllocs()
					for b.Loop() {
						var env *Envelope
						if impl == "old" {
							_, _, env = s.oldBudget(op, raw)
						} else {
							_, _, env = s.budget(ctx, op, raw)
						}
						if env != nil && env.Code != CodeResultTooLarge {
							b.Fatal(string(env.JSON()))
						}
					}
				})
			}
		}
	}
}

// BenchmarkOverhead measures the intent layer's cost (issue 10, item 11)
// through mcp-go's in-process client and server, with no transport: one
// reading of a note three ways, interleaved call by call so that all three
// see the same machine load, in an order that rotates every round so that
// each follows each of the others equally often (in a fixed order what a
// call leaves behind always lands on the same next one: the intent ratio
// moved by up to 0.1 with the order alone):
//
//   - plain: what a project without intentsrv writes, a plain mcp-go tool
//     doing the same work (plainNotesServer);
//   - id: ask {action: notes.get, params};
//   - intent: ask {intent, params}, the router picking the operation.
//
// It reports each path's median (µs per call) and the ratios id/plain and
// intent/plain, which issue 10 bounds at 1.3 and 1.5. With no transport
// the ratios are the strictest reading: every microsecond of the layer
// counts against a call that costs the least it can.
func BenchmarkOverhead(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	ctx := context.Background()
	plain := benchClient(b, ctx, plainNotesServer(b, s))
	ours := benchClient(b, ctx, NewMCPServer(s, "bench"))
	runOverhead(b, ctx, overheadCalls(plain, ours, nil))
}

// BenchmarkOverheadStdio is BenchmarkOverhead the way a host calls a
// server: mcp-go's stdio client over a pipe. plain is the plain tool served
// by mcp-go's own stdio server; id and intent are ask served by intentsrv's
// stdio transport as serve wires it (find and describe on their own lane).
// plain-ours is the plain tool on intentsrv's transport, so that
// id/plain-ours and intent/plain-ours isolate the intent layer from any
// difference between the two transports.
func BenchmarkOverheadStdio(b *testing.B) {
	s, _ := newTestServer(b, Options{})
	ctx := context.Background()
	plainServer := plainNotesServer(b, s)
	plain := pipeClient(b, ctx, func(ctx context.Context, in io.Reader, out io.Writer) {
		_ = server.NewStdioServer(plainServer).Listen(ctx, in, out)
	})
	plainOurs := pipeClient(b, ctx, func(ctx context.Context, in io.Reader, out io.Writer) {
		_ = mcpstdio.New(plainServer, mcpstdio.Options{}).Serve(ctx, in, out)
	})
	ms := NewMCPServer(s, "bench")
	quick := func(tool string) bool { return tool == ToolFind || tool == ToolDescribe }
	ours := pipeClient(b, ctx, func(ctx context.Context, in io.Reader, out io.Writer) {
		_ = mcpstdio.New(ms, mcpstdio.Options{Quick: quick}).Serve(ctx, in, out)
	})
	med := runOverhead(b, ctx, overheadCalls(plain, ours, plainOurs))
	b.ReportMetric(med[1]/med[3], "id/plain-ours")
	b.ReportMetric(med[2]/med[3], "intent/plain-ours")
}

// plainNotesServer is an mcp-go server with one plain tool doing what
// ask's notes.get does: notes.get's input schema as the tool's schema,
// arguments checked against it by mcp-go (WithInputSchemaValidation, the
// same validator library), the same handler, its JSON returned as text and
// structured content.
func plainNotesServer(b *testing.B, s *Server) *server.MCPServer {
	op, ok := s.Registry().Get("notes.get")
	if !ok {
		b.Fatal("notes.get is not registered")
	}
	plain := server.NewMCPServer("plain", "bench", server.WithToolCapabilities(false), server.WithRecovery(), server.WithInputSchemaValidation())
	plain.AddTool(mcp.Tool{Name: "notes_get", Description: op.Summary, RawInputSchema: op.Input},
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.Params.RawArguments
			if len(args) == 0 {
				args, _ = json.Marshal(req.Params.Arguments)
			}
			out, err := op.Handler(ctx, args)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(out))}, StructuredContent: out}, nil
		})
	return plain
}

// overheadCall is one kind of call runOverhead times.
type overheadCall struct {
	name   string
	client *client.Client
	tool   string
	args   map[string]any
}

// overheadCalls are plain, id and intent, and plain-ours when it is not nil.
func overheadCalls(plain, ours, plainOurs *client.Client) []overheadCall {
	calls := []overheadCall{
		{"plain", plain, "notes_get", map[string]any{"id": 3}},
		{"id", ours, ToolAsk, map[string]any{"action": "notes.get", "params": map[string]any{"id": 3}}},
		{"intent", ours, ToolAsk, map[string]any{"intent": "get note 3 by id", "params": map[string]any{"id": 3}}},
	}
	if plainOurs != nil {
		calls = append(calls, overheadCall{"plain-ours", plainOurs, "notes_get", map[string]any{"id": 3}})
	}
	return calls
}

// runOverhead times calls interleaved in a rotating order, reports each
// median (µs) and id/plain, intent/plain, and returns the medians.
func runOverhead(b *testing.B, ctx context.Context, calls []overheadCall) []float64 {
	times := make([][]time.Duration, len(calls))
	b.ReportAllocs()
	for round := 0; b.Loop(); round++ {
		for k := range calls {
			i := (round + k) % len(calls)
			c := calls[i]
			var req mcp.CallToolRequest
			req.Params.Name = c.tool
			req.Params.Arguments = c.args
			start := time.Now()
			res, err := c.client.CallTool(ctx, req)
			times[i] = append(times[i], time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %+v", c.name, err, res)
			}
		}
	}
	med := make([]float64, len(calls))
	for i, c := range calls {
		slices.Sort(times[i])
		med[i] = float64(times[i][len(times[i])/2].Nanoseconds()) / 1e3
		b.ReportMetric(med[i], c.name+"-µs")
	}
	b.ReportMetric(med[1]/med[0], "id/plain")
	b.ReportMetric(med[2]/med[0], "intent/plain")
	return med
}

// pipeClient is an initialized mcp-go stdio client of the server serve
// runs on the other ends of two pipes until the benchmark ends.
func pipeClient(b *testing.B, ctx context.Context, serve func(ctx context.Context, in io.Reader, out io.Writer)) *client.Client {
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	sctx, cancel := context.WithCancel(ctx)
	go serve(sctx, serverIn, serverOut)
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	b.Cleanup(func() {
		cancel()
		c.Close()
		serverOut.Close()
	})
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		b.Fatal(err)
	}
	return c
}

// benchClient is an initialized in-process mcp-go client of ms.
func benchClient(b *testing.B, ctx context.Context, ms *server.MCPServer) *client.Client {
	c, err := client.NewInProcessClient(ms)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		b.Fatal(err)
	}
	return c
}
