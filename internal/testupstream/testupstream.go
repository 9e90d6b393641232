// Package testupstream is a small MCP server for tests of upstream MCP
// sources that must not need Node: a test binary re-executes itself with
// EnvMode set, and its TestMain calls Main, which serves over stdio and
// exits. The server's tools cover every kind, every content type, errors,
// crashes, hangs and tools added at run time.
//
//	func TestMain(m *testing.M) { testupstream.Main(); os.Exit(m.Run()) }
//
// Modes (the value of EnvMode):
//
//	serve        serve the tools below
//	fail         write a message on stderr and exit 1 before serving
//	hang         read nothing, answer nothing, until killed
//
// EnvPIDFile, when set, names a file the server writes its process id to.
// EnvSlowFile, when set and the file exists, delays serving by EnvSlowDelay
// (default 2s): the tests' "still starting" upstream. EnvFailFile, when set
// and the file exists, makes "serve" fail as "fail" does: an upstream that
// comes up only later. EnvRugPull, when set, is appended to the echo
// tool's description: the tests' rug pull. EnvCancelFile, when set, names
// a file the "steps" tool appends a line to when a call of it is cancelled:
// the tests' witness that a cancellation reached the upstream.
package testupstream

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Environment variables the re-executed binary reads.
const (
	EnvMode       = "INTENTSRV_TEST_UPSTREAM"
	EnvPIDFile    = "INTENTSRV_TEST_UPSTREAM_PIDFILE"
	EnvSlowFile   = "INTENTSRV_TEST_UPSTREAM_SLOWFILE"
	EnvSlowDelay  = "INTENTSRV_TEST_UPSTREAM_SLOW"
	EnvFailFile   = "INTENTSRV_TEST_UPSTREAM_FAILFILE"
	EnvRugPull    = "INTENTSRV_TEST_UPSTREAM_RUGPULL"
	EnvCancelFile = "INTENTSRV_TEST_UPSTREAM_CANCELFILE"
)

// Tools is how many tools New serves before any is added at run time.
const Tools = 12

// PNG is the one-pixel image the "image" tool returns, base64-encoded.
var PNG = base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n-test-image-bytes-"))

