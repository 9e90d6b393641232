package intent

import (
	"context"
	"encoding/json"
	"slices"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServerName is the MCP serverInfo name.
const ServerName = "intentsrv"

// MCPTools returns the listing as mcp-go tools, every annotation set
// explicitly (mcp-go's defaults would mark tools destructive and
// open-world).
func (s *Server) MCPTools() []mcp.Tool {
	defs := s.Tools()
	out := make([]mcp.Tool, len(defs))
	for i, d := range defs {
		out[i] = mcp.Tool{
			Name:           d.Name,
			Description:    d.Description,
			RawInputSchema: d.InputSchema,
			Annotations: mcp.ToolAnnotation{
				Title:           d.Title,
				ReadOnlyHint:    mcp.ToBoolPtr(d.ReadOnly),
				DestructiveHint: mcp.ToBoolPtr(d.Destructive),
				IdempotentHint:  mcp.ToBoolPtr(d.Idempotent),
				OpenWorldHint:   mcp.ToBoolPtr(d.OpenWorld),
			},
		}
	}
	return out
}

// NewMCPServer returns an mcp-go server that lists the intent tools and
// answers tools/call with the envelope as structuredContent plus a compact
// text copy, isError exactly when the envelope is not ok. version is
// reported in serverInfo.
func NewMCPServer(s *Server, version string) *server.MCPServer {
	defs := s.Tools()
	rank := make(map[string]int, len(defs))
	for i, d := range defs {
		rank[d.Name] = i
	}
	// mcp-go sorts tools by name; the contract orders them find, describe,
	// ask, act. Filters run after the sort, so one restores the order.
	order := func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		if len(tools) < 2 {
			return tools // mcp-go checks each call's tool alone: nothing to order
		}
		out := slices.Clone(tools)
		sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Name] < rank[out[j].Name] })
		return out
	}
	ms := server.NewMCPServer(ServerName, version,
		server.WithToolCapabilities(false),
		server.WithToolFilter(order),
		server.WithRecovery(),
		server.WithInstructions(s.instructions()),
	)
	for i, t := range s.MCPTools() {
		verb := defs[i].Verb
		ms.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw := req.Params.RawArguments
			if len(raw) == 0 && req.Params.Arguments != nil {
				raw, _ = json.Marshal(req.Params.Arguments)
			}
			ctx = withMCPProgress(ctx, req.Params.Meta)
			if req.Params.Meta != nil {
				if key, ok := req.Params.Meta.AdditionalFields[MetaIdempotencyKey].(string); ok {
					ctx = context.WithValue(ctx, metaIdempotencyKey{}, key)
				}
			}
			return ToolResult(s.Call(ctx, verb, raw)), nil
		})
	}
	return ms
}

// ToolResult converts an envelope to an MCP tool result.
func ToolResult(env *Envelope) *mcp.CallToolResult {
	text := env.JSON()
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(string(text))},
		StructuredContent: json.RawMessage(text),
		IsError:           !env.OK,
	}
}

// instructions is the initialize result's instructions: how the listed
// tools fit together, with their real (prefixed) names, naming act only
// when it is listed.
func (s *Server) instructions() string {
	p := s.opts.ToolPrefix
	text := "Use " + p + ToolFind + " to locate an operation by intent, " + p + ToolDescribe + " to get its input schema, and " + p + ToolAsk + " to run reads"
	if s.opts.Writes == WritesDeny {
		return text + ". This server is read-only."
	}
	return text + "; " + p + ToolAct + " runs writes, destructive ones after a preview confirmed with its plan_ref."
}
