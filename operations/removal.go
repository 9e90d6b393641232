package operations

import (
	"strings"
	"unicode"
)

// removalVerbs are the verbs that name a removal when an operation's name
// or summary starts with them.
var removalVerbs = map[string]bool{
	"delete": true, "deletes": true, "remove": true, "removes": true,
	"destroy": true, "destroys": true, "purge": true, "purges": true,
	"erase": true, "erases": true, "terminate": true, "terminates": true,
	"wipe": true, "wipes": true,
}

// NamesRemoval reports whether text (an operation's name in any case
// style, "DeleteBucket", "delete_bucket", "deleteBucket", or a summary,
// "Deletes the task file") starts with a verb that names a removal, after
// any word that only says how many it acts on ("batch_delete",
// "BulkRemove"). Sources outside the operator's control use it to raise
// such an operation to KindDestructive whatever its protocol says: an
// RPC-style API removes with POST, and a removal served as a plain write
// would run without the preview a destructive operation gets.
func NamesRemoval(text string) bool {
	rs := []rune(text)
	for i := 0; i < len(rs); {
		for i < len(rs) && !unicode.IsLetter(rs[i]) {
			i++
		}
		start := i
		for i < len(rs) && unicode.IsLetter(rs[i]) && (i == start || !unicode.IsUpper(rs[i]) || unicode.IsUpper(rs[i-1])) {
			i++
		}
		if i == start {
			return false
		}
		word := strings.ToLower(string(rs[start:i]))
		switch word {
		case "batch", "bulk", "mass":
			continue
		}
		return removalVerbs[word]
	}
	return false
}
