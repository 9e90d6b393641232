package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
)

// Export formats.
const (
	formatOpenAI    = "openai"
	formatAnthropic = "anthropic"
	formatMCP       = "mcp"
)

// hostTool is one tool in a format-neutral shape, before it is written in a
// host's format.
type hostTool struct {
	name, description string
	schema            json.RawMessage
}

// openAITool is one entry of an OpenAI Chat Completions "tools" array.
type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// anthropicTool is one entry of an Anthropic Messages "tools" array.
type anthropicTool struct {
	Type         string          `json:"type,omitempty"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// anthropicToolSearch is the server tool that finds deferred tools by BM25.
var anthropicToolSearch = anthropicTool{Type: "tool_search_tool_bm25_20251119", Name: "tool_search_tool_bm25"}

func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close() // ends upstream MCP servers, if any were started
	fs := newFlagSet("export", "export --format openai|anthropic|mcp [--flat] [flags]", stderr)
	f.register(fs)
	var format, out string
	var flat, deferLoading bool
	fs.StringVar(&format, "format", formatMCP, "host format: openai (function calling), anthropic (tool_use) or mcp (tools/list result)")
	fs.BoolVar(&flat, "flat", false, "write every operation as its own tool (host-legal names) instead of the four intent tools")
	fs.BoolVar(&deferLoading, "defer", false, "with --format anthropic --flat: mark every tool defer_loading and add Anthropic's tool search tool")
	fs.StringVar(&out, "o", "", "write to this file instead of stdout")
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "intentsrv export: "+format+"\n", a...)
		return exitUsage
	}
	if len(rest) > 0 {
		return fail("unexpected arguments %q", rest)
	}
	if format != formatOpenAI && format != formatAnthropic && format != formatMCP {
		return fail("--format %q is not openai, anthropic or mcp", format)
	}
	if deferLoading && (format != formatAnthropic || !flat) {
		return fail("--defer applies to --format anthropic --flat only")
	}
	srv, _, err := f.build(ctx, f.logger(stderr))
	if err != nil {
		return fail("%v", err)
	}
	doc, err := exportDoc(ctx, srv, format, flat, deferLoading)
	if err != nil {
		return fail("%v", err)
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fail("encode: %v", err)
	}
	raw = append(raw, '\n')
	if out != "" {
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	if _, err := stdout.Write(raw); err != nil {
		return fail("%v", err)
	}
	return exitOK
}

// exportDoc returns the JSON document export writes: the MCP tools/list
// result, or the "tools" array of an OpenAI or Anthropic request.
func exportDoc(ctx context.Context, srv *intent.Server, format string, flat, deferLoading bool) (any, error) {
	if format == formatMCP {
		var l *gate.Listing
		var err error
		if flat {
			l, err = gate.FlatListing(ctx, srv)
		} else {
			l, err = gate.ListTools(ctx, srv)
		}
		if err != nil {
			return nil, err
		}
		return l.Raw, nil
	}
	var tools []hostTool
	if flat {
		for _, t := range gate.FlatTools(srv) {
			tools = append(tools, hostTool{t.Name, t.Description(), t.Op.Input})
		}
	} else {
		for _, t := range srv.Tools() {
			tools = append(tools, hostTool{t.Name, t.Description, t.InputSchema})
		}
	}
	switch format {
	case formatOpenAI:
		out := make([]openAITool, len(tools))
		for i, t := range tools {
			out[i] = openAITool{Type: "function", Function: openAIFunction{Name: t.name, Description: clipAtSentence(t.description, openAIMaxDescription), Parameters: t.schema}}
		}
		return out, nil
	default:
		out := make([]anthropicTool, 0, len(tools)+1)
		if deferLoading {
			out = append(out, anthropicToolSearch)
		}
		for _, t := range tools {
			out = append(out, anthropicTool{Name: t.name, Description: t.description, InputSchema: t.schema, DeferLoading: deferLoading})
		}
		return out, nil
	}
}

// openAIMaxDescription is the longest function description the OpenAI API
// accepts; a longer one fails the whole request.
const openAIMaxDescription = 1024

// clipAtSentence shortens s to at most n bytes, at the last sentence end
// that fits, else the last space, marking the cut with "…".
func clipAtSentence(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := s[:n-len(mark)]
	if i := strings.LastIndex(cut, ". "); i > n/2 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	return cut + mark
}
