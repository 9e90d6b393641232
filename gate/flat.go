package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// MaxWireName is the longest tool name hosts accept.
const MaxWireName = 64

// WireNames maps operation ids to host-legal tool names
// (^[a-zA-Z0-9_-]{1,64}$), for hosts that list every operation as its own
// tool. Dots become underscores; a name longer than 64 characters is cut and
// ends with eight hex digits of a hash of the whole id; a name that is
// already taken gets "_2", "_3", ... in id order. The mapping is
// deterministic: the same ids always give the same names, whatever their
// order in ids.
func WireNames(ids []string) map[string]string { return wireNames(ids, "") }

// wireNames is WireNames with prefix before every name, within the same
// 64-character limit.
func wireNames(ids []string, prefix string) map[string]string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	names := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	for _, id := range sorted {
		limit := MaxWireName - len(prefix)
		base := wireBase(id, limit)
		name := base
		for n := 2; taken[name]; n++ {
			suffix := "_" + strconv.Itoa(n)
			name = base[:min(len(base), limit-len(suffix))] + suffix
		}
		taken[name] = true
		names[id] = prefix + name
	}
	return names
}

func wireBase(id string, limit int) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" {
		name = "op"
	}
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	tail := "_" + hex.EncodeToString(sum[:4])
	return name[:limit-len(tail)] + tail
}

// FlatTool is one operation listed as its own tool: what a
// one-tool-per-operation server would show a host.
type FlatTool struct {
	// Name is the host-legal wire name (see WireNames).
	Name string
	// Op is the operation behind it.
	Op *operations.Operation
}

// Description is the tool description a flat listing carries: the summary,
// then the longer description when there is one.
func (f FlatTool) Description() string {
	if f.Op.Description == "" || f.Op.Description == f.Op.Summary {
		return f.Op.Summary
	}
	if f.Op.Summary == "" {
		return f.Op.Description
	}
	return f.Op.Summary + "\n\n" + f.Op.Description
}

// MCPTool is f as an MCP tool, every annotation set from the operation.
func (f FlatTool) MCPTool() mcp.Tool {
	return mcp.Tool{
		Name:           f.Name,
		Description:    f.Description(),
		RawInputSchema: f.Op.Input,
		Annotations: mcp.ToolAnnotation{
			Title:           f.Op.Summary,
			ReadOnlyHint:    mcp.ToBoolPtr(!f.Op.Kind.IsWrite()),
			DestructiveHint: mcp.ToBoolPtr(f.Op.Kind == operations.KindDestructive),
			IdempotentHint:  mcp.ToBoolPtr(f.Op.Idempotent),
			OpenWorldHint:   mcp.ToBoolPtr(f.Op.OpenWorld),
		},
	}
}

// FlatTools returns every operation visible on srv as its own tool, in id
// order, named by WireNames.
func FlatTools(srv *intent.Server) []FlatTool {
	var ops []*operations.Operation
	var ids []string
	for _, op := range srv.Registry().All() {
		if srv.Visible(op) {
			ops = append(ops, op)
			ids = append(ids, op.ID)
		}
	}
	// Flat names carry the server's tool prefix, as the intent tools do.
	names := wireNames(ids, srv.Options().ToolPrefix)
	out := make([]FlatTool, len(ops))
	for i, op := range ops {
		out[i] = FlatTool{Name: names[op.ID], Op: op}
	}
	slices.SortFunc(out, func(a, b FlatTool) int { return compare(a.Op.ID, b.Op.ID) })
	return out
}

// FlatReport compares the intent listing with a one-tool-per-operation
// listing of the same catalog.
type FlatReport struct {
	// Tools is the number of tools the flat listing has.
	Tools int `json:"tools"`
	// Tokens is the flat tools/list result's size in each encoding.
	Tokens Tokens `json:"tokens"`
	// Enforced is Tokens in the budgets' encoding.
	Enforced int `json:"enforced"`
	// Ratio is Enforced divided by the intent listing's enforced tokens:
	// how many times more a flat listing costs.
	Ratio float64 `json:"ratio"`
}

// FlatListing returns the tools/list result an mcp-go server listing every
// visible operation of srv as its own tool (see FlatTools) would send.
func FlatListing(ctx context.Context, srv *intent.Server) (*Listing, error) {
	tools := FlatTools(srv)
	ms := server.NewMCPServer("flat", "gate", server.WithToolCapabilities(false))
	st := make([]server.ServerTool, len(tools))
	for i, t := range tools {
		st[i] = server.ServerTool{Tool: t.MCPTool(), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("flat listings are for measuring only")
		}}
	}
	ms.AddTools(st...)
	l, err := listMCP(ctx, ms)
	if err != nil {
		return nil, fmt.Errorf("flat listing: %w", err)
	}
	return l, nil
}

// Flat counts FlatListing the way Run counts the intent listing. encoding is
// as in Budgets.Encoding; intentTokens is the intent listing's enforced
// count, for the ratio (0 leaves it out).
func Flat(ctx context.Context, srv *intent.Server, encoding string, intentTokens int) (*FlatReport, error) {
	l, err := FlatListing(ctx, srv)
	if err != nil {
		return nil, err
	}
	tk, err := count(string(l.Raw))
	if err != nil {
		return nil, err
	}
	fr := &FlatReport{Tools: len(l.Tools), Tokens: tk, Enforced: tk.In(encoding)}
	if intentTokens > 0 {
		fr.Ratio = float64(fr.Enforced) / float64(intentTokens)
	}
	return fr, nil
}