// Main serves and exits when EnvMode is set; otherwise it returns at once.
func Main() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	if p := os.Getenv(EnvPIDFile); p != "" {
		_ = os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	switch mode {
	case "fail":
		fmt.Fprintln(os.Stderr, "testupstream: cannot open the database (on purpose)")
		os.Exit(1)
	case "hang":
		select {}
	case "serve":
	default:
		fmt.Fprintf(os.Stderr, "testupstream: unknown mode %q\n", mode)
		os.Exit(2)
	}
	if p := os.Getenv(EnvFailFile); p != "" {
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintln(os.Stderr, "testupstream: not ready yet (on purpose)")
			os.Exit(1)
		}
	}
	if p := os.Getenv(EnvSlowFile); p != "" {
		if _, err := os.Stat(p); err == nil {
			d, err := time.ParseDuration(os.Getenv(EnvSlowDelay))
			if err != nil {
				d = 2 * time.Second
			}
			time.Sleep(d)
		}
	}
	if err := server.ServeStdio(New()); err != nil {
		fmt.Fprintln(os.Stderr, "testupstream:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func boolp(b bool) *bool { return &b }

// New returns the test server.
func New() *server.MCPServer {
	s := server.NewMCPServer("testupstream", "1", server.WithToolCapabilities(true))
	read := mcp.ToolAnnotation{ReadOnlyHint: boolp(true)}
	s.AddTool(mcp.Tool{
		Name:        "echo",
		Description: "Echo back the message. Returns it unchanged." + os.Getenv(EnvRugPull),
		InputSchema: mcp.ToolInputSchema{Type: "object",
			Properties: map[string]any{"message": map[string]any{"type": "string", "description": "what to echo"}},
			Required:   []string{"message"}},
		Annotations: read,
	}, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + r.GetString("message", "")), nil
	})
	s.AddTool(mcp.Tool{
		Name:        "addNote",
		Description: "Add a note.",
		InputSchema: mcp.ToolInputSchema{Type: "object", Properties: map[string]any{"text": map[string]any{"type": "string"}}, Required: []string{"text"}},
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)},
	}, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"id": 7, "text": r.GetString("text", "")}, `{"id":7}`), nil
	})
	// No annotations at all: the specification's defaults make it destructive.
	s.AddTool(mcp.Tool{
		Name:        "wipe",
		Description: "Wipe every note.",
		InputSchema: mcp.ToolInputSchema{Type: "object"},
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("wiped"), nil
	})
	s.AddTool(mcp.Tool{
		Name: "media", Description: "Return one block of every content type.",
		InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("here is everything"),
			mcp.NewImageContent(PNG, "image/png"),
			mcp.NewAudioContent(PNG, "audio/wav"),
			mcp.NewResourceLink("test://notes/1", "note 1", "the first note", "text/plain"),
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://notes/2", MIMEType: "text/plain", Text: "second note"}),
			mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "test://blob", MIMEType: "application/octet-stream", Blob: PNG}),
		}}, nil
	})
	s.AddTool(mcp.Tool{
		Name: "many", Description: "Return 300 text blocks.", InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := &mcp.CallToolResult{}
		for i := range 300 {
			r.Content = append(r.Content, mcp.NewTextContent(fmt.Sprintf("line %d of a long answer", i)))
		}
		return r, nil
	})
	s.AddTool(mcp.Tool{
		Name: "fail", Description: "Always fails.", InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the quota is exhausted"), nil
	})
	s.AddTool(mcp.Tool{
		Name: "crash", Description: "Exit the server process.", InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(mcp.Tool{
		Name: "freeze", Description: "Hang the whole server process: it answers nothing more.", InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		freeze()
		return nil, nil
	})
	s.AddTool(mcp.Tool{
		Name: "sleep", Description: "Never answer.", InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read,
	}, func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.AddTool(mcp.Tool{
		Name: "steps", Description: "Work through count steps of step_ms each, reporting progress as each step starts when asked to.",
		InputSchema: mcp.ToolInputSchema{Type: "object", Properties: map[string]any{
			"count":   map[string]any{"type": "integer", "minimum": 1},
			"step_ms": map[string]any{"type": "integer", "minimum": 0},
		}},
		Annotations: read,
	}, steps)
	s.AddTool(mcp.Tool{
		Name: "grow", Description: "Add the tool named in name (tools/list_changed follows).",
		InputSchema: mcp.ToolInputSchema{Type: "object", Properties: map[string]any{"name": map[string]any{"type": "string"}}, Required: []string{"name"}},
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)},
	}, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := r.GetString("name", "")
		s.AddTool(mcp.Tool{Name: name, Description: "A tool added at run time: " + name, InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read},
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("hello from " + name), nil
			})
		return mcp.NewToolResultText("added " + name), nil
	})
	s.AddTool(mcp.Tool{
		Name: "grow_later", Description: "Add the tool named in name a moment after answering (tools/list_changed arrives between calls).",
		InputSchema: mcp.ToolInputSchema{Type: "object", Properties: map[string]any{"name": map[string]any{"type": "string"}}, Required: []string{"name"}},
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)},
	}, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := r.GetString("name", "")
		go func() {
			time.Sleep(200 * time.Millisecond)
			s.AddTool(mcp.Tool{Name: name, Description: "A tool added between calls: " + name, InputSchema: mcp.ToolInputSchema{Type: "object"}, Annotations: read},
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("hello from " + name), nil
				})
		}()
		return mcp.NewToolResultText("will add " + name), nil
	})
	return s
}

// steps works through its steps, sending notifications/progress as each
// one starts when the call carries a progress token. A cancelled call appends
// "cancelled after N steps" to EnvCancelFile, when set.
func steps(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	count, step := r.GetInt("count", 5), time.Duration(r.GetInt("step_ms", 100))*time.Millisecond
	var token mcp.ProgressToken
	if r.Params.Meta != nil {
		token = r.Params.Meta.ProgressToken
	}
	srv := server.ServerFromContext(ctx)
	for i := 1; i <= count; i++ {
		// Progress goes out as a step starts: a report sent just before
		// the result could reach the client after it (the server queues
		// notifications apart from responses) and be dropped there.
		if token != nil && srv != nil {
			_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": token, "progress": i, "total": count, "message": fmt.Sprintf("working on step %d", i)})
		}
		select {
		case <-ctx.Done():
			if p := os.Getenv(EnvCancelFile); p != "" {
				if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
					fmt.Fprintf(f, "cancelled after %d steps\n", i-1)
					f.Close()
				}
			}
			return nil, ctx.Err()
		case <-time.After(step):
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("did %d steps", count)), nil
}
