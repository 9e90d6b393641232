package intent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPAdapter drives the adapter with mcp-go's in-process client: the
// protocol view of the same contract.
func TestMCPAdapter(t *testing.T) {
	s, _ := newTestServer(t, Options{Writes: WritesAllow})
	c, err := client.NewInProcessClient(NewMCPServer(s, "v1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "test", Version: "0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo.Name != ServerName || init.ServerInfo.Version != "v1.2.3" {
		t.Fatalf("serverInfo = %+v", init.ServerInfo)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 4 || list.Tools[0].Name != "find" || list.Tools[3].Name != "act" {
		t.Fatalf("tools = %+v", list.Tools)
	}
	if h := list.Tools[3].Annotations.DestructiveHint; h == nil || !*h {
		t.Fatal("act must carry destructiveHint true")
	}

	callTool := func(name string, args map[string]any) (*mcp.CallToolResult, Envelope) {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var env Envelope
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("structuredContent is not an envelope: %s", b)
		}
		text := res.Content[0].(mcp.TextContent).Text
		var fromText Envelope
		if err := json.Unmarshal([]byte(text), &fromText); err != nil || fromText.OK != env.OK {
			t.Fatalf("text copy differs from structured content: %s", text)
		}
		return res, env
	}
	res, env := callTool("ask", map[string]any{"action": "notes.get", "params": map[string]any{"id": 1}})
	if res.IsError || !env.OK {
		t.Fatalf("ask failed: %+v", env)
	}
	res, env = callTool("ask", map[string]any{"action": "notes.get", "params": map[string]any{"id": "x"}})
	if !res.IsError || env.Code != CodeInvalidParams {
		t.Fatalf("isError must be true exactly when ok is false: %+v", env)
	}
	res, env = callTool("ask", map[string]any{"action": "faults.panic"})
	if !res.IsError || env.Code != CodeInternalError {
		t.Fatalf("panic: %+v", env)
	}
	if res, _ = callTool("find", map[string]any{"intent": "notes"}); res.IsError {
		t.Fatal("server stopped serving after a handler panic")
	}
}
