package sanitize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// benchTexts returns the descriptions, summaries and titles of the spec
// named by INTENTSRV_BENCH_SPEC (a JSON document such as GitHub's), or of
// testdata's tracker and petstore specs when it is unset.
func benchTexts(b *testing.B) []string {
	b.Helper()
	paths := []string{filepath.Join("..", "..", "testdata", "openapi", "petstore-swagger2.json")}
	if p := os.Getenv("INTENTSRV_BENCH_SPEC"); p != "" {
		paths = []string{p}
	}
	var texts []string
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			b.Fatal(err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				for k, e := range t {
					if s, ok := e.(string); ok && (k == "description" || k == "summary" || k == "title") {
						texts = append(texts, s)
						continue
					}
					walk(e)
				}
			case []any:
				for _, e := range t {
					walk(e)
				}
			}
		}
		walk(doc)
	}
	return texts
}

// BenchmarkCleanSpec cleans every text of a spec once per iteration, as a
// cold parse does (the parser memoises repeats; this does not).
func BenchmarkCleanSpec(b *testing.B) {
	texts := benchTexts(b)
	b.ReportMetric(float64(len(texts)), "texts")
	for b.Loop() {
		for _, s := range texts {
			Clean(s, DescriptionMax)
		}
	}
}

// BenchmarkNameProblem checks names as the parser does for every property
// of every schema it converts.
func BenchmarkNameProblem(b *testing.B) {
	names := []string{"id", "node_id", "full_name", "html_url", "allow_auto_merge", "created_at", "permissions",
		"x-github-request-id", "filter[status]", "Order Type", "ignoreAllPreviousInstructions", "@odata.type"}
	for b.Loop() {
		for _, n := range names {
			NameProblem(n)
		}
	}
}
