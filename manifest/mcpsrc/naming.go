package mcpsrc

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/intentsrv/intentsrv/operations"
)

// Segment turns a tool or server name into one id segment of [a-z0-9_]:
// camelCase and PascalCase words are split ("getTinyImage" ->
// "get_tiny_image"), every other character becomes a separator, and runs of
// separators collapse. It returns "" for a name with no letter or digit.
func Segment(name string) string {
	var b strings.Builder
	rs := []rune(name)
	sep := false
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && i > 0 && b.Len() > 0 && !sep {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					sep = true
				}
			}
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(unicode.ToLower(r))
		default:
			sep = true
		}
	}
	return b.String()
}

// Named is one tool's id under its server, and the upstream name it stands
// for.
type Named struct {
	ID   string
	Tool string
}

// AssignIDs gives each tool of one server an operation id
// namespace.<segment>. Tools whose names normalise to the same id are each
// qualified with a short hash of their upstream name, so no tool shadows
// another; every such collision is returned as a sentence for the log.
// Ids longer than the grammar allows are cut and kept unique with a hash.
func AssignIDs(namespace string, tools []string) (ids []Named, collisions []string) {
	ids = make([]Named, len(tools))
	groups := map[string][]int{}
	for i, t := range tools {
		seg := Segment(t)
		if seg == "" {
			seg = "tool_" + operations.ShortHash(t)
		}
		ids[i] = Named{ID: operations.FitID(namespace + "." + seg), Tool: t}
		groups[ids[i].ID] = append(groups[ids[i].ID], i)
	}
	keys := make([]string, 0, len(groups))
	for id := range groups {
		keys = append(keys, id)
	}
	sort.Strings(keys)
	for _, id := range keys {
		idx := groups[id]
		if len(idx) < 2 {
			continue
		}
		names := make([]string, len(idx))
		for k, i := range idx {
			names[k] = fmt.Sprintf("%q", tools[i])
			ids[i].ID = operations.FitID(id + "_" + operations.ShortHash(tools[i]))
		}
		collisions = append(collisions, fmt.Sprintf("operation id %q is shared by tools %s; each is qualified with a hash of its name", id, strings.Join(names, ", ")))
	}
	return ids, collisions
}
