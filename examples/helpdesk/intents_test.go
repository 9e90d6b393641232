package helpdesk

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// intentSetPath is the labelled intent set over this catalog, used to
// evaluate the router.
const intentSetPath = "../../testdata/intents/helpdesk.jsonl"

type labelledIntent struct {
	Query  string   `json:"query"`
	Labels []string `json:"labels"`
}

func readIntentSet(t *testing.T) []labelledIntent {
	t.Helper()
	f, err := os.Open(intentSetPath)
	if err != nil {
		t.Fatalf("open intent set: %v", err)
	}
	defer f.Close()
	var set []labelledIntent
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var li labelledIntent
		if err := dec.Decode(&li); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if li.Labels == nil {
			t.Fatalf("line %d: labels missing; write [] for a query no operation serves", n)
		}
		set = append(set, li)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read intent set: %v", err)
	}
	return set
}

func TestIntentSetLabelsExist(t *testing.T) {
	reg := mustCatalog(t)
	set := readIntentSet(t)
	if len(set) < 180 {
		t.Errorf("intent set has %d queries, want at least 180", len(set))
	}
	unserved := 0
	labelled := map[string]int{}
	seen := map[string]bool{}
	for _, li := range set {
		q := strings.ToLower(strings.TrimSpace(li.Query))
		if q == "" {
			t.Errorf("empty query with labels %v", li.Labels)
		}
		if seen[q] {
			t.Errorf("duplicate query %q", li.Query)
		}
		seen[q] = true
		if len(li.Labels) == 0 {
			unserved++
		}
		if len(li.Labels) > 2 {
			t.Errorf("%q has %d labels; use one, or two when both operations serve it", li.Query, len(li.Labels))
		}
		for _, id := range li.Labels {
			op, ok := reg.Get(id)
			switch {
			case !ok:
				t.Errorf("%q is labelled %s, which is not in the catalog", li.Query, id)
			case op.ID != id:
				t.Errorf("%q is labelled with alias %s; use the id %s", li.Query, id, op.ID)
			}
			labelled[id]++
		}
		if len(li.Labels) == 2 && li.Labels[0] == li.Labels[1] {
			t.Errorf("%q repeats label %s", li.Query, li.Labels[0])
		}
	}
	if unserved < 25 {
		t.Errorf("%d queries no operation serves, want at least 25", unserved)
	}
	for _, op := range reg.All() {
		if labelled[op.ID] == 0 {
			t.Errorf("no query is labelled %s", op.ID)
		}
	}
}
