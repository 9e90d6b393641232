package intent

import (
	"sync"
	"testing"
	"time"
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
		visible := 0
		for _, op := range reg.All() {
			if !isReservedID(op.ID) && s.Visible(op) {
				visible++
			}
		}
		if s.Len() != visible {
			t.Fatalf("Len %d, the policy shows %d", s.Len(), visible)
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

// steppingClock is a clock that moves on by step each time it is read.
type steppingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// TestElapsedShownForSlowCallsOnly: meta.elapsed_ms states the time of a
// call of ElapsedShownFrom or more, and is left out below it.
func TestElapsedShownForSlowCallsOnly(t *testing.T) {
	for _, tc := range []struct {
		step  time.Duration
		shown bool
	}{{0, false}, {ElapsedShownFrom / 4, false}, {ElapsedShownFrom, true}} {
		// Do reads the clock when the call starts and when it ends.
		clock := &steppingClock{now: time.Unix(1e9, 0), step: tc.step}
		s, _ := newTestServer(t, Options{Now: clock.Now, Wait: WaitUntilDone})
		for _, in := range [][2]string{{ToolAsk, `{"action":"notes.get","params":{"id":1}}`}, {ToolFind, `{"intent":"list notes"}`}, {ToolAsk, `{"action":"notes.nope"}`}} {
			env := call(t, s, in[0], in[1])
			if got := env.Meta != nil && env.Meta.ElapsedMS > 0; got != tc.shown {
				t.Fatalf("clock step %s, %s %s: elapsed shown %v, want %v: %s", tc.step, in[0], in[1], got, tc.shown, env.JSON())
			}
			if tc.shown && env.Meta.ElapsedMS < float64(ElapsedShownFrom.Milliseconds()) {
				t.Fatalf("elapsed_ms = %v", env.Meta.ElapsedMS)
			}
		}
	}
}
