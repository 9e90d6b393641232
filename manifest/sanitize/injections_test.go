package sanitize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// injectionCorpus is testdata/hostile/injections.json: attack payloads in
// several languages and shapes, and benign API prose that must survive.
type injectionCorpus struct {
	Attacks []struct {
		Name    string   `json:"name"`
		Lang    string   `json:"lang"`
		In      string   `json:"in"`
		Absent  []string `json:"absent"`
		Present []string `json:"present"`
	} `json:"attacks"`
	Benign []struct {
		Lang string `json:"lang"`
		In   string `json:"in"`
	} `json:"benign"`
}

func loadInjections(t *testing.T) injectionCorpus {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hostile", "injections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c injectionCorpus
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInjectionCorpus checks every attack is neutralised wherever outside
// text can reach an agent — as a description, as a one-line summary, and
// as a schema value — and that the API prose around it stays.
func TestInjectionCorpus(t *testing.T) {
	c := loadInjections(t)
	if len(c.Attacks) < 100 {
		t.Fatalf("corpus has %d attacks; it is meant to hold at least 100", len(c.Attacks))
	}
	langs := map[string]int{}
	for _, a := range c.Attacks {
		langs[a.Lang]++
		t.Run(a.Name, func(t *testing.T) {
			if len(a.Absent) == 0 {
				t.Fatal("an attack must name what may not survive")
			}
			for view, got := range map[string]string{"description": Description(a.In), "summary": Line(a.In, 0)} {
				low := strings.ToLower(got)
				for _, bad := range a.Absent {
					if strings.Contains(low, strings.ToLower(bad)) {
						t.Errorf("%s keeps %q:\n%s", view, bad, got)
					}
				}
				for _, p := range a.Present {
					if !strings.Contains(got, p) {
						t.Errorf("%s lost %q:\n%s", view, p, got)
					}
				}
			}
			// As a schema value (an example, an enum member) the attack is
			// refused whole, or shown without its payload.
			if v, ok := Value(a.In, 0); ok {
				for _, bad := range a.Absent {
					if strings.Contains(strings.ToLower(v), strings.ToLower(bad)) {
						t.Errorf("value keeps %q:\n%s", bad, v)
					}
				}
			}
		})
	}
	for _, lang := range []string{"en", "fr", "de", "es", "zh", "ja", "json", "html", "md"} {
		if langs[lang] < 3 {
			t.Errorf("corpus has %d attacks of kind %q; want at least 3", langs[lang], lang)
		}
	}
}

// TestBenignCorpus checks that ordinary API prose, in the same languages,
// is neither removed as an instruction nor refused as a value.
func TestBenignCorpus(t *testing.T) {
	c := loadInjections(t)
	if len(c.Benign) < 100 {
		t.Fatalf("corpus has %d benign lines; it is meant to hold at least 100", len(c.Benign))
	}
	for _, b := range c.Benign {
		if got := Description(b.In); strings.Contains(got, Removed) {
			t.Errorf("[%s] benign text lost a sentence:\n in: %q\nout: %q", b.Lang, b.In, got)
		}
		if Instructional(b.In) {
			t.Errorf("[%s] Instructional(%q) = true", b.Lang, b.In)
		}
		if HostileValue(b.In) {
			t.Errorf("[%s] HostileValue(%q) = true", b.Lang, b.In)
		}
	}
}
