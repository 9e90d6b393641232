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

// readVerbs are the verbs that name an operation that only reads when an
// RPC-style action's name starts with them ("DescribeInstances",
// "GetObject", "BatchGetItem").
var readVerbs = map[string]bool{
	"describe": true, "get": true, "list": true, "search": true, "query": true,
	"lookup": true, "check": true, "view": true, "read": true, "fetch": true,
	"scan": true, "select": true, "estimate": true, "preview": true,
	"simulate": true, "validate": true, "verify": true, "count": true,
	"retrieve": true, "find": true, "detect": true, "compare": true,
	"download": true,
}

// NamesRead reports whether text, an RPC-style action's name in any case
// style ("DescribeInstances", "batch_get_item"), starts with a verb that
// only reads, after any word that only says how many it acts on.
func NamesRead(text string) bool { return firstVerbIn(text, readVerbs) }

// NamesRemoval reports whether text (an operation's name in any case
// style, "DeleteBucket", "delete_bucket", "deleteBucket", or a summary,
// "Deletes the task file") starts with a verb that names a removal, after
// any word that only says how many it acts on ("batch_delete",
// "BulkRemove"). Sources outside the operator's control use it to raise
// such an operation to KindDestructive whatever its protocol says: an
// RPC-style API removes with POST, and a removal served as a plain write
// would run without the preview a destructive operation gets.
func NamesRemoval(text string) bool { return firstVerbIn(text, removalVerbs) }

// firstVerbIn reports whether the first word of text, split at case
// changes and at anything but letters, is in verbs; words that only say
// how many ("batch", "bulk", "mass") are skipped.
func firstVerbIn(text string, verbs map[string]bool) bool {
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
		return verbs[word]
	}
	return false
}
