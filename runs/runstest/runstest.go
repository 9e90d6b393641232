// Package runstest checks that an implementation of runs.Store keeps the
// contract runs.Manager relies on: what is saved loads back unchanged, a
// record is invisible to every other principal and after it expires, and
// List filters, orders and limits. A durable or shared store runs it from
// its own tests:
//
//	func TestStore(t *testing.T) {
//		runstest.Run(t, func(t *testing.T, now func() time.Time) runs.Store { return openStore(t, now) })
//	}
package runstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// Clock is a settable clock handed to the store under test.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set to a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Run checks a Store. newStore returns an empty store whose notion of
// "now" (for expiry) is now; a store that expires by its own clock (a
// server-side TTL) cannot pass the expiry checks and should run them
// against real time itself.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) runs.Store) {
	ctx := context.Background()
	record := func(c *Clock, id, principal string, state runs.State, age time.Duration) runs.Record {
		start := c.Now().Add(-age)
		r := runs.Record{ID: id, Principal: principal, Operation: "tests.op", State: state, StartedAt: start,
			ExpiresAt: c.Now().Add(time.Hour), Progress: &runs.Progress{Done: 2, Total: 5, Message: "step"}}
		if state.Finished() {
			r.FinishedAt = c.Now()
			r.Result = json.RawMessage(`{"ok":true,"data":{"n":1}}`)
		}
		return r
	}
	t.Run("round trip", func(t *testing.T) {
		c := NewClock()
		s := newStore(t, c.Now)
		want := record(c, "run_a", "alice", runs.StateSucceeded, time.Minute)
		want.CancelRequested = true
		if err := s.Save(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "alice", "run_a")
		if err != nil {
			t.Fatal(err)
		}
		if !sameRecord(got, want) {
			t.Fatalf("loaded %+v, saved %+v", got, want)
		}
		want.State, want.Result, want.ResultDropped = runs.StateFailed, nil, true
		if err := s.Save(ctx, want); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Load(ctx, "alice", "run_a"); !sameRecord(got, want) {
			t.Fatalf("after a second save: %+v, want %+v", got, want)
		}
	})
	t.Run("principals", func(t *testing.T) {
		c := NewClock()
		s := newStore(t, c.Now)
		if err := s.Save(ctx, record(c, "run_a", "alice", runs.StateRunning, 0)); err != nil {
			t.Fatal(err)
		}
		_, errOther := s.Load(ctx, "bob", "run_a")
		_, errNone := s.Load(ctx, "bob", "run_none")
		if !errors.Is(errOther, runs.ErrUnknownRun) || !errors.Is(errNone, runs.ErrUnknownRun) || errOther.Error() != errNone.Error() {
			t.Fatalf("another principal's run: %v; a missing run: %v; they must be the same ErrUnknownRun", errOther, errNone)
		}
		if l, err := s.List(ctx, "bob", nil, 0); err != nil || len(l) != 0 {
			t.Fatalf("bob lists %+v, %v", l, err)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		c := NewClock()
		s := newStore(t, c.Now)
		if err := s.Save(ctx, record(c, "run_a", "alice", runs.StateSucceeded, 0)); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Hour - time.Second)
		if _, err := s.Load(ctx, "alice", "run_a"); err != nil {
			t.Fatalf("a second before it expires: %v", err)
		}
		c.Add(time.Second)
		if _, err := s.Load(ctx, "alice", "run_a"); !errors.Is(err, runs.ErrUnknownRun) {
			t.Fatalf("at its expiry: %v, want ErrUnknownRun", err)
		}
		if l, _ := s.List(ctx, "alice", nil, 0); len(l) != 0 {
			t.Fatalf("an expired record is listed: %+v", l)
		}
	})
	t.Run("list", func(t *testing.T) {
		c := NewClock()
		s := newStore(t, c.Now)
		for i, st := range []runs.State{runs.StateRunning, runs.StateSucceeded, runs.StateFailed, runs.StateRunning} {
			if err := s.Save(ctx, record(c, fmt.Sprint("run_", i), "alice", st, time.Duration(10-i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(l []runs.Record) []string {
			out := []string{}
			for _, r := range l {
				out = append(out, r.ID)
			}
			return out
		}
		for _, tc := range []struct {
			states []runs.State
			limit  int
			want   []string
		}{
			{nil, 0, []string{"run_3", "run_2", "run_1", "run_0"}},
			{[]runs.State{runs.StateRunning}, 0, []string{"run_3", "run_0"}},
			{[]runs.State{runs.StateSucceeded, runs.StateFailed}, 0, []string{"run_2", "run_1"}},
			{nil, 2, []string{"run_3", "run_2"}},
			{[]runs.State{runs.StateCancelled}, 0, []string{}},
		} {
			l, err := s.List(ctx, "alice", tc.states, tc.limit)
			if err != nil || !reflect.DeepEqual(ids(l), tc.want) {
				t.Fatalf("List(%v, %d) = %v, %v; want %v (newest first)", tc.states, tc.limit, ids(l), err, tc.want)
			}
		}
	})
	t.Run("concurrent use", func(t *testing.T) {
		c := NewClock()
		s := newStore(t, c.Now)
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := fmt.Sprint("p", i%5)
				id := fmt.Sprint("run_", i)
				for _, st := range []runs.State{runs.StateRunning, runs.StateSucceeded} {
					if err := s.Save(ctx, record(c, id, p, st, 0)); err != nil {
						t.Error(err)
					}
					if _, err := s.Load(ctx, p, id); err != nil {
						t.Error(err)
					}
					if _, err := s.List(ctx, p, nil, 0); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		for p := range 5 {
			l, _ := s.List(ctx, fmt.Sprint("p", p), []runs.State{runs.StateSucceeded}, 0)
			if len(l) != 10 {
				t.Fatalf("p%d has %d finished runs, want 10", p, len(l))
			}
		}
	})
}

// sameRecord compares records as a store must keep them: times as
// instants, results as JSON.
func sameRecord(a, b runs.Record) bool {
	if !a.StartedAt.Equal(b.StartedAt) || !a.FinishedAt.Equal(b.FinishedAt) || !a.ExpiresAt.Equal(b.ExpiresAt) {
		return false
	}
	if !jsonEqual(a.Result, b.Result) {
		return false
	}
	a.StartedAt, a.FinishedAt, a.ExpiresAt, a.Result = b.StartedAt, b.FinishedAt, b.ExpiresAt, b.Result
	return reflect.DeepEqual(a, b)
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
