package remote

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
)

// Transports named in the audit log.
const (
	transportMCP  = "mcp"
	transportREST = "rest"
)

// toolGuard is the MCP tool middleware: it holds each call to the
// principal's concurrency cap and audits every call of the act tool
// (named actTool, prefix included).
func (s *Server) toolGuard(actTool string) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			principal, _ := principalFrom(ctx)
			isAct := req.Params.Name == actTool
			release, ok := s.limits.acquire(principal)
			if !ok {
				env := s.busy(principal)
				if isAct {
					s.auditAct(principal, transportMCP, toolArguments(req), env)
				}
				return intent.ToolResult(env), nil
			}
			defer release()
			res, err := next(ctx, req)
			if isAct {
				s.auditAct(principal, transportMCP, toolArguments(req), resultEnvelope(res, err))
			}
			return res, err
		}
	}
}

// toolArguments returns a tool call's raw arguments.
func toolArguments(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	raw, _ := json.Marshal(req.Params.Arguments)
	return raw
}

// resultEnvelope recovers the envelope an intent tool returned as
// structured content; a failed call or a result without one is an
// internal error.
func resultEnvelope(res *mcp.CallToolResult, err error) *intent.Envelope {
	if env, ok := intent.ResultEnvelope(res); err == nil && ok {
		return env
	}
	return &intent.Envelope{Code: intent.CodeInternalError}
}

// busy is the answer to a call over the principal's concurrency cap.
func (s *Server) busy(principal string) *intent.Envelope {
	return &intent.Envelope{
		Code:    intent.CodeRateLimited,
		Error:   "too many calls in flight for " + principal,
		Details: map[string]any{"retry_after_seconds": 1, "limit": "concurrent_calls", "max": s.cfg.MaxConcurrentCalls},
		Remedy:  &intent.Remedy{Tool: intent.ToolDescribe, Fix: "wait for a call in flight to finish, then send this one again"},
	}
}

// auditAct writes the audit record of one act call. A record that cannot
// be written is logged as an error: the call has already happened.
func (s *Server) auditAct(principal, transport string, raw []byte, env *intent.Envelope) {
	if err := s.audit.write(actRecord(principal, transport, raw, env, s.now())); err != nil {
		s.log.Error("audit record lost", "err", err, "principal", principal)
	}
}

// refusedAct audits an act call refused before it reached the tool (by
// authentication or the rate limit), when r is one.
func (s *Server) refusedAct(r *http.Request, body []byte, principal string, env *intent.Envelope) {
	if s.audit == nil {
		return
	}
	if r.URL.Path == PathREST+intent.ToolAct {
		s.auditAct(principal, transportREST, body, env)
		return
	}
	b := s.backend.Load()
	if r.URL.Path != PathMCP || b == nil {
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.Method == string(mcp.MethodToolsCall) &&
		msg.Params.Name == b.intent.Options().ToolPrefix+intent.ToolAct {
		s.auditAct(principal, transportMCP, msg.Params.Arguments, env)
	}
}
