package router

import (
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// Past changes. In a request to read, a past participle of a verb that
// changes something says what happened to what is read ("who deleted
// ticket 12", "list closed issues", "show deactivated users"), not which
// operation to call: the operation that deletes, closes or deactivates is
// not the one that reports it. Such a word still meets the operations
// that read ("GET /users/deactivated", the audit log), and no longer meets
// the ones that make the change (ablation "event-words").

// change is a change an operation makes, or one a request's word names
// as past: the verb's class, and act, the verb's stem (its term id + 1; 0
// when the catalog does not say it), which reaches verbs no lexicon knows
// ("deactivated": users.deactivate).
type change struct {
	class verbClass
	act   uint32
	// named: a word of the operation's name or path says the change
	// (reopen, cancel), not only its HTTP method.
	named bool
}

// made reports whether c, an operation's change, is the change e names.
func (c change) made(e change) bool {
	return e.class != verbNone && c.class == e.class || e.act != 0 && c.act == e.act
}

// past is the change that word w names as past in a request to read: a
// past participle ("deleted", "starred", "modified", "sent") of a verb of
// change the lexicon knows (its class), or of a verb some operation of
// the catalog is named for (act). The zero change when it is neither.
func (r *Router) past(w string) change {
	var bases [4]string
	n := len(w)
	irregular, ok := irregularPast[w]
	switch {
	case ok:
		bases[0] = irregular
	case n < 5 || !strings.HasSuffix(w, "ed"):
		return change{}
	default:
		bases[0], bases[1] = w[:n-1], w[:n-2] // "closed", "opened"
		if w[n-3] == w[n-4] {
			bases[2] = w[:n-3] // "starred", "submitted"
		}
		if w[n-3] == 'i' {
			bases[3] = w[:n-3] + "y" // "modified"
		}
	}
	var e change
	for _, b := range bases {
		if c := verbLexicon[b]; c.kind().IsWrite() {
			e.class = c
			break
		}
	}
	if ok {
		w = irregular
	}
	e.act = r.act(w)
	return e
}

// act is change.act for verb w: its stem's term + 1, or 0.
func (r *Router) act(w string) uint32 {
	if t, ok := r.idx.stemTerm(w); ok {
		return t + 1
	}
	return 0
}

// irregularPast maps the irregular past participles of the lexicon's verbs
// of change to the verbs ("set", "put" and "run" are their own, and read
// as the verbs).
var irregularPast = map[string]string{
	"sent": "send", "made": "make", "written": "write",
}

// afterBe reports whether the word at i follows "be", at most one word
// between ("can be deleted", "to be permanently removed"): a change that
// may or is to happen, which asks about the operation that makes it.
func afterBe(words []string, i int) bool {
	return i > 0 && words[i-1] == "be" || i > 1 && words[i-2] == "be"
}

// changeOf is the change op makes, given its verb class c. A read makes
// none, a GET none whatever its path says ("GET
// /files/{id}/trash" reads what was trashed). A write named after its
// method and path makes the change its path's action says (segmentVerb),
// and the method's only when the path says none: "POST
// /#X-Amz-Target=SageMaker.DescribeModel" and "POST /search" are calls
// that read, "POST /jobs/{id}/cancel" one that deletes, "POST /jobs" a
// create.
func (r *Router) changeOf(op *operations.Operation, c verbClass) change {
	h := op.HTTP
	if h != nil && (h.Method == "GET" || h.Method == "HEAD") || h == nil && !op.Kind.IsWrite() {
		return change{}
	}
	name := opName(op.ID)
	verb, named := "", false
	if h != nil && pathNamed(op, name, r.tu.fittedNames) {
		var said verbClass
		verb, said = segmentVerb(h.Path)
		named = verb != ""
		if !named {
			verb = methodVerbs[h.Method]
		} else {
			c = said
		}
	} else {
		splitWords(name, func(w string) {
			if verb == "" {
				verb = w
			}
		})
		named = (verbClassifier{}).word(verb) != verbNone
	}
	return change{class: c, act: r.act(verb), named: named}
}

// methodVerbs are the verbs an HTTP method says when its path says none.
var methodVerbs = map[string]string{"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}

// segmentVerb is the first word of the last literal segment of an HTTP
// path that names an operation's action ("cancel" in
// /jobs/{id}/cancel, "describe" in /#X-Amz-Target=Svc.DescribeModel),
// and its class, or "", read off the call the segment names (callName).
func segmentVerb(path string) (string, verbClass) {
	name, _ := callName(pathNoun(path))
	return verbClassifier{}.firstVerb(name)
}

// callName returns the part of a path's last literal segment that names
// its action, and whether the segment names a call, RPC style: the value
// of a key ("DescribeInstances" of "#Action=DescribeInstances") and of
// that, in a call named service.method, the method: "GetApplication", not
// the service "CodeDeploy" whose name holds a verb too, of
// "#X-Amz-Target=CodeDeploy_20141006.GetApplication". Any other segment is
// its own name ("cancel", "send_invoice").
func callName(seg string) (string, bool) {
	call := false
	if i := strings.LastIndexByte(seg, '='); i >= 0 {
		seg, call = seg[i+1:], true
	}
	if i := strings.LastIndexByte(seg, '.'); i >= 0 {
		if verb, _ := (verbClassifier{}).firstVerb(seg[i+1:]); verb != "" {
			return seg[i+1:], true
		}
	}
	return seg, call
}
