package mcpsrc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

// maxErrorText caps the upstream's own words carried in an upstream_error
// message; the full content stays in the error's details.
const maxErrorText = 2000

// Result is an upstream tool's answer as an operation's JSON result. Every
// content block keeps its MCP shape and fields: text stays text, images and
// audio keep their base64 data and MIME type in their own block (never
// folded into a text), resource links keep their URI, and embedded
// resources keep their text or blob. structuredContent is carried as the
// upstream sent it. The intent layer's result budget then applies to the
// whole, cutting the content list at block boundaries.
type Result struct {
	Content    []json.RawMessage `json:"content"`
	Structured json.RawMessage   `json:"structuredContent,omitempty"`
}

// ConvertResult maps an upstream CallToolResult to the operation's result,
// or, when the upstream set isError, to an *operations.Error with code
// upstream_error whose message is the upstream's own text.
func ConvertResult(op string, r *mcp.CallToolResult) (json.RawMessage, error) {
	if r == nil {
		return nil, &operations.Error{Code: "upstream_error", Message: op + ": the upstream returned no result",
			Fix: "retry; if it persists, check the upstream server's log"}
	}
	out := Result{Content: make([]json.RawMessage, 0, len(r.Content))}
	for _, c := range r.Content {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, &operations.Error{Code: "upstream_error", Message: fmt.Sprintf("%s: a content block does not encode: %v", op, err)}
		}
		out.Content = append(out.Content, b)
	}
	switch {
	case len(r.RawStructuredContent) > 0 && string(r.RawStructuredContent) != "null":
		out.Structured = r.RawStructuredContent
	case r.StructuredContent != nil:
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			out.Structured = b
		}
	}
	if r.IsError {
		msg := strings.TrimSpace(Text(r.Content))
		if msg == "" {
			msg = "the upstream tool reported an error without a message"
		}
		if len(msg) > maxErrorText {
			msg = msg[:maxErrorText] + "…"
		}
		return nil, &operations.Error{Code: "upstream_error", Message: op + ": " + msg, Details: out,
			Fix: "read the upstream's message; fix the params (see describe) or the upstream's state, then retry"}
	}
	return json.Marshal(out)
}

// Text joins the text blocks of content, one per line.
func Text(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
