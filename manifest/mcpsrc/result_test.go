package mcpsrc

import (
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

func TestConvertResultError(t *testing.T) {
	_, err := ConvertResult("s.t", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(strings.Repeat("x", 3*maxErrorText))}})
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_error" || len(oe.Message) > maxErrorText+20 || oe.Details == nil {
		t.Fatalf("%v", err)
	}
	_, err = ConvertResult("s.t", &mcp.CallToolResult{IsError: true})
	if !errors.As(err, &oe) || !strings.Contains(oe.Message, "without a message") {
		t.Fatalf("%v", err)
	}
	if _, err := ConvertResult("s.t", nil); !errors.As(err, &oe) {
		t.Fatalf("nil result: %v", err)
	}
}

func TestConvertResultStructured(t *testing.T) {
	out, err := ConvertResult("s.t", &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}, Content: []mcp.Content{mcp.NewTextContent(`{"n":1}`)}})
	if err != nil || string(out) != `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}` {
		t.Fatalf("%s %v", out, err)
	}
}
