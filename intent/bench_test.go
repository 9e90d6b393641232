package intent

import (
	"context"
	"fmt"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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
