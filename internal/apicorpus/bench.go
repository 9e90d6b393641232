package apicorpus

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
)

// Case is one API turned into a routing benchmark: its operations as the
// router indexes them, with every summary and operationId withheld, and one
// query per operation that had a summary (except summaries that only
// restate the method and path).
type Case struct {
	API API
	// Ops are the API's operations. Their ids are generated from method
	// and path, and their texts carry no summary: a query must be routed
	// by the description, parameters, tags and path alone.
	Ops []*operations.Operation
	// Queries are the withheld summaries. Labels are the ids of every
	// operation whose summary reads the same.
	Queries []Query
}

// Query is one benchmark query.
type Query struct {
	Text   string
	Labels []string
}

// SizeBucket names the size class of a catalog of n operations, for
// figures by API size.
func SizeBucket(n int) string {
	switch {
	case n <= 10:
		return "1-10 ops"
	case n <= 50:
		return "11-50 ops"
	case n <= 200:
		return "51-200 ops"
	}
	return "201+ ops"
}

// Load builds the benchmark case of a. The description is parsed twice with
// the project's OpenAPI parser: once as published, for the summaries, and
// once with every operation's operationId and summary removed (and the
// summary cut from the front of its description), for the index. An
// operation the API gives no summary is summarised, as the parser does, by
// its description's first sentence; that sentence is its query and is cut
// from the description the index holds, so that no query is found in the
// index word for word. An API whose description does not parse is an
// error; one with no summary gives a case with no queries.
func Load(a API) (*Case, error) {
	return load(a, func(data []byte, ops []openapi.Op) ([]byte, error) {
		return withhold(data, firstSentences(ops))
	}, func(op openapi.Op) string {
		if s := strings.TrimSpace(op.Summary); !restatesPath(s) {
			return s
		}
		return ""
	})
}

// load builds a case of a: its description as published, parsed for the
// queries (query gives each operation's, "" for none), and as withheld
// returns it, parsed for the index. The operations whose queries read the
// same (case aside) are that query's labels.
func load(a API, withheld func(data []byte, ops []openapi.Op) ([]byte, error), query func(openapi.Op) string) (*Case, error) {
	data, err := os.ReadFile(a.File)
	if err != nil {
		return nil, err
	}
	full, err := openapi.Parse("api", data, openapi.ParseOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	blindData, err := withheld(data, full.Ops)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	blind, err := openapi.Parse("api", blindData, openapi.ParseOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s (withheld): %w", a.Name, err)
	}
	c := &Case{API: a}
	idOf := make(map[string]string, len(blind.Ops))
	for _, op := range blind.Operations(openapi.BindOptions{Mock: true}) {
		idOf[op.HTTP.Method+" "+op.HTTP.Path] = op.ID
		c.Ops = append(c.Ops, &op)
	}
	byText := map[string][]string{}
	var order []string
	for _, op := range full.Ops {
		id, ok := idOf[op.Method+" "+op.Path]
		q := query(op)
		if !ok || q == "" {
			continue
		}
		key := strings.ToLower(q)
		if _, seen := byText[key]; !seen {
			order = append(order, q)
		}
		byText[key] = append(byText[key], id)
	}
	for _, q := range order {
		c.Queries = append(c.Queries, Query{Text: q, Labels: byText[strings.ToLower(q)]})
	}
	return c, nil
}

// Requests calls fn with the HTTP method, path and summary of each
// operation of a that has one, in the order the parser gives: the
// summaries Load makes queries of, an operation without one summarised by
// its description's first sentence.
func Requests(a API, fn func(method, path, summary string)) error {
	data, err := os.ReadFile(a.File)
	if err != nil {
		return err
	}
	full, err := openapi.Parse("api", data, openapi.ParseOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	for _, op := range full.Ops {
		if s := strings.TrimSpace(op.Summary); s != "" && !restatesPath(s) {
			fn(op.Method, op.Path, s)
		}
	}
	return nil
}

// firstSentences returns, by "METHOD path", the description of each
// parsed operation whose summary is its description's first sentence,
// with that sentence cut: what is left of the description once its
// summary is withheld ("" when nothing is).
func firstSentences(ops []openapi.Op) map[string]string {
	out := make(map[string]string)
	for _, op := range ops {
		first := openapi.FirstSentence(op.Description)
		if first == "" || !strings.EqualFold(op.Summary, sanitize.Summary(first)) {
			continue
		}
		rest := strings.TrimSpace(op.Description)[len(first):]
		out[op.Method+" "+op.Path] = strings.TrimLeft(rest, ".:;,- \n")
	}
	return out
}

// withhold removes every operation's operationId and summary from an
// OpenAPI document, and the summary from the start of its description. An
// operation with no summary of its own has rest[method+" "+path], its
// description without the first sentence that summarises it, in place of
// its description (firstSentences).
func withhold(data []byte, rest map[string]string) ([]byte, error) {
	return withholdNames(data, false, func(method, path string, op map[string]any) {
		summary, _ := op["summary"].(string)
		if strings.TrimSpace(summary) == "" {
			if r, ok := rest[strings.ToUpper(method)+" "+path]; ok {
				setDescription(op, r)
			}
			return
		}
		if d, ok := op["description"].(string); ok {
			d = strings.TrimSpace(d)
			s := strings.TrimSpace(summary)
			if strings.EqualFold(strings.TrimRight(d, ". "), strings.TrimRight(s, ". ")) {
				delete(op, "description")
			} else if len(d) >= len(s) && strings.EqualFold(d[:len(s)], s) {
				op["description"] = strings.TrimLeft(d[len(s):], ".:;,- \n")
			}
		}
	})
}

// withholdNames rewrites an OpenAPI document: fn sees each operation as
// published (its method, path and object) and may change its text, then
// the operation's summary is removed, and its operationId unless keepIDs.
func withholdNames(data []byte, keepIDs bool, fn func(method, path string, op map[string]any)) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, v := range ops {
			if op, ok := v.(map[string]any); ok {
				fn(method, path, op)
				if !keepIDs {
					delete(op, "operationId")
				}
				delete(op, "summary")
			}
		}
	}
	return json.Marshal(doc)
}

