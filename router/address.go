package router

import (
	"math"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// The address stage: a request that gives an HTTP path ("GET
// /repos/golang/go/pulls/12", "/user/repos",
// "https://api.github.com/repos/golang/go/issues") names its operation by
// address, not by words. Agents write requests this way when they know
// the API; the words stage masks such a path as a value (its segments are
// names and ids, not meaning), so it would answer with nothing. Instead,
// the operations whose HTTP path the given one fits, segment by segment,
// are the answer.

// pathIndex holds the segments of the operations' HTTP paths, lower-cased
// and interned: segment ids in one array, paramSeg for a parameter
// ("{owner}", ":id", "{id}.json"), which any value fits.
type pathIndex struct {
	start []uint32 // operation d's segments are segs[start[d]:start[d+1]]
	segs  []uint32
	ids   map[string]uint32 // literal segment → id (from 1)
	// byStart holds the operations by their paths' number of segments
	// and first segment: a path given is fitted to those that start as it
	// does or with a parameter, and have its length. Paths whose first
	// one or two segments are literals (a base path: "/V1", "/api/v2")
	// are held under the rest too (skip 1, 2), for a path given without
	// its base.
	byStart map[pathStart][]int32
}

type pathStart struct {
	skip, n int
	first   uint32
}

// maxBaseSegments is the most leading literal segments of an
// operation's path that a path given may leave out ("products/types" for
// GET /V1/products/types).
const maxBaseSegments = 2

const (
	paramSeg   uint32 = 0              // an operation's parameter
	unknownSeg uint32 = math.MaxUint32 // a given segment no path says, or a placeholder
)

func buildPathIndex(ops []*operations.Operation) pathIndex {
	px := pathIndex{start: make([]uint32, len(ops)+1), ids: map[string]uint32{}, byStart: map[pathStart][]int32{}}
	for d, op := range ops {
		px.start[d] = uint32(len(px.segs))
		if op.HTTP == nil || op.HTTP.Path == "" {
			continue
		}
		for seg := range strings.SplitSeq(op.HTTP.Path, "/") {
			switch {
			case seg == "":
			case strings.ContainsAny(seg, "{}") || seg[0] == ':':
				px.segs = append(px.segs, paramSeg)
			default:
				seg = strings.ToLower(seg)
				id, ok := px.ids[seg]
				if !ok {
					id = uint32(len(px.ids) + 1)
					px.ids[seg] = id
				}
				px.segs = append(px.segs, id)
			}
		}
		segs := px.segs[px.start[d]:]
		for skip := 0; skip <= maxBaseSegments && skip < len(segs); skip++ {
			if skip > 0 && segs[skip-1] == paramSeg {
				break // a base path is literal
			}
			k := pathStart{skip, len(segs) - skip, segs[skip]}
			px.byStart[k] = append(px.byStart[k], int32(d))
		}
	}
	px.start[len(ops)] = uint32(len(px.segs))
	return px
}

// of returns the segments of operation d's path (none without one).
func (px *pathIndex) of(d int) []uint32 {
	if d+1 >= len(px.start) {
		return nil
	}
	return px.segs[px.start[d]:px.start[d+1]]
}

// given returns the ids of segments given in a request: unknownSeg for a
// placeholder or a word no path says, which only a parameter fits.
func (px *pathIndex) given(segs []string, out []uint32) []uint32 {
	for _, s := range segs {
		id, ok := px.ids[s] // a placeholder, "{", is no literal's
		if !ok {
			id = unknownSeg
		}
		out = append(out, id)
	}
	return out
}

// address is an HTTP path a request gives, and the method before it.
type address struct {
	method string   // upper-cased; "" when none is given
	segs   []string // lower-cased; a placeholder ("{owner}", ":id", "$ID") is "{"
	// loose: two segments, not rooted, no method ("products/types"): a
	// path only when the catalog's paths say every segment, since
	// "golang/go" is a slug.
	loose bool
	// prose: the path was given in longer prose, as where a request is
	// sent ("To create a new volume, send a POST request to
	// `/v2/volumes`."; sentTo) or as the endpoint named (namesEndpoint).
	// The rest of the prose may ask for more, so it is never run.
	prose bool
}

// proseForms are the forms in which longer prose gives an address
// (parseAddress); each has its ablation.
type proseForms uint8

const (
	// proseSent: a request sent to the path ("send a POST request to
	// `/v2/volumes`"; ablation "request-addresses").
	proseSent proseForms = 1 << iota
	// proseEndpoint: the path in code quotes, named as the endpoint
	// ("The `/transfer/get` endpoint fetches a transfer"; ablation
	// "named-endpoints").
	proseEndpoint
)

// proseForms returns the forms of prose that r reads an address in.
func (r *Router) proseForms() proseForms {
	var f proseForms
	if r.tu.requestAddresses {
		f |= proseSent
	}
	if r.tu.namedEndpoints {
		f |= proseEndpoint
	}
	return f
}

// sentTo returns the method of a request that fields sends to the path at
// fields[k]: "send a POST request to /v2/volumes", the method possibly
// quoted ("a `DELETE` request to"), or "". Prose that names a path with
// no request sent there ("Deprecated; use `GET /v2/x` instead", "Identical
// to `GET /repositories/…/commits`") refers to another operation than the
// one it asks for, so only this form makes an address of a long request.
func sentTo(fields []string, k int) string {
	if k < 3 || !strings.EqualFold(fields[k-2], "request") || !strings.EqualFold(fields[k-1], "to") && !strings.EqualFold(fields[k-1], "on") {
		return ""
	}
	if up := strings.ToUpper(strings.Trim(fields[k-3], "`'\"")); slices.Contains(httpMethods, up) {
		return up
	}
	return ""
}

// namesEndpoint reports whether fields[k], a path, is written in code
// quotes and named as one endpoint, by the word after or before it: "The
// `/transfer/get` endpoint fetches a transfer", "Use the
// `/bank_transfer/create` endpoint to initiate a new bank transfer",
// "call the endpoint `/users/me`". Prose that names several ("only the
// `/spells` and `/monsters` endpoints support filtering") is about them,
// not a request of one, prose that sends the reader elsewhere ("use the
// `/v2/items` endpoint instead") asks for another operation than the one
// it names, and a path out of quotes may be any word with a slash
// ("read/write endpoint").
func namesEndpoint(fields []string, k int) bool {
	if !strings.HasPrefix(fields[k], "`") || slices.ContainsFunc(fields, func(f string) bool {
		return strings.EqualFold(strings.TrimRight(f, ".,;:!?)"), "instead")
	}) {
		return false
	}
	endpoint := func(i int) bool {
		return i >= 0 && i < len(fields) && strings.EqualFold(strings.TrimRight(fields[i], ".,;:!?)"), "endpoint")
	}
	return endpoint(k+1) || endpoint(k-1)
}

// httpMethods are the methods a request may name before a path.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}

// maxAddressWords is the most words a request that gives an HTTP path may
// say beside the path and its method ("what does GET /user/repos
// return"). In longer prose a path is a reference, not the request:
// "Deprecated, please use /recipe/{recipeId}/photos" asks for another
// operation than the one it names; unless a request is sent to it
// (sentTo) or it is named as the endpoint (namesEndpoint).
const maxAddressWords = 3

// parseAddress finds the HTTP path in intent: the first word with a slash
// that starts with one, is a URL, follows a method, or has two segments
// or more ("recipe/100/notes"). Two words joined by a slash ("golang/go",
// "read/write") are loose: a slug or a pair of words, unless the
// catalog's paths say both (lookupAddress decides). A URL's scheme
// and host, and a query string, are dropped. A request of more than
// maxAddressWords other words gives no address, unless it gives the path
// in one of the forms of prose allowed (proseForms): a request sent to it
// (sentTo), or the endpoint named (namesEndpoint).
func parseAddress(intent string, forms proseForms) (address, bool) {
	if !strings.Contains(intent, "/") {
		return address{}, false
	}
	fields := strings.Fields(intent)
	prose := len(fields) > maxAddressWords+2
	if prose && forms == 0 {
		return address{}, false
	}
	for k, tok := range fields {
		word := strings.TrimRight(strings.Trim(tok, "`'\"()[]<>,;"), "`'\")]>,;.:!?")
		if !strings.Contains(word, "/") {
			continue
		}
		a := address{}
		switch {
		case prose:
			if forms&proseSent != 0 {
				a.method = sentTo(fields, k)
			}
			if a.method == "" && (forms&proseEndpoint == 0 || !namesEndpoint(fields, k)) {
				continue
			}
			a.prose = true
		case k > 0:
			if up := strings.ToUpper(strings.TrimRight(fields[k-1], ":")); slices.Contains(httpMethods, up) {
				a.method = up
			}
		}
		if a.method == "" && !a.prose && len(fields) > maxAddressWords+1 {
			return address{}, false // the path and the words allowed, no method
		}
		rooted := strings.HasPrefix(word, "/")
		if i := strings.Index(word, "://"); i >= 0 {
			rest := word[i+3:]
			j := strings.IndexByte(rest, '/')
			if j < 0 {
				return address{}, false // a host alone
			}
			word, rooted = rest[j:], true
		}
		if i := strings.IndexAny(word, "?#"); i >= 0 {
			word = word[:i]
		}
		for seg := range strings.SplitSeq(strings.ToLower(word), "/") {
			switch {
			case seg == "":
			case seg[0] == '{' || seg[0] == ':' || seg[0] == '<' || seg[0] == '$':
				a.segs = append(a.segs, "{")
			default:
				a.segs = append(a.segs, seg)
			}
		}
		if len(a.segs) == 0 || !rooted && a.method == "" && len(a.segs) < 2 {
			return address{}, false
		}
		a.loose = !rooted && a.method == "" && len(a.segs) < 3
		return a, true
	}
	return address{}, false
}

// fit reports whether an operation's path segments s fit the given
// segments g, and how many of s's literal segments g says: a literal must
// be said as it is, a parameter takes any value or placeholder.
func fit(s, g []uint32) (literals int, ok bool) {
	if len(s) != len(g) {
		return 0, false
	}
	for i, seg := range s {
		switch seg {
		case paramSeg:
		case g[i]:
			literals++
		default:
			return 0, false
		}
	}
	return literals, true
}

// lookupAddress answers a request that gives an HTTP path: the operations
// f allows whose path fits it, those with the most literal segments said
// first, then the method given (or GET when none is), then the catalog's
// order. When no path fits the whole of the given one, the longest paths
// that fit its end, two segments or more, do
// ("/api/v3/repos/golang/go/issues" names GET
// /repos/{owner}/{repo}/issues of an API served under /api/v3); when
// none does either, the paths whose end it fits past a literal base of
// up to maxBaseSegments ("products/types" names GET /V1/products/types).
// A loose path ("golang/go") is an address only when the catalog's paths
// say each of its segments. A path
// that fits with no literal segment ("/{owner}/{repo}") is no answer.
//
// The decision is run when the request gives a method and exactly one
// operation fits best with it, unless the request is longer prose that
// gives the path (address.prose); otherwise choose. A path alone leaves the
// action unsaid, even where only a GET is there: "Deprecated, use
// /projects/{id}/strings" names a path and asks for something else.
// When the method given fits an operation f hides ("DELETE /gists/aa5a3" on a read-only server), the
// decision is no match, the operations left at that path are listed as the
// closest, and Verb says what was asked. ok is false when the intent gives
// no path or no operation's path fits it.
func (r *Router) lookupAddress(intent string, f Filter, limit int) (Result, bool) {
	if !r.tu.addresses {
		return Result{}, false
	}
	a, ok := parseAddress(intent, r.proseForms())
	if !ok {
		return Result{}, false
	}
	var matches []pathMatch
	best := 0
	// A suffix keeps two segments at least: "/v2/archive/issues" is not
	// GET /issues.
	given := r.paths.given(a.segs, make([]uint32, 0, 16))
	if a.loose && slices.Contains(given, unknownSeg) {
		return Result{}, false // "golang/go": a slug, not a path of this catalog
	}
	// The path as given; then without its base ("/api/v3/repos/...");
	// then as the end of a path whose base it leaves out
	// ("products/types" for GET /V1/products/types).
	for skip := 0; skip == 0 || skip <= len(given)-2 && len(matches) == 0; skip++ {
		matches, best = r.fitPaths(given[skip:], 0, matches, best)
	}
	for base := 1; base <= maxBaseSegments && len(matches) == 0; base++ {
		matches, best = r.fitPaths(given, base, matches, best)
	}
	if len(matches) == 0 {
		return Result{}, false
	}
	method := a.method
	if method == "" {
		method = "GET"
	}
	slices.SortStableFunc(matches, func(x, y pathMatch) int {
		if x.literals != y.literals {
			return y.literals - x.literals
		}
		xm := strings.EqualFold(r.ops[x.d].HTTP.Method, method)
		ym := strings.EqualFold(r.ops[y.d].HTTP.Method, method)
		switch {
		case xm && !ym:
			return -1
		case ym && !xm:
			return 1
		}
		return x.d - y.d
	})
	res := Result{Verb: methodKind(a.method)}
	hidden := false // the method given fits best an operation f hides
	top := 0        // operations that fit best with the method given
	said := strings.Join(a.segs, "/")
	for _, m := range matches {
		op := r.ops[m.d]
		fits := m.literals == best && (a.method == "" || strings.EqualFold(op.HTTP.Method, a.method))
		if !r.allowed(&f, uint32(m.d)) {
			hidden = hidden || fits && a.method != ""
			continue
		}
		if fits {
			top++
		}
		if len(res.Candidates) == limit {
			continue
		}
		conf := 0.5
		if fits {
			conf = 1
		}
		res.Candidates = append(res.Candidates, Candidate{Op: op, Score: float64(m.literals), Confidence: conf,
			Matched: []string{said}, Fields: []string{"path"}})
	}
	switch {
	case hidden && top == 0:
		res.Decision = DecisionNoMatch
	case len(res.Candidates) == 0:
		return Result{}, false
	case top == 1 && res.Candidates[0].Confidence == 1 && a.method != "" && !a.prose:
		res.Decision = DecisionRun
	default:
		res.Decision = DecisionChoose
	}
	return res, true
}

// pathMatch is an operation whose path fits a path given, and how many
// of its literal segments the path given says.
type pathMatch struct {
	d        int
	literals int
}

// fitPaths appends to matches the operations whose path, without its
// first base segments, fits g with a literal said; best is the most
// literals of any match.
func (r *Router) fitPaths(g []uint32, base int, matches []pathMatch, best int) ([]pathMatch, int) {
	for _, first := range [2]uint32{g[0], paramSeg} {
		for _, d := range r.paths.byStart[pathStart{base, len(g), first}] {
			if n, ok := fit(r.paths.of(int(d))[base:], g); ok && n > 0 {
				matches = append(matches, pathMatch{int(d), n})
				best = max(best, n)
			}
		}
	}
	return matches, best
}

// methodKind is the kind of operation an HTTP method implies ("" for
// none).
func methodKind(m string) operations.Kind {
	switch m {
	case "":
		return ""
	case "GET", "HEAD":
		return operations.KindRead
	case "DELETE":
		return operations.KindDestructive
	}
	return operations.KindWrite
}
