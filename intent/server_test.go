package intent

import (
	"sync"
	"testing"
)

// New returns before the router index is built; calls made at once, from
// many goroutines, get the same answers as calls made after the build, and
// Len counts the visible operations without waiting.
func TestCallsRightAfterNew(t *testing.T) {
	reg, _ := newTestRegistry(t)
	settled, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	settled.Router() // waits for the index
	want := map[string]string{}
	inputs := map[string][2]string{
		"find":      {"find", `{"intent":"list notes"}`},
		"ask-id":    {"ask", `{"action":"notes.get","params":{"id":1}}`},
		"ask-typo":  {"ask", `{"action":"notes.gett"}`},
		"describe":  {"describe", `{}`},
		"ask-named": {"ask", `{"intent":"list my notes","params":{"limit":1}}`},
	}
	for name, in := range inputs {
		want[name] = string(dataOrCode(call(t, settled, in[0], in[1])))
	}
	for range 5 {
		s, err := New(reg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != settled.Router().Len() {
			t.Fatalf("Len %d, the router indexes %d", s.Len(), settled.Router().Len())
		}
		var wg sync.WaitGroup
		for name, in := range inputs {
			wg.Go(func() {
				if got := string(dataOrCode(call(t, s, in[0], in[1]))); got != want[name] {
					t.Errorf("%s right after New: %s, want %s", name, got, want[name])
				}
			})
		}
		wg.Wait()
	}
}

// dataOrCode is what a call answered, without its timing.
func dataOrCode(env *Envelope) []byte {
	if env.OK {
		return env.Data
	}
	return []byte(string(env.Code) + ": " + env.Error)
}
