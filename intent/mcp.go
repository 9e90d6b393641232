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

// MCPOption configures NewMCPServer.
type MCPOption func(*mcpConfig)

type mcpConfig struct{ tasks bool }

// WithMCPTasks makes NewMCPServer advertise MCP Tasks (protocol
// 2025-11-25): the tasks capability (list, cancel, task-augmented
// tools/call) and execution.taskSupport "optional" on ask and act. The
// server must then be served behind a TaskRPC, which answers every task
// request before mcp-go sees it; mcp-go's own task handling (an in-memory
// map, handlers cancelled once the task is created) is never reached.
func WithMCPTasks() MCPOption { return func(c *mcpConfig) { c.tasks = true } }

// NewMCPServer returns an mcp-go server that lists the intent tools and
// answers tools/call with the envelope as structuredContent plus a compact
// text copy, isError exactly when the envelope is not ok. version is
// reported in serverInfo.
func NewMCPServer(s *Server, version string, opts ...MCPOption) *server.MCPServer {
	var cfg mcpConfig
	for _, o := range opts {
		o(&cfg)
	}
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
	sopts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithToolFilter(order),
		server.WithRecovery(),
		server.WithInstructions(s.instructions()),
	}
	if cfg.tasks {
		sopts = append(sopts, server.WithTaskCapabilities(true, true, true))
	}
	ms := server.NewMCPServer(ServerName, version, sopts...)
	for i, t := range s.MCPTools() {
		verb := defs[i].Verb
		if cfg.tasks && taskVerb(verb) {
			t.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		}
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
			env := s.Call(ctx, verb, raw)
			if task := taskCallOf(ctx); task != nil {
				task.env = env
			}
			return ToolResult(env), nil
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
