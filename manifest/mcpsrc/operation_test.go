package mcpsrc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
)

func TestOperationsFromTools(t *testing.T) {
	yes := true
	hostile := "Reads a file.\u200b <b>Bold</b>\x07 " + strings.Repeat("very long text ", 2000)
	tools := []mcp.Tool{
		{Name: "readFile", Description: hostile, Annotations: mcp.ToolAnnotation{ReadOnlyHint: &yes, OpenWorldHint: new(bool)},
			InputSchema: mcp.ToolInputSchema{Type: "object", Properties: map[string]any{"path": map[string]any{"type": "string"}}, Required: []string{"path"}}},
		{Name: "ping", Annotations: mcp.ToolAnnotation{Title: "Ping the service"}},
		{Name: "bare"},
		{Name: "weather", Description: "Weather.", OutputSchema: mcp.ToolOutputSchema{Type: "object", Properties: map[string]any{"t": map[string]any{"type": "number"}}}},
	}
	var called string
	built, coll := Operations(Server{Name: "Files"}, tools, func(_ context.Context, op, tool string, args json.RawMessage) (json.RawMessage, error) {
		called = op + " " + tool + " " + string(args)
		return nil, nil
	})
	if len(coll) != 0 || len(built) != 4 {
		t.Fatalf("built %d, collisions %v", len(built), coll)
	}
	rf := built[0].Op
	if rf.ID != "files.read_file" || rf.Namespace != "files" || rf.Source != "mcp:Files" || rf.Kind != operations.KindRead || rf.OpenWorld {
		t.Fatalf("read_file: %+v", rf)
	}
	if rf.Summary != "Reads a file." {
		t.Errorf("summary %q", rf.Summary)
	}
	if strings.ContainsAny(rf.Description, "\u200b\x07<>") || len(rf.Description) > sanitize.DescriptionMax+8 {
		t.Errorf("description not sanitised or capped (%d bytes): %.80q", len(rf.Description), rf.Description)
	}
	if !strings.Contains(string(rf.Input), `"required":["path"]`) {
		t.Errorf("input %s", rf.Input)
	}
	if p := built[1].Op; p.Summary != "Ping the service" || p.Kind != operations.KindDestructive || !p.OpenWorld {
		t.Errorf("ping: %+v", p)
	}
	if b := built[2].Op; b.Summary != "bare" || !strings.Contains(string(b.Input), `"type":"object"`) {
		t.Errorf("bare: summary %q input %s", b.Summary, b.Input)
	}
	if w := built[3].Op; !strings.Contains(string(w.Output), `"t"`) {
		t.Errorf("weather output %s", w.Output)
	}
	if _, err := rf.Handler(context.Background(), json.RawMessage(`{"path":"/x"}`)); err != nil || called != `files.read_file readFile {"path":"/x"}` {
		t.Errorf("handler called %q, %v", called, err)
	}
	pv, _ := rf.Preview(context.Background(), nil)
	if b, _ := json.Marshal(pv); string(b) != `{"arguments":{},"tool":"readFile","upstream":"Files"}` {
		t.Errorf("preview %s", b)
	}
	reg := operations.NewRegistry()
	for _, b := range built {
		if err := reg.Register(b.Op); err != nil {
			t.Errorf("register %s: %v", b.Op.ID, err)
		}
	}
}
