package mcpsrc

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

// Kind is the kind an upstream tool's annotations declare, as the MCP
// specification defaults them: readOnlyHint true is a read; otherwise
// destructiveHint true, or absent (the specification's default), is
// destructive; destructiveHint false is a write.
//
// The annotations come from the upstream, which the operator does not
// control. A tool with no annotations at all is therefore destructive:
// nothing short of the operator's overlay makes it a read or a write, and
// an overlay that does so is reported by doctor (see Lowered).
func Kind(a mcp.ToolAnnotation) operations.Kind {
	if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
		// A tool that says both read-only and destructive gets the riskier
		// word: an outside source may raise a kind, never lower it.
		if a.DestructiveHint != nil && *a.DestructiveHint {
			return operations.KindDestructive
		}
		return operations.KindRead
	}
	if a.DestructiveHint != nil && !*a.DestructiveHint {
		return operations.KindWrite
	}
	return operations.KindDestructive
}

// ToolKind is the kind a tool is served as unless the operator's overlay
// says otherwise: what its annotations declare (Kind), raised to
// destructive when its name or the first sentence of its description
// names a removal ("delete_entities", "Removes a file"; see
// operations.NamesRemoval). Annotations are hints from a server the
// operator does not control, and a removal served as a write would run
// without a preview.
func ToolKind(a mcp.ToolAnnotation, name, summary string) operations.Kind {
	if operations.NamesRemoval(name) || operations.NamesRemoval(summary) {
		return operations.KindDestructive
	}
	return Kind(a)
}

// Lowered reports whether serving an operation as served is lower than the
// kind its upstream tool's annotations and name imply (ToolKind): a change
// only the operator's overlay can make, which doctor lists.
func Lowered(declared, served operations.Kind) bool {
	_, lowered := operations.Declared(declared, served)
	return lowered
}
