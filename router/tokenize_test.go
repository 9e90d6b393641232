package router

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestSplitBytesMatchesSplitWords: the build's allocation-free splitter
// gives the same words as the query splitter.
func TestSplitBytesMatchesSplitWords(t *testing.T) {
	for _, s := range []string{
		"listLineItems", "HTTPServer", "helpdesk.tickets.list", "/repos/{owner}/{repo}/issues",
		"covid19 ec2 v2", "Ünïcode Straße ÉCOLE", "snake_case-and kebab", "who's", "ABCDef", "", "  ",
	} {
		var a, b []string
		splitWords(s, func(w string) { a = append(a, w) })
		buf := splitBytesBuf(s, nil, func(w []byte) { b = append(b, string(w)) })
		_ = buf
		if !slices.Equal(a, b) {
			t.Errorf("%q: splitWords %q, splitBytesBuf %q", s, a, b)
		}
	}
}

func TestPathNounAndResource(t *testing.T) {
	for in, want := range map[string]string{
		"/repos/{owner}/{repo}/issues/{issue_number}": "issues",
		"/users/:id": "users", "/": "", "": "", "/a/b": "b",
	} {
		if got := pathNoun(in); got != want {
			t.Errorf("pathNoun(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"helpdesk.tickets.list": "tickets", "weather.forecast": "", "list": "", "a.b.c.d": "c"} {
		if got := resourceSegment(in); got != want {
			t.Errorf("resourceSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuildDeterministic: the parallel build gives the same ranking as a
// one-chunk build.
func TestBuildDeterministic(t *testing.T) {
	ops := synthOps(minParallelOps * 2)
	qs := benchQueries(ops, 50)
	a := New(ops, Options{})
	prev := runtime.GOMAXPROCS(1) // one chunk
	b := New(ops, Options{})
	runtime.GOMAXPROCS(prev)
	if prev < 2 {
		t.Log("GOMAXPROCS < 2: both builds are one chunk")
	}
	for _, q := range qs {
		ra, rb := a.Search(q, Filter{}, 10), b.Search(q, Filter{}, 10)
		if len(ra.Candidates) != len(rb.Candidates) {
			t.Fatalf("%q: %d vs %d candidates", q, len(ra.Candidates), len(rb.Candidates))
		}
		for i := range ra.Candidates {
			if ra.Candidates[i].Op.ID != rb.Candidates[i].Op.ID || ra.Candidates[i].Score != rb.Candidates[i].Score {
				t.Fatalf("%q: rank %d differs", q, i)
			}
		}
	}
}

func TestAcronymPlurals(t *testing.T) {
	for in, want := range map[string]string{
		"PRs":                "prs",
		"list open PRs":      "list open prs",
		"getURLsForIDs":      "get urls for ids",
		"HTTPServer":         "http server",
		"APIs and SDKs":      "apis and sdks",
		"CRLFs,PRsList":      "crlfs prs list",
		"ListPRsForRepo":     "list prs for repo",
		"the PRs. Next one.": "the prs next one",
	} {
		var got []string
		splitWordsParts(in, false, func(w string) { got = append(got, w) })
		if strings.Join(got, " ") != want {
			t.Errorf("split %q = %q, want %q", in, strings.Join(got, " "), want)
		}
		var gotB []string
		splitBytes(in, func(w []byte) { gotB = append(gotB, string(w)) })
		if strings.Join(gotB, " ") != strings.Join(got, " ") {
			t.Errorf("splitBytes %q = %q, splitWords %q", in, gotB, got)
		}
	}
}

func TestMaskValues(t *testing.T) {
	for q, want := range map[string]string{
		"get the repository octocat/hello-world": "get the repository                    ",
		"read src/main.go, then stop":            "read              then stop",
		"check example.com.":                     "check             ",
		"invite dave@example.com now":            "invite                  now",
		"post to https://example.com/hook":       "post to                         ",
		"show commit 6dcb09b":                    "show commit        ",
		// Words with a few digits are words.
		"start an ec2 instance, covid19 stats, sha256": "start an ec2 instance, covid19 stats, sha256",
		// Names and versions stay.
		"on Kick.com":                  "on Kick.com",
		"the CI/CD pipeline":           "the CI/CD pipeline",
		"the Email Verifier/Validator": "the Email Verifier/Validator",
		"upgrade to v1.2 etc.":         "upgrade to v1.2 etc.",
	} {
		if got := maskValues(q); got != want {
			t.Errorf("maskValues(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestHasSlug(t *testing.T) {
	known := func(w string) bool { return w == "input" || w == "output" || w == "go" || w == "read" || w == "write" }
	for q, want := range map[string]bool{
		"unstar golang/go":                   true,  // a part the catalog does not know
		"fork octocat/spoon-knife":           true,  // a hyphen: a name, not a word
		"star 'acme/web_app2'.":              true,  // quoted, punctuated
		"map input/output of the job":        false, // two words the catalog knows
		"grant read/write access":            false,
		"read the file src/main.go":          false, // a file in a repository
		"open https://example.com/hook":      false, // a URL
		"CI/CD pipelines":                    false, // capitalised parts are a name
		"a/b/c":                              false, // a path, not an owner and a name
		"list repositories of the org":       false,
		"unstar the repository golang / go":  false,
		"update docs/index.md on golang/go.": true,
	} {
		if got := hasSlug(q, known); got != want {
			t.Errorf("hasSlug(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestReversedVerb: a reversing prefix before a verb that adds or changes
// something removes it; restoring reversals stay updates (the lexicon),
// and words that only look prefixed are not verbs.
func TestReversedVerb(t *testing.T) {
	for w, want := range map[string]verbClass{
		"untag": verbDelete, "unassign": verbDelete, "unset": verbDelete,
		"disassociate": verbDelete, "deregister": verbDelete, "unpublish": verbDelete,
		"untags": verbDelete, "disassociates": verbDelete, "deregisters": verbDelete,
		"unlocks":  verbNone,
		"discount": verbNone, "unread": verbNone, "design": verbNone, "undo": verbNone,
	} {
		if got := reversedVerb(w); got != want {
			t.Errorf("reversedVerb(%q) = %v, want %v", w, got, want)
		}
	}
	for w, want := range map[string]verbClass{"unarchive": verbUpdate, "unlock": verbUpdate, "untag": verbDelete} {
		if got := (verbClassifier{reversals: true}).word(w); got != want {
			t.Errorf("word(%q) = %v, want %v", w, got, want)
		}
	}
	if got := (verbClassifier{}).word("untag"); got != verbNone {
		t.Errorf("with reversals off, word(untag) = %v, want none", got)
	}
}

// TestPlural: plurals fold to the singular a user would write, so that
// "branch" meets "/branches" at full weight.
func TestPlural(t *testing.T) {
	for w, want := range map[string]string{
		"tickets": "ticket", "policies": "policy", "status": "status", "class": "class",
		"branches": "branch", "matches": "match", "searches": "search", "hashes": "hash",
		"boxes": "box", "indexes": "index", "addresses": "address", "classes": "class",
		"caches": "cache", "niches": "niche", "databases": "database", "releases": "release",
		"aches": "ache", "shoes": "shoe", "fees": "fee",
		"alias": "alias", "aliases": "alias", "analysis": "analysis", "analyses": "analysis",
		"statuses": "status", "bonuses": "bonus", "causes": "cause", "houses": "house",
		"canvas": "canvas", "canvases": "canvas", "bias": "bias", "axis": "axis", "basis": "basis",
		"indices": "index", "devices": "device", "prices": "price", "children": "child",
		"news": "news", "views": "view", "apis": "api", "kpis": "kpi", "medias": "media",
	} {
		if got := plural(w); got != want {
			t.Errorf("plural(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestWordsOfALowerCaseRequestAreNotCopied(t *testing.T) {
	// Each word of a lower-case request points into the request's own
	// bytes. (Counting allocations would say the same, but
	// testing.AllocsPerRun counts the whole process's.)
	req := "list the open tickets of acme, newest first"
	start := uintptr(unsafe.Pointer(unsafe.StringData(req)))
	n := 0
	Words(req, func(w string) {
		n++
		if p := uintptr(unsafe.Pointer(unsafe.StringData(w))); p < start || p+uintptr(len(w)) > start+uintptr(len(req)) {
			t.Errorf("Words copied %q out of a lower-case request; its words are substrings of it", w)
		}
	})
	if n == 0 {
		t.Fatalf("Words(%q) gave no words", req)
	}
	var words []string
	Words("Show OPEN Tickets", func(w string) { words = append(words, w) })
	if want := []string{"show", "open", "ticket"}; !slices.Equal(words, want) {
		t.Errorf("Words(%q) = %q, want %q", "Show OPEN Tickets", words, want)
	}
}
