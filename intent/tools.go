package intent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ToolDef is one listed intent tool, independent of any MCP library.
type ToolDef struct {
	// Name is the tool's wire name, prefix included.
	Name string `json:"name"`
	// Verb is the bare verb: find, describe, ask or act.
	Verb string `json:"-"`
	// Title is a short human label.
	Title string `json:"title"`
	// Description is one to three stable lines.
	Description string `json:"description"`
	// InputSchema is the condensed input schema.
	InputSchema json.RawMessage `json:"inputSchema"`
	// ReadOnly, Destructive, Idempotent and OpenWorld are the MCP hints; all
	// are set explicitly.
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidToolName reports whether name is legal for MCP hosts.
func ValidToolName(name string) bool { return toolNamePattern.MatchString(name) }

func checkToolPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if !ValidToolName(prefix + "describe") {
		return fmt.Errorf("tool prefix %q makes illegal tool names: use letters, digits, '_' and '-', at most 56 characters", prefix)
	}
	return nil
}

// The descriptions are part of the contract: short, stable, no counts, so
// hosts' prompt caches hold and the listing stays a few hundred tokens.
const (
	findDescription = "Search the operations this server can run. Give intent in plain words; " +
		"get ranked operation ids with kind, required params and the tool that runs each. No intent: catalog overview."
	describeDescription = "Get an operation's input schema before calling it: action = operation id. " +
		"No action: namespaces; params.namespace: that namespace's operations; intent: best matches with schemas."
	askDescription = "Run a read-only operation: action = operation id, params = its arguments. " +
		"With only intent, runs the best match when certain, else returns candidates."
	actDescription = "Run an operation that changes state: action = operation id, params = its arguments. " +
		"Destructive calls return a preview and plan_ref; repeat the call with plan_ref to execute."
)

// inputSchema is the condensed input. Only params' description differs by
// tool: for find and describe it holds filters, not operation arguments.
func inputSchema(params string, withPlan bool) json.RawMessage {
	props := `"action":{"type":"string","description":"operation id, e.g. from find"},` +
		`"params":{"type":"object","description":"` + params + `"},` +
		`"intent":{"type":"string","description":"what you want, in plain words"}`
	if withPlan {
		props += `,"plan_ref":{"type":"string","description":"from a preview, to execute it"}` +
			`,"idempotency_key":{"type":"string"}`
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"additionalProperties":false}`)
}

// Tools returns the enabled intent tools in contract order: find, describe,
// ask, and act unless writes are denied. The result depends only on the
// options, never on the catalog (unless CatalogHint is set).
func (s *Server) Tools() []ToolDef {
	p := s.opts.ToolPrefix
	find := findDescription
	if s.opts.CatalogHint {
		find += "\n" + s.catalogHint()
	}
	tools := []ToolDef{
		{Name: p + ToolFind, Verb: ToolFind, Title: "Find operations", Description: find, InputSchema: inputSchema("filters: namespace, kind, limit", false), ReadOnly: true, Idempotent: true},
		{Name: p + ToolDescribe, Verb: ToolDescribe, Title: "Describe an operation", Description: describeDescription, InputSchema: inputSchema("filters: namespace, limit, cursor", false), ReadOnly: true, Idempotent: true},
		{Name: p + ToolAsk, Verb: ToolAsk, Title: "Run a read operation", Description: askDescription, InputSchema: inputSchema("the operation's arguments", false), ReadOnly: true, OpenWorld: true},
	}
	if s.opts.Writes != WritesDeny {
		tools = append(tools, ToolDef{Name: p + ToolAct, Verb: ToolAct, Title: "Run a write operation", Description: actDescription, InputSchema: inputSchema("the operation's arguments", true), Destructive: true, OpenWorld: true})
	}
	return tools
}

func (s *Server) catalogHint() string {
	ns := s.index().namespaces
	total := 0
	names := make([]string, 0, len(ns))
	for _, n := range ns {
		total += n.Count
		if len(names) < 12 {
			names = append(names, n.Name)
		}
	}
	more := ""
	if len(ns) > len(names) {
		more = ", ..."
	}
	return fmt.Sprintf("Catalog: %d operations in %s%s.", total, strings.Join(names, ", "), more)
}