// setDescription sets op's description to d, or removes it when d is
// empty.
func setDescription(op map[string]any, d string) {
	if d == "" {
		delete(op, "description")
		return
	}
	op["description"] = d
}

// restatesPath reports whether a summary only restates the method and path
// ("GET /V1.0/ActionTypes/{id}"): nobody asks for an operation that way,
// and the path is in the index.
func restatesPath(s string) bool {
	if i := strings.IndexByte(s, ' '); i > 0 {
		switch strings.ToUpper(s[:i]) {
		case "GET", "PUT", "POST", "PATCH", "DELETE", "HEAD", "OPTIONS":
			s = strings.TrimSpace(s[i:])
		}
	}
	return strings.HasPrefix(s, "/")
}

// ForeignGroup is the group of the queries Foreign returns, apart from
// the size classes of SizeBucket.
const ForeignGroup = "foreign"

// Foreign returns up to n summaries of another provider's API, to be
// asked of apis[i]'s catalog as requests it cannot serve: out of scope by
// construction, written by nobody here. The donor is the API half the
// list away (the next one of another provider from there whose
// description reads), so that neighbours in name order, which often
// share a domain, do not pair; the summaries chosen are those of least
// hash, a sample that is the same for the same list. A summary that one
// of own's queries also reads (case aside) is skipped: the catalog serves
// it. Others may be servable too ("List users" asked of another API that
// has users), so figures on them are a lower bound of what the router
// gets right.
func Foreign(apis []API, i, n int, own []Query) []string {
	if n <= 0 || len(apis) < 2 {
		return nil
	}
	served := make(map[string]bool, len(own))
	for _, q := range own {
		served[strings.ToLower(strings.TrimSpace(q.Text))] = true
	}
	p := Provider(apis[i].Name)
	for k := range len(apis) {
		donor := apis[(i+len(apis)/2+k)%len(apis)]
		if Provider(donor.Name) == p {
			continue
		}
		if texts, err := sampleSummaries(donor, n, served); err == nil {
			return texts
		}
		// A description that does not read is not part of the
		// benchmark; the next one is asked instead.
	}
	return nil // one provider only
}

