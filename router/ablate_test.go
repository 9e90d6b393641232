package router

import (
	"reflect"
	"testing"
)

// Every ablation name switches something off: a name eval accepts that
// changes nothing would report a rule as worthless.
func TestEveryAblationSwitchesSomethingOff(t *testing.T) {
	for _, name := range Ablations {
		o, tu := Options{Ablate: []string{name}}, defaultTuning()
		o.ablate(&tu)
		if reflect.DeepEqual(tu, defaultTuning()) && reflect.DeepEqual(o, Options{Ablate: []string{name}}) {
			t.Errorf("ablation %q switches nothing off", name)
		}
	}
}
