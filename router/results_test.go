package router

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// A request that meets nothing but what operations return is answered
// with those operations, low, instead of being told that nothing here
// serves it; one that meets anything else is not answered by results.
func TestResultsAreTheLastResort(t *testing.T) {
	fruit := json.RawMessage(`{"$ref":"#/$defs/Fruit","$defs":{"Fruit":{"type":"object","properties":{"name":{"type":"string"},"family":{"type":"string"},"nutritions":{"$ref":"#/$defs/Nutritions"}}},"Nutritions":{"type":"object","properties":{"calories":{"type":"number"},"sugar":{"type":"number"},"carbohydrates":{"type":"number"}}}}}`)
	byName := httpOp("fruits.get_fruit_name", "GET", "Returns a fruit by its name.", "/fruit/{name}", operations.KindRead)
	byName.Output = fruit
	all := httpOp("fruits.get_fruit_all", "GET", "Returns every fruit.", "/fruit/all", operations.KindRead)
	all.Output = json.RawMessage(`{"type":"array","items":` + string(fruit) + `}`)
	ops := []*operations.Operation{
		byName, all,
		httpOp("fruits.put_fruit", "PUT", "Adds a fruit to the database.", "/fruit", operations.KindWrite),
	}
	const q = "how many calories and carbohydrates are in an apple"
	res := New(ops, Options{}).Search(q, Filter{}, 5)
	if res.Decision == DecisionRun || len(res.Candidates) == 0 {
		t.Fatalf("%q: %s %v, want the fruit reads listed, low", q, res.Decision, candidateIDs(res))
	}
	if got := candidateIDs(res); !slices.Contains(got, "fruits.get_fruit_name") || slices.Contains(got, "fruits.put_fruit") {
		t.Errorf("%q: %v, want the operations that return calories, and only them", q, got)
	}
	if c := res.Candidates[0]; c.Confidence >= 0.2 || !slices.Contains(c.Matched, "calories") {
		t.Errorf("%q: confidence %.2f, matched %v; want low, by calories", q, c.Confidence, c.Matched)
	}
	if res := New(ops, Options{Ablate: []string{"result-fields"}}).Search(q, Filter{}, 5); len(res.Candidates) != 0 {
		t.Errorf("%q with result-fields off: %v; the test no longer shows what the rule does", q, candidateIDs(res))
	}
	// A request the catalog's own words meet is ranked by them.
	if got := candidateIDs(New(ops, Options{}).Search("add a fruit with its calories", Filter{}, 5)); len(got) == 0 || got[0] != "fruits.put_fruit" {
		t.Errorf("add a fruit with its calories: %v, want the fruit's add first", got)
	}
}