// sampleSummaries returns the n summaries of a of least hash, leaving
// out those in served and those that restate a path.
func sampleSummaries(a API, n int, served map[string]bool) ([]string, error) {
	seen := map[string]bool{}
	var texts []string
	err := Summaries(a, func(_, s string) {
		s = strings.TrimSpace(s)
		key := strings.ToLower(s)
		if s == "" || restatesPath(s) || served[key] || seen[key] {
			return
		}
		seen[key] = true
		texts = append(texts, s)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(texts, func(a, b string) int {
		return cmp.Or(cmp.Compare(hashName("foreign:"+a), hashName("foreign:"+b)), strings.Compare(a, b))
	})
	return texts[:min(n, len(texts))], nil
}

// LoadDescribed builds the paraphrase case of a: the same catalog, asked
// in other words. Each operation that has a summary and a description
// whose first sentence says something else ("List payments" described as
// "Retrieves the information about all payments from all your customer
// accounts.") gives that first sentence as its query. The index withholds
// every operationId, every summary (the query's own paraphrase) and every
// description's first sentence, so that no query is in the index word for
// word; the rest of each description stays. A first sentence of fewer than
// three words or more than maxDescribedWords, one that does not open with
// a letter (markup, a note in bold), or one that shares no word with its
// summary (a note, not a paraphrase) is asked of nobody.
func LoadDescribed(a API) (*Case, error) { return loadDescribed(a, false) }

// LoadDescribedWithIDs is LoadDescribed with every operationId kept in the
// index, as a served catalog has them: the router then meets a request in
// the operations' own names (GitHub's issues/get, getUserById), which the
// other views withhold. The ids restate the summaries, not the first
// sentences asked, so no query is in the index word for word; what an id
// shares with a query is what it shares with a user's request.
func LoadDescribedWithIDs(a API) (*Case, error) { return loadDescribed(a, true) }

func loadDescribed(a API, keepIDs bool) (*Case, error) {
	return load(a, func(data []byte, _ []openapi.Op) ([]byte, error) {
		return withholdFirstSentences(data, keepIDs)
	}, func(op openapi.Op) string {
		if s := strings.TrimSpace(op.Summary); s != "" && !restatesPath(s) {
			return describedQuery(op.Description, s)
		}
		return ""
	})
}

// WithoutHTTP returns c as a catalog of tools, as an MCP server or a Go
// program serves them: each operation keeps its id, description, input
// schema and kind, and loses its HTTP method and path. c is not changed.
// Over LoadDescribedWithIDs's case it is the corpus asked of named tools
// with no address: the view that measures how the router orders such
// catalogs.
func WithoutHTTP(c *Case) *Case {
	out := &Case{API: c.API, Queries: c.Queries, Ops: make([]*operations.Operation, len(c.Ops))}
	for i, op := range c.Ops {
		tool := *op
		tool.HTTP = nil
		out.Ops[i] = &tool
	}
	return out
}

// maxDescribedWords bounds a described query: a longer first sentence is
// a paragraph, not a request.
const maxDescribedWords = 40

// describedQuery returns the first sentence of description as a query, ""
// when it is no paraphrase of summary (the same words, case and final
// stop aside), too short or too long, or does not open with a letter.
func describedQuery(description, summary string) string {
	q := sanitize.Summary(openapi.FirstSentence(description))
	if q == "" || strings.EqualFold(strings.TrimRight(q, ". "), strings.TrimRight(summary, ". ")) {
		return ""
	}
	if r := q[0]; !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return ""
	}
	if n := len(strings.Fields(q)); n < 3 || n > maxDescribedWords || !sharesAWord(q, summary) {
		return ""
	}
	return q
}

// sharesAWord reports whether a and b have a word of four letters or more
// in common (case and a final "s" aside): a first sentence that shares
// none with its summary is about something else ("This feature was
// introduced in 8.13" of "List project boards"), not a paraphrase.
func sharesAWord(a, b string) bool {
	words := func(s string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
			if len(w) >= 4 {
				out = append(out, strings.TrimSuffix(w, "s"))
			}
		}
		return out
	}
	bw := words(b)
	for _, w := range words(a) {
		if slices.Contains(bw, w) {
			return true
		}
	}
	return false
}

// withholdFirstSentences removes every operation's summary from an
// OpenAPI document, its operationId unless keepIDs, and the first
// sentence of its description (LoadDescribed's queries).
func withholdFirstSentences(data []byte, keepIDs bool) ([]byte, error) {
	return withholdNames(data, keepIDs, func(_, _ string, op map[string]any) {
		d, _ := op["description"].(string)
		d = strings.TrimSpace(d)
		setDescription(op, strings.TrimLeft(d[len(openapi.FirstSentence(d)):], ".:;,- \n"))
	})
}
