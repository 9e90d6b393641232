package mcpsrc

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
)

// Caller runs one upstream tool: the operation id (for messages), the tool's
// upstream name and the validated arguments.
type Caller func(ctx context.Context, op, tool string, args json.RawMessage) (json.RawMessage, error)

// Built is an operation made from an upstream tool, with the kind its
// annotations and name imply (see ToolKind; an overlay may have changed the
// operation's since).
type Built struct {
	Op       operations.Operation
	Tool     string
	Declared operations.Kind
}

// Operations turns one server's tools into operations named
// <namespace>.<tool>, with call running them. Descriptions and titles are
// sanitised and capped as OpenAPI text is; the input schema is kept (an
// object schema; a tool with none gets an empty object schema); the kind
// comes from the annotations and the name (see ToolKind). Collisions
// between normalised names are returned for the log.
func Operations(srv Server, tools []mcp.Tool, call Caller) (built []Built, collisions []string) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	ids, collisions := AssignIDs(srv.ID(), names)
	built = make([]Built, 0, len(tools))
	for i, t := range tools {
		id, tool := ids[i].ID, t.Name
		desc := sanitize.Description(t.Description)
		summary := sanitize.Summary(firstSentence(desc))
		kind := ToolKind(t.Annotations, tool, summary)
		if summary == "" {
			title := t.Title
			if title == "" {
				title = t.Annotations.Title
			}
			summary = sanitize.Summary(title)
		}
		if summary == "" {
			summary = sanitize.Summary(strings.ReplaceAll(Segment(tool), "_", " "))
		}
		op := operations.Operation{
			ID:          id,
			Namespace:   srv.ID(),
			Summary:     summary,
			Description: desc,
			Tags:        nonEmpty(sanitize.Tag(srv.Name)),
			Input:       inputSchema(t),
			Output:      outputSchema(t),
			Kind:        kind,
			Idempotent:  t.Annotations.IdempotentHint != nil && *t.Annotations.IdempotentHint,
			// The specification's default for an absent openWorldHint is true.
			OpenWorld: t.Annotations.OpenWorldHint == nil || *t.Annotations.OpenWorldHint,
			Source:    "mcp:" + srv.Name,
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return call(ctx, id, tool, args)
			},
			Preview: func(_ context.Context, args json.RawMessage) (any, error) {
				return map[string]any{"upstream": srv.Name, "tool": tool, "arguments": json.RawMessage(orEmptyObject(args))}, nil
			},
		}
		built = append(built, Built{Op: op, Tool: tool, Declared: kind})
	}
	return built, collisions
}

// inputSchema is the tool's input schema as JSON, always an object schema.
func inputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	s := t.InputSchema
	if s.Type == "" {
		s.Type = "object"
	}
	b, err := json.Marshal(s)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// outputSchema is the tool's output schema when it declares one.
func outputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawOutputSchema) > 0 {
		return t.RawOutputSchema
	}
	if t.OutputSchema.Type == "" && len(t.OutputSchema.Properties) == 0 {
		return nil
	}
	b, err := json.Marshal(t.OutputSchema)
	if err != nil {
		return nil
	}
	return b
}

func orEmptyObject(args json.RawMessage) json.RawMessage {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// firstSentence is the text up to the first line break or ". ".
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
