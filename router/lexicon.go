package router

import (
	"maps"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// verbClass is what a verb asks an operation to do.
type verbClass uint8

const (
	verbNone verbClass = iota
	verbRead
	verbList
	verbCreate
	verbUpdate
	verbDelete
	verbSearch
	verbRun
)

// kind is the operation kind a verb class implies: reads, lists and
// searches read; creates, updates and runs (send, trigger, execute) change
// state; deletes destroy.
func (c verbClass) kind() operations.Kind {
	switch c {
	case verbRead, verbList, verbSearch:
		return operations.KindRead
	case verbCreate, verbUpdate, verbRun:
		return operations.KindWrite
	case verbDelete:
		return operations.KindDestructive
	}
	return ""
}

// reads reports whether the class reads: a read, a list or a search.
func (c verbClass) reads() bool { return c.kind() == operations.KindRead }

// verbLexicon maps a user's verb (lower-case surface form) to its class.
// Operation verbs (the first word of an operation's name, e.g. "list" in
// tickets.list) are classified with the same table.
var verbLexicon = map[string]verbClass{
	// read
	"get": verbRead, "show": verbRead, "see": verbRead, "fetch": verbRead,
	"what": verbRead, "whats": verbRead, "retrieve": verbRead, "view": verbRead,
	"read": verbRead, "display": verbRead, "describe": verbRead,
	"lookup": verbRead, "check": verbRead, "inspect": verbRead, "who": verbRead,
	"obtain": verbRead, "load": verbRead, "download": verbRead,
	// list
	"list": verbList, "all": verbList, "which": verbList, "enumerate": verbList,
	"browse": verbList, "index": verbList,
	// search
	"search": verbSearch, "find": verbSearch, "query": verbSearch,
	"filter": verbSearch, "lookfor": verbSearch,
	// create
	"create": verbCreate, "add": verbCreate, "open": verbCreate, "new": verbCreate,
	"make": verbCreate, "post": verbCreate, "insert": verbCreate,
	"register": verbCreate, "submit": verbCreate, "file": verbCreate,
	"start": verbCreate, "generate": verbCreate, "upload": verbCreate,
	"write": verbCreate, "raise": verbCreate, "comment": verbCreate,
	"reply": verbCreate, "react": verbCreate, "publish": verbCreate,
	"invite": verbCreate, "fork": verbCreate, "star": verbCreate,
	"follow": verbCreate, "subscribe": verbCreate, "associate": verbCreate,
	// update
	"change": verbUpdate, "edit": verbUpdate, "rename": verbUpdate,
	"bump": verbUpdate, "update": verbUpdate, "modify": verbUpdate,
	"set": verbUpdate, "patch": verbUpdate, "put": verbUpdate,
	"assign": verbUpdate, "reassign": verbUpdate, "move": verbUpdate,
	"close": verbUpdate, "reopen": verbUpdate, "resolve": verbUpdate,
	"mark": verbUpdate, "tag": verbUpdate, "label": verbUpdate,
	"merge": verbUpdate, "replace": verbUpdate, "archive": verbUpdate,
	"lock": verbUpdate, "unlock": verbUpdate, "pin": verbUpdate,
	"unpin": verbUpdate, "enable": verbUpdate, "disable": verbUpdate,
	"unarchive": verbUpdate, "restore": verbUpdate,
	// delete
	"delete": verbDelete, "remove": verbDelete, "kill": verbDelete,
	"drop": verbDelete, "destroy": verbDelete, "erase": verbDelete,
	"purge": verbDelete, "wipe": verbDelete, "nuke": verbDelete,
	"trash": verbDelete, "discard": verbDelete, "unregister": verbDelete,
	"cancel": verbDelete, "revoke": verbDelete, "unstar": verbDelete,
	"unfollow": verbDelete, "unsubscribe": verbDelete, "detach": verbDelete,
	"disconnect": verbDelete, "uninstall": verbDelete, "unlink": verbDelete,
	"dissociate": verbDelete,
	// run
	"run": verbRun, "execute": verbRun, "trigger": verbRun, "invoke": verbRun,
	"send": verbRun, "call": verbRun, "dispatch": verbRun, "rerun": verbRun,
	"deploy": verbRun, "restart": verbRun, "retry": verbRun,
}

// neutralVerbs are verbs of the write classes that do not say whether the
// operation changes state: "run", "execute" and "invoke" ask for a call,
// "generate" for something computed (a report, a URL, a preview), and the
// operation says whether anything is stored ("invoke function
// getUsageCounts" reads when that function is a GET). "trigger", "send",
// "deploy" and the rest say a change; "call" is more often a noun in a
// request ("record this phone call"), and "request" asks for a change more
// often than not ("request a ride").
var neutralVerbs = map[string]bool{"run": true, "execute": true, "invoke": true, "generate": true}

// phrasalVerb is a verb whose meaning comes with a particle ("pull up",
// "hand over"); the particle may follow the object ("hand ticket 43 over").
type phrasalVerb struct {
	class verbClass
	op    string // the operation verb it means, searched like an expansion
}

// phrasalVerbs maps "verb particle" to its meaning. General English, not
// one catalog's words.
var phrasalVerbs = map[string]phrasalVerb{
	"pull up": {verbRead, "get"}, "look up": {verbRead, "get"},
	"bring up": {verbRead, "get"}, "check out": {verbRead, "get"},
	"dig up": {verbSearch, "search"}, "look for": {verbSearch, "search"},
	"search for": {verbSearch, "search"}, "hunt for": {verbSearch, "search"},
	"set up": {verbCreate, "create"}, "sign up": {verbCreate, "register"},
	"put in": {verbCreate, "add"}, "write up": {verbCreate, "create"},
	"hand over": {verbUpdate, "assign"}, "pass on": {verbUpdate, "assign"},
	"close out": {verbUpdate, "close"}, "wrap up": {verbUpdate, "close"},
	"fill in": {verbUpdate, "update"}, "switch on": {verbUpdate, "enable"},
	"turn on": {verbUpdate, "enable"}, "turn off": {verbUpdate, "disable"},
	"switch off": {verbUpdate, "disable"}, "shut down": {verbUpdate, "stop"},
	"take off": {verbDelete, "remove"}, "get rid": {verbDelete, "delete"},
	"kick out": {verbDelete, "remove"}, "throw out": {verbDelete, "remove"},
	"throw away": {verbDelete, "delete"}, "clean up": {verbDelete, "delete"},
	"kick off": {verbRun, "start"}, "fire off": {verbRun, "send"},
}

// maxParticleGap is how many words may separate a phrasal verb from its
// particle ("take Kenji off": one).
const maxParticleGap = 3

// verbExpansions are the operation verbs a user verb class is searched as.
// A query "kill the stale branch" also searches delete and remove. Reads
// are not expanded: most operations read, so "get" says almost nothing
// (the dev sets measure it as noise); the class still boosts (verbBoost).
var verbExpansions = map[verbClass][]string{
	verbList:   {"list"},
	verbSearch: {"search", "find", "query"},
	verbCreate: {"create", "add", "new"},
	verbUpdate: {"update", "edit", "change", "set"},
	verbDelete: {"delete", "remove"},
	verbRun:    {"run", "trigger", "execute"},
}

// classMethods are the HTTP methods that do what a verb class asks, as
// REST uses them: GET reads, POST creates (or runs), PUT and PATCH
// update, DELETE deletes. A request's verb meets an operation of its
// class's method (methodKey) as it meets the class's verbs: the method is
// the one word every HTTP operation has about what it does.
var classMethods = map[verbClass][]string{
	verbRead:   {"GET"},
	verbList:   {"GET"},
	verbSearch: {"GET"},
	verbCreate: {"POST"},
	verbUpdate: {"PUT", "PATCH"},
	verbDelete: {"DELETE"},
	verbRun:    {"POST"},
}

// defaultSynonyms are domain synonyms, symmetric. Keys and values may be
// phrases ("pull request"). Options.Synonyms extends them per catalog.
var defaultSynonyms = map[string][]string{
	"issue":         {"ticket"},
	"pr":            {"pull request", "pull"},
	"prs":           {"pull requests", "pulls"},
	"repo":          {"repository"},
	"org":           {"organization", "organisation"},
	"ci":            {"workflow run", "pipeline", "build"},
	"user":          {"account", "member", "person", "people"},
	"assignee":      {"assigned", "owner"},
	"comment":       {"note", "reply"},
	"branch":        {"ref"},
	"commit":        {"revision", "sha"},
	"delete":        {"remove"},
	"email":         {"mail", "e-mail"},
	"msg":           {"message"},
	"doc":           {"document"},
	"config":        {"configuration", "settings", "setting"},
	"auth":          {"authentication", "login"},
	"stats":         {"statistics", "metrics"},
	"info":          {"information", "details"},
	"img":           {"image", "picture", "photo"},
	"pic":           {"picture", "photo", "image"},
	"vm":            {"virtual machine", "instance"},
	"db":            {"database"},
	"env":           {"environment"},
	"k8s":           {"kubernetes"},
	"cert":          {"certificate"},
	"dir":           {"directory", "folder"},
	"mkdir":         {"create directory", "make directory"},
	"pkg":           {"package"},
	"dept":          {"department"},
	"addr":          {"address"},
	"qty":           {"quantity"},
	"txn":           {"transaction"},
	"invoice":       {"bill"},
	"customer":      {"client"},
	"employee":      {"staff"},
	"weather":       {"forecast"},
	"movie":         {"film"},
	"song":          {"track", "music"},
	"cost":          {"price"},
	"nearby":        {"near", "close"},
	"lyrics":        {"lyric"},
	"stock":         {"share", "equity", "ticker"},
	"crypto":        {"cryptocurrency", "coin"},
	"location":      {"place", "geolocation"},
	"translate":     {"translation"},
	"recipe":        {"meal", "dish"},
	"job":           {"position", "vacancy"},
	"news":          {"article", "headline"},
	"team":          {"squad"},
	"game":          {"match"},
	"hotel":         {"accommodation", "lodging"},
	"flight":        {"airline"},
	"car":           {"vehicle"},
	"car rental":    {"vehicle rental"},
	"zip":           {"postal code", "postcode"},
	"phone":         {"telephone", "mobile"},
	"id":            {"identifier"},
	"tweet":         {"twitter post"},
	"ip":            {"ip address"},
	"url":           {"link"},
	"username":      {"handle"},
	"exchange rate": {"currency conversion"},
	"currency":      {"money"},
	"multiple":      {"several", "many at once"},
	"size":          {"biggest", "largest", "smallest"},
}

// synonymTable is the compiled, symmetric synonym graph: a phrase of
// surface words joined by spaces → the phrases it may be searched as.
type synonymTable struct {
	entries map[string][]string
	maxLen  int // longest key, in words
	// starts holds the first words of the keys of two words or more, so
	// that a query word that starts none is not joined with the next.
	starts map[string]bool
}

// buildSynonyms merges extra over the built-ins and makes every entry
// symmetric.
func buildSynonyms(extra map[string][]string) synonymTable {
	t := synonymTable{entries: map[string][]string{}, starts: map[string]bool{}}
	add := func(a, b string) {
		a, b = normPhrase(a), normPhrase(b)
		if a == "" || b == "" || a == b {
			return
		}
		for _, x := range t.entries[a] {
			if x == b {
				return
			}
		}
		t.entries[a] = append(t.entries[a], b)
		if n := strings.Count(a, " ") + 1; n > 1 {
			t.maxLen = max(t.maxLen, n)
			t.starts[a[:strings.IndexByte(a, ' ')]] = true
		}
	}
	for _, m := range []map[string][]string{defaultSynonyms, extra} {
		// In key order: a word's synonyms keep the order they were added
		// in, and the first stands for the rest in places.
		for _, k := range slices.Sorted(maps.Keys(m)) {
			for _, v := range m[k] {
				add(k, v)
				add(v, k)
			}
		}
	}
	return t
}

// lookup returns the synonyms of phrase, or of phrase with its last word
// folded to the singular ("repositories" → repository → repo).
func (t synonymTable) lookup(phrase string) ([]string, bool) {
	if alts, ok := t.entries[phrase]; ok {
		return alts, true
	}
	i := strings.LastIndexByte(phrase, ' ') + 1
	if s := plural(phrase[i:]); s != phrase[i:] {
		alts, ok := t.entries[phrase[:i]+s]
		return alts, ok
	}
	return nil, false
}

// normPhrase lower-cases p and splits it into words joined by one space.
func normPhrase(p string) string {
	var b strings.Builder
	splitWords(p, func(w string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	})
	return b.String()
}

// verbClassifier classifies operations by their verbs. reversals turns on
// reversedVerb for words the lexicon does not know (ablation "reversals").
type verbClassifier struct {
	reversals      bool
	calls          bool // a path's call name says its verb (callName)
	subCollections bool // POST to a plural segment after an item creates
	formats        bool // a path's format suffix is not its noun (resourcePath)
	fittedNames    bool // a name cut to fit the id's length may be made from the path (pathNamed)
}

// of classifies an operation by the first verb word of its name (the
// last id segment), falling back to its summary's first word and its kind.
func (v verbClassifier) of(op *operations.Operation) verbClass {
	name := opName(op.ID)
	if pathNamed(op, name, v.fittedNames) {
		return v.http(op.HTTP)
	}
	var c verbClass
	n := 0
	splitWords(name, func(w string) {
		if c == verbNone && n < 2 {
			c = v.word(w)
		}
		n++
	})
	if c == verbNone && op.Summary != "" {
		n = 0
		splitWords(op.Summary, func(w string) {
			if c == verbNone && n < 1 {
				c = v.word(w)
			}
			n++
		})
	}
	if c == verbNone {
		switch op.Kind {
		case operations.KindDestructive:
			c = verbDelete
		}
	}
	return c
}

// opName is the last segment of an operation id, its name ("list" of
// helpdesk.tickets.list).
func opName(id string) string { return id[strings.LastIndexByte(id, '.')+1:] }

// pathNamed reports whether name was made from op's HTTP method and path
// ("post_quotes_quote_cancel" for POST /v1/quotes/{quote}/cancel), as
// generators do for specs without operation ids: its first word is the
// method and every other word is a word of the path. Such a name says
// nothing of the action that the method and path do not say better. A
// name cut to fit the id's length (operations.FitID: the cut, then "_"
// and a hash) was made so too when what is left of it was, its last
// word perhaps cut short ("put_subscriptions_…_microsof_a5f3d7be"):
// read by its first word, it would be a "put" that names its change
// (ablation "fitted-names").
func pathNamed(op *operations.Operation, name string, fitted bool) bool {
	h := op.HTTP
	if h == nil || h.Path == "" || len(name) < len(h.Method) || !strings.EqualFold(name[:len(h.Method)], h.Method) {
		return false
	}
	cut := false
	if fitted {
		if id, ok := operations.CutByFit(op.ID); ok {
			name, cut = opName(id), true
		}
	}
	var pathWords []string
	splitWords(h.Path, func(w string) { pathWords = append(pathWords, w) })
	// Every word after the method is a word of the path, but for the last
	// of a cut name, which may be one cut short.
	n, ok, short := 0, true, -1
	splitWords(name, func(w string) {
		switch {
		case n == 0:
			ok = strings.EqualFold(w, h.Method)
		case !ok || slices.Contains(pathWords, w):
		case cut && short < 0 && slices.ContainsFunc(pathWords, func(p string) bool { return strings.HasPrefix(p, w) }):
			short = n
		default:
			ok = false
		}
		n++
	})
	return ok && n > 0 && (short < 0 || short == n-1)
}

// http classifies an operation by its method and the shape of its
// path: an action segment names the action (POST /quotes/{quote}/cancel);
// GET reads one item (/customers/{customer}, /balance) or lists a plural
// collection (/customers); POST creates in a collection, an item's own
// collection included (/projects/{project}/models), updates an item and
// acts on one (/invoices/{invoice}/finalize); PUT and PATCH update;
// DELETE deletes. A plural segment after an item names a collection and
// a singular one an action: English morphology, no catalog's words.
func (v verbClassifier) http(h *operations.HTTPBinding) verbClass {
	p := addressPath(h.Path, v.formats)
	last := p[strings.LastIndexByte(p, '/')+1:]
	item := strings.HasPrefix(last, "{") || strings.HasPrefix(last, ":")
	noun := pathNoun(p)
	if !item && noun != "" {
		// The segment's first verb names the action ("cancel",
		// "send_invoice", "X-Amz-Target=Svc.UntagResource"). A read
		// word in a REST segment leaves read or list to the method; a
		// call's name says it whatever the method
		// ("X-Amz-Target=Svc.GetApplication" is sent by POST).
		name, call := noun, false
		if v.calls {
			name, call = callName(noun)
		}
		_, c := v.firstVerb(name)
		if c == verbRead && call {
			// As GET does, by the call's object: GetApplication
			// reads, DescribeInstances lists.
			if plural(name) != name {
				return verbList
			}
			return verbRead
		}
		if c != verbNone && c != verbRead {
			return c // cancel, search, send, ...
		}
	}
	switch strings.ToUpper(h.Method) {
	case "GET", "HEAD":
		if item || plural(noun) == noun {
			return verbRead
		}
		return verbList
	case "POST":
		if item {
			return verbUpdate
		}
		// An action on an item (POST /invoices/{invoice}/finalize),
		// unless the segment is a plural: the item's own collection
		// (ablation "sub-collections").
		if q := strings.TrimSuffix(p, "/"+last); strings.HasSuffix(q, "}") && !(v.subCollections && pluralSegment(last)) {
			return verbUpdate
		}
		return verbCreate
	case "PUT", "PATCH":
		return verbUpdate
	case "DELETE":
		return verbDelete
	}
	return verbNone
}

// pluralSegment reports whether a path segment's last word is a plural
// ("models", "journal_instructions", "userGroups").
func pluralSegment(seg string) bool {
	var w string
	splitWords(seg, func(s string) { w = s })
	return w != "" && plural(w) != w
}

// firstVerb returns the first word of s that names an operation's
// action, and its class; "" and verbNone when no word does.
func (v verbClassifier) firstVerb(s string) (verb string, c verbClass) {
	splitWords(s, func(w string) {
		if c == verbNone {
			if c = v.word(w); c != verbNone {
				verb = w
			}
		}
	})
	return verb, c
}

// word classifies an operation-side verb. It is stricter than the
// user lexicon: "all", "what" or "new" do not name an operation's action.
func (v verbClassifier) word(w string) verbClass {
	switch w {
	case "all", "what", "whats", "which", "who", "new", "info", "details",
		"detail", "status", "file", "index", "tag", "label", "post":
		return verbNone
	case "gets", "retrieves", "returns", "return", "fetches", "shows":
		return verbRead
	case "lists":
		return verbList
	case "creates", "adds":
		return verbCreate
	case "updates", "changes", "sets":
		return verbUpdate
	case "deletes", "removes":
		return verbDelete
	case "searches", "finds":
		return verbSearch
	}
	if c := verbLexicon[w]; c != verbNone || !v.reversals {
		return c
	}
	return reversedVerb(w)
}

// reversingPrefixes undo the verb they precede.
var reversingPrefixes = [...]string{"un", "dis", "de"}

// reversedVerb classifies a verb the lexicon does not know that is a
// reversing prefix before one it does: undoing what adds or changes
// something removes it ("untag", "unassign", "unset", "disassociate",
// "deregister"). Reversals that restore rather than remove ("unarchive",
// "unlock") are in the lexicon, which is consulted first. It is English
// morphology, not any catalog's words; verbNone for anything else. The
// third person reads as the verb ("Untags a resource", "Disassociates a
// contact"), as summaries write it, unless the lexicon knows the verb
// ("Unlocks").
func reversedVerb(w string) verbClass {
	if _, ok := undoes(w); ok && verbLexicon[plural(w)] == verbNone {
		return verbDelete
	}
	return verbNone
}

// undoes returns the verb that w, a word the lexicon does not know,
// reverses ("tag" for "untags"; see reversalBase), and whether it is one.
// A word without a reversing prefix costs no more than the prefix test.
func undoes(w string) (string, bool) {
	for _, p := range reversingPrefixes {
		if strings.HasPrefix(w, p) && verbLexicon[w] == verbNone {
			return reversalBase(plural(w))
		}
	}
	return "", false
}

// relationUndone returns the word for what a verb that undoes a relation
// undid: the lexicon's delete verbs of a relation ("link" for "unlink",
// "attach" for "detach", "subscri" for "unsubscribe", the start that
// subscribe and subscription share), or the verb any other reversal
// undoes ("assign" for "unassign", reversalBase); "" for any other verb.
func relationUndone(v string) string {
	if b, ok := relationVerbs[v]; ok {
		return b
	}
	b, _ := reversalBase(v)
	return b
}

// relationVerbs are the lexicon's delete verbs that undo a relation, each
// with the start of the words for what it undid.
var relationVerbs = map[string]string{
	"detach": "attach", "disconnect": "connect", "unlink": "link", "dissociate": "associat",
	"unfollow": "follow", "unsubscribe": "subscri", "unstar": "star",
}

// reversalBase returns the verb a reversal undoes ("tag" for "untag",
// "associate" for "disassociate"; see reversedVerb), and whether w is one.
func reversalBase(w string) (string, bool) {
	for _, p := range reversingPrefixes {
		base, ok := strings.CutPrefix(w, p)
		if !ok || len(base) < 3 {
			continue
		}
		c := verbLexicon[base]
		if c == verbNone {
			c = learnedVerbs().classes[base]
		}
		if c == verbCreate || c == verbUpdate {
			return base, true
		}
	}
	return "", false
}
