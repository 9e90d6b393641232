package apicorpus

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
)

// Texts calls fn with each piece of natural language in a's description:
// titles, summaries and descriptions at any depth (API, tags, operations,
// parameters, schemas), and each operation's parameter and property names
// joined into one line, since names that stand together say what an
// operation is about. It is the vectors' training text. Map keys are
// visited in sorted order, so the sequence is the same on every run.
func Texts(a API, fn func(text string)) error {
	data, err := os.ReadFile(a.File)
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	walkTexts(doc, 0, fn)
	return nil
}

func walkTexts(v any, depth int, fn func(string)) {
	if depth > 64 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "title", "summary", "description":
				if s, ok := t[k].(string); ok {
					fn(s)
					continue
				}
			case "properties":
				if props, ok := t[k].(map[string]any); ok {
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					line := ""
					for _, n := range names {
						line += n + " "
					}
					fn(line)
				}
			case "example", "examples", "x-example", "enum", "default":
				// Values, not language.
				continue
			}
			walkTexts(t[k], depth+1, fn)
		}
	case []any:
		for _, x := range t {
			walkTexts(x, depth+1, fn)
		}
	}
}

// Summaries calls fn with the HTTP method (upper case) and summary of each
// operation of a that has one, in path and method order.
func Summaries(a API, fn func(method, summary string)) error {
	data, err := os.ReadFile(a.File)
	if err != nil {
		return err
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, m := range []string{"get", "put", "post", "delete", "patch"} {
			raw, ok := doc.Paths[p][m]
			if !ok {
				continue
			}
			var op struct {
				Summary string `json:"summary"`
			}
			if json.Unmarshal(raw, &op) == nil && op.Summary != "" {
				fn(strings.ToUpper(m), op.Summary)
			}
		}
	}
	return nil
}
