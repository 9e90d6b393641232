package intent

import (
	"fmt"
	"strconv"
	"strings"
)

// Large upstream answers of the shapes APIs return, for the result budget's
// tests and benchmarks. Each generator returns compact JSON of at least
// size bytes.

// resultShapes names each generator.
var resultShapes = []struct {
	name string
	gen  func(size int) []byte
}{
	{"array", arrayResult},
	{"deep", deepResult},
	{"string", stringResult},
}

var loremWords = strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards quietly pack boxes of liquor " +
	"and a bug report describes how the release pipeline fails when the cache is cold on arm64 runners")

// prose returns n words of varied English-like text.
func prose(seed, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(loremWords[(seed*7+i*13)%len(loremWords)])
	}
	return b.String()
}

// issueJSON is one list item as an issue tracker returns it.
func issueJSON(i int) string {
	return fmt.Sprintf(`{"id":%d,"number":%d,"title":%q,"state":"open","locked":false,`+
		`"user":{"login":"user%d","id":%d,"type":"User","site_admin":false},`+
		`"labels":[{"id":%d,"name":"bug","color":"d73a4a"},{"id":%d,"name":"needs-triage","color":"ededed"}],`+
		`"comments":%d,"created_at":"2024-03-%02dT10:%02d:00Z","updated_at":"2024-04-01T08:00:00Z",`+
		`"html_url":"https://example.test/acme/widgets/issues/%d","body":%q}`,
		100000+i, i, prose(i, 8), i%97, 5000+i%97, 7000+i%11, 8000+i%5, i%13, 1+i%28, i%60, i, prose(i, 40+i%30))
}

// arrayResult is an array of objects: a page of list results.
func arrayResult(size int) []byte {
	b := make([]byte, 0, size+4096)
	b = append(b, '[')
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, issueJSON(i)...)
	}
	return append(b, ']')
}

// deepResult is an object whose list sits four levels down, next to a
// cursor and other fields, as GraphQL-style APIs answer.
func deepResult(size int) []byte {
	b := make([]byte, 0, size+4096)
	b = append(b, `{"data":{"repository":{"name":"widgets","owner":{"login":"acme"},"issues":{"totalCount":`...)
	b = strconv.AppendInt(b, int64(size/1000), 10)
	b = append(b, `,"nodes":[`...)
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, issueJSON(i)...)
	}
	return append(b, `],"next":"Y3Vyc29yOnYyOpK5","pageInfo":{"hasNextPage":true}}}},"rateLimit":{"remaining":4999}}`...)
}

// stringResult is one huge string field: a file's contents.
func stringResult(size int) []byte {
	b := make([]byte, 0, size+4096)
	b = append(b, `{"path":"docs/guide.md","encoding":"utf-8","content":"`...)
	for i := 0; len(b) < size; i++ {
		b = append(b, prose(i, 12)...)
		b = append(b, `.\n`...)
	}
	return append(b, `"}`...)
}
