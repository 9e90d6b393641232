package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
)

// Listing is a server's tools/list result exactly as it crosses the wire.
type Listing struct {
	// Raw is the JSON of the tools/list result object ({"tools": [...]}).
	Raw json.RawMessage
	// Tools are the raw JSON entries of Raw's tools array, in order.
	Tools []ListedTool
}

// ListedTool is one entry of a tools/list result.
type ListedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Raw         json.RawMessage `json:"-"`
}

// ListTools returns the tools/list result of an intent server, as an MCP
// client receives it from `intentsrv serve`: intent.NewMCPServer with MCP
// Tasks on, so ask and act carry their execution fields.
func ListTools(ctx context.Context, srv *intent.Server) (*Listing, error) {
	return listMCP(ctx, intent.NewMCPServer(srv, "gate", intent.WithMCPTasks()))
}

// listMCP runs the initialize handshake and tools/list against ms over
// mcp-go's in-process transport and keeps the result's bytes as the server
// produced them.
func listMCP(ctx context.Context, ms *server.MCPServer) (*Listing, error) {
	tr := transport.NewInProcessTransport(ms)
	if err := tr.Start(ctx); err != nil {
		return nil, fmt.Errorf("start in-process transport: %w", err)
	}
	defer tr.Close()
	initParams := map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "intentsrv-gate", "version": "1"},
	}
	if _, err := rpc(ctx, tr, 1, string(mcp.MethodInitialize), initParams); err != nil {
		return nil, err
	}
	if err := tr.SendNotification(ctx, mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/initialized"},
	}); err != nil {
		return nil, fmt.Errorf("send initialized: %w", err)
	}
	raw, err := rpc(ctx, tr, 2, string(mcp.MethodToolsList), nil)
	if err != nil {
		return nil, err
	}
	var body struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("decode tools/list result: %w", err)
	}
	if body.NextCursor != "" {
		// A paginated listing would be measured short; the intent servers
		// never page, so this is a bug worth stopping on.
		return nil, errors.New("tools/list result is paginated; the gate measures whole listings only")
	}
	l := &Listing{Raw: raw, Tools: make([]ListedTool, len(body.Tools))}
	for i, t := range body.Tools {
		if err := json.Unmarshal(t, &l.Tools[i]); err != nil {
			return nil, fmt.Errorf("decode tool %d of tools/list: %w", i, err)
		}
		l.Tools[i].Raw = t
	}
	return l, nil
}

func rpc(ctx context.Context, tr *transport.InProcessTransport, id int64, method string, params any) (json.RawMessage, error) {
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(id),
		Method:  method,
		Params:  params,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: server error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, nil
}
