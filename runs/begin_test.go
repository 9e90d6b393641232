package runs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// TestBeginEndLikeStart: a run the caller executes itself behaves as one
// from Start: its context carries the run (progress reaches waiters) and
// outlives the caller's, an outcome within the wait is not kept, and one
// after a Detach is kept and read back.
func TestBeginEndLikeStart(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	r, ctx, ok := m.Begin(parent, "alice", "op.mine", 0)
	if !ok {
		t.Fatal("Begin refused with no cap")
	}
	cancelParent()
	if ctx.Err() != nil || ctx.Value(ctxKey{}) != "v" {
		t.Fatalf("the run's context must keep the parent's values but not its end: err=%v", ctx.Err())
	}
	got := make(chan runs.Progress, 1)
	if !runs.Report(ctx, 1, 2, "half") {
		t.Fatal("the run's context must carry the run")
	}
	if _, done := r.Wait(context.Background(), 50*time.Millisecond, func(p runs.Progress) {
		select {
		case got <- p:
		default:
		}
	}); done {
		t.Fatal("a run not yet ended reported done")
	}
	if p := <-got; p.Done != 1 || p.Total != 2 || p.Message != "half" {
		t.Fatalf("progress = %+v", p)
	}
	rec, _, finished := r.Detach()
	if finished || rec.State != runs.StateRunning {
		t.Fatalf("detached = %+v, finished %v", rec, finished)
	}
	r.End(runs.Outcome{Value: map[string]int{"n": 3}})
	if ctx.Err() == nil {
		t.Fatal("End must release the run's context")
	}
	final, err := m.Await(context.Background(), "alice", rec.ID, long, nil)
	if err != nil || final.State != runs.StateSucceeded || string(final.Result) != `{"n":3}` {
		t.Fatalf("await = %+v, %v", final, err)
	}

	fast, _, _ := m.Begin(context.Background(), "alice", "op.fast", 0)
	fast.End(runs.Outcome{Value: 1})
	if out, done := fast.Wait(context.Background(), long, nil); !done || out.Value != 1 {
		t.Fatalf("fast outcome = %+v, %v", out, done)
	}
	if recs, _ := m.List(context.Background(), "alice", nil, 0); len(recs) != 1 {
		t.Fatalf("only the detached run is kept: %+v", recs)
	}
}

// TestBeginCancel: Cancel reaches a begun run's context, and a failed
// outcome after it ends the run cancelled.
func TestBeginCancel(t *testing.T) {
	m := runs.NewManager(runs.Options{CancelWait: long})
	r, ctx, _ := m.Begin(context.Background(), "alice", "op.slow", 0)
	rec, _, _ := r.Detach()
	go func() {
		<-ctx.Done()
		r.End(runs.Outcome{Failed: true})
	}()
	got, err := m.Cancel(context.Background(), "alice", rec.ID)
	if err != nil || got.State != runs.StateCancelled {
		t.Fatalf("cancel = %+v, %v", got, err)
	}
}

// TestBeginHonoursMaxActive: Begin takes a slot or refuses; End gives it
// back, and a run Start left pending then starts.
func TestBeginHonoursMaxActive(t *testing.T) {
	m := runs.NewManager(runs.Options{MaxActive: 1})
	r, _, ok := m.Begin(context.Background(), "alice", "op.a", 0)
	if !ok {
		t.Fatal("the first Begin must get the free slot")
	}
	if _, _, ok := m.Begin(context.Background(), "alice", "op.b", 0); ok {
		t.Fatal("Begin past MaxActive must refuse")
	}
	g := newGate("done")
	pending := m.Start(context.Background(), "alice", "op.c", g.work)
	if rec, _, _ := pending.Detach(); rec.State != runs.StatePending {
		t.Fatalf("Start with no slot = %s, want pending", rec.State)
	}
	r.End(runs.Outcome{})
	select {
	case <-g.started:
	case <-time.After(long):
		t.Fatal("End did not free the slot")
	}
	close(g.release)
	if out, done := pending.Wait(context.Background(), long, nil); !done || out.Value != "done" {
		t.Fatalf("pending run = %+v, %v", out, done)
	}
}

// TestBeginTimeout: a positive timeout is the run context's deadline.
func TestBeginTimeout(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	r, ctx, _ := m.Begin(context.Background(), "alice", "op.t", 10*time.Millisecond)
	if _, ok := ctx.Deadline(); !ok {
		t.Fatal("no deadline")
	}
	<-ctx.Done()
	if ctx.Err() != context.DeadlineExceeded {
		t.Fatalf("err = %v", ctx.Err())
	}
	r.End(runs.Outcome{Failed: true})
	if out, done := r.Wait(context.Background(), long, nil); !done || !out.Failed {
		t.Fatalf("outcome = %+v, %v", out, done)
	}
	if rec := r.Record(); rec.State != runs.StateFailed {
		t.Fatalf("a run past its deadline is failed, not %s", rec.State)
	}
}

// A run from Begin counts towards MaxRuns until End, as one from Start
// does: Begin and TryStart refuse past the bound, and End frees it.
func TestBeginCountsTowardsMaxRuns(t *testing.T) {
	m := runs.NewManager(runs.Options{MaxRuns: 1})
	r, _, ok := m.Begin(context.Background(), "alice", "op.a", 0)
	if !ok {
		t.Fatal("the first Begin must start")
	}
	if _, _, ok := m.Begin(context.Background(), "alice", "op.b", 0); ok {
		t.Fatal("Begin past MaxRuns must refuse")
	}
	var full *runs.FullError
	if _, err := m.TryStart(context.Background(), "bob", "op.c", func(context.Context) runs.Outcome { return runs.Outcome{} }); !errors.As(err, &full) {
		t.Fatalf("TryStart past MaxRuns with a begun run: %v, want a FullError", err)
	}
	r.End(runs.Outcome{})
	r2, _, ok := m.Begin(context.Background(), "alice", "op.d", 0)
	if !ok {
		t.Fatal("End did not free the bound")
	}
	r2.End(runs.Outcome{})
}
