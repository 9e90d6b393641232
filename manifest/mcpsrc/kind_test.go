package mcpsrc

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

func TestKindFromAnnotations(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name string
		a    mcp.ToolAnnotation
		want operations.Kind
	}{
		{"none: the specification's defaults", mcp.ToolAnnotation{}, operations.KindDestructive},
		{"read-only", mcp.ToolAnnotation{ReadOnlyHint: &yes}, operations.KindRead},
		{"read-only, not destructive", mcp.ToolAnnotation{ReadOnlyHint: &yes, DestructiveHint: &no}, operations.KindRead},
		{"read-only and destructive: the riskier", mcp.ToolAnnotation{ReadOnlyHint: &yes, DestructiveHint: &yes}, operations.KindDestructive},
		{"not read-only, destructive absent", mcp.ToolAnnotation{ReadOnlyHint: &no}, operations.KindDestructive},
		{"not destructive", mcp.ToolAnnotation{DestructiveHint: &no}, operations.KindWrite},
		{"destructive", mcp.ToolAnnotation{ReadOnlyHint: &no, DestructiveHint: &yes}, operations.KindDestructive},
	} {
		if got := Kind(c.a); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if !Lowered(operations.KindDestructive, operations.KindRead) || Lowered(operations.KindRead, operations.KindWrite) {
		t.Error("Lowered must report a served kind below the declared one, and only that")
	}
}

// A tool named for a removal is destructive whatever its annotations
// claim; other tools keep what their annotations declare.
func TestToolKindRaisesRemovals(t *testing.T) {
	yes, no := true, false
	readOnly, notDestructive := mcp.ToolAnnotation{ReadOnlyHint: &yes}, mcp.ToolAnnotation{DestructiveHint: &no}
	for _, c := range []struct {
		a             mcp.ToolAnnotation
		name, summary string
		want          operations.Kind
	}{
		{notDestructive, "delete_entities", "Delete multiple entities", operations.KindDestructive},
		{readOnly, "removeFile", "", operations.KindDestructive},
		{notDestructive, "fs_op", "Removes a file or a directory", operations.KindDestructive},
		{readOnly, "read_file", "Read a file", operations.KindRead},
		{readOnly, "list_deleted_items", "Deleted items, newest first", operations.KindRead},
		{notDestructive, "write_file", "Write a file", operations.KindWrite},
	} {
		if got := ToolKind(c.a, c.name, c.summary); got != c.want {
			t.Errorf("ToolKind(%s, %q): %s, want %s", c.name, c.summary, got, c.want)
		}
	}
}
