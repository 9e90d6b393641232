package runs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// handOver starts work as a run of alice's and hands it over.
func handOver(t *testing.T, m *runs.Manager, op string, work runs.Work) runs.Record {
	t.Helper()
	r := m.Start(context.Background(), "alice", op, work)
	rec, _, finished := r.Detach()
	if finished {
		t.Fatalf("%s finished before it was handed over", op)
	}
	return rec
}

// Close, as a server shutting down: a run whose work stops on cancellation
// ends interrupted, with its record saved before Close returns; one whose
// work succeeds anyway keeps its result; a finished run is left alone.
func TestCloseInterruptsRunningRuns(t *testing.T) {
	store := runs.NewMemoryStore(runs.MemoryOptions{})
	m := runs.NewManager(runs.Options{Store: store})
	cut := newGate("partial")
	cutRec := handOver(t, m, "op.cut", cut.work)
	<-cut.started
	stubborn := make(chan struct{})
	stubbornRec := handOver(t, m, "op.stubborn", func(ctx context.Context) runs.Outcome {
		close(stubborn)
		<-ctx.Done()
		return runs.Outcome{Value: "finished anyway"}
	})
	<-stubborn
	done := newGate(1)
	doneRec := handOver(t, m, "op.done", done.work)
	close(done.release)
	if rec, _ := m.Await(context.Background(), "alice", doneRec.ID, long, nil); rec.State != runs.StateSucceeded {
		t.Fatalf("op.done = %+v", rec)
	}

	ctx, cancel := context.WithTimeout(context.Background(), long)
	defer cancel()
	ended, stuck := m.Close(ctx)
	if ended != 2 || stuck != 0 {
		t.Fatalf("Close ended %d, stuck %d; want 2, 0", ended, stuck)
	}
	// Read from the store itself: what a restarted server would see.
	for id, want := range map[string]runs.State{cutRec.ID: runs.StateInterrupted, stubbornRec.ID: runs.StateSucceeded, doneRec.ID: runs.StateSucceeded} {
		rec, err := store.Load(context.Background(), "alice", id)
		if err != nil || rec.State != want || rec.FinishedAt.IsZero() {
			t.Fatalf("%s in the store: %+v, %v; want %s", rec.Operation, rec, err, want)
		}
	}
	if rec, _ := store.Load(context.Background(), "alice", stubbornRec.ID); string(rec.Result) != `"finished anyway"` {
		t.Fatalf("the run that succeeded while closing lost its result: %+v", rec)
	}

	// A run handed over after Close ends at once, interrupted.
	late := newGate(2)
	lateRec := handOver(t, m, "op.late", late.work)
	rec, err := m.Await(context.Background(), "alice", lateRec.ID, long, nil)
	if err != nil || rec.State != runs.StateInterrupted {
		t.Fatalf("a run handed over after Close: %+v, %v", rec, err)
	}
}

// Work that ignores cancellation does not hold Close past its context: the
// run is saved interrupted as it stands, and counted stuck.
func TestCloseGivesUpOnWorkThatDoesNotStop(t *testing.T) {
	store := runs.NewMemoryStore(runs.MemoryOptions{})
	m := runs.NewManager(runs.Options{Store: store})
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	rec := handOver(t, m, "op.deaf", func(context.Context) runs.Outcome {
		close(started)
		<-release
		return runs.Outcome{Value: "too late"}
	})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ended, stuck := m.Close(ctx); ended != 0 || stuck != 1 {
		t.Fatalf("Close ended %d, stuck %d; want 0, 1", ended, stuck)
	}
	got, err := store.Load(context.Background(), "alice", rec.ID)
	if err != nil || got.State != runs.StateInterrupted || got.FinishedAt.IsZero() {
		t.Fatalf("the stuck run in the store: %+v, %v", got, err)
	}
}

// MaxRuns bounds the runs under way, handed over or not: TryStart refuses
// one more with a FullError and starts nothing; a slot frees when a run
// finishes. Start itself never refuses.
func TestMaxRuns(t *testing.T) {
	m := runs.NewManager(runs.Options{MaxRuns: 2})
	a, b := newGate(1), newGate(2)
	ra, err := m.TryStart(context.Background(), "alice", "op.a", a.work)
	if err != nil {
		t.Fatal(err)
	}
	ra.Detach()
	if _, err := m.TryStart(context.Background(), "bob", "op.b", b.work); err != nil {
		t.Fatal(err) // not handed over: it counts all the same
	}
	ran := false
	_, err = m.TryStart(context.Background(), "carol", "op.c", func(context.Context) runs.Outcome { ran = true; return runs.Outcome{} })
	var full *runs.FullError
	if !errors.As(err, &full) || full.Max != 2 {
		t.Fatalf("third run: %v, want a FullError of 2", err)
	}
	close(a.release)
	if rec, _ := m.Await(context.Background(), "alice", ra.ID(), long, nil); rec.State != runs.StateSucceeded {
		t.Fatalf("op.a = %+v", rec)
	}
	r, err := m.TryStart(context.Background(), "carol", "op.c", func(context.Context) runs.Outcome { ran = true; return runs.Outcome{} })
	if err != nil {
		t.Fatalf("after a run finished: %v", err)
	}
	if _, done := r.Wait(context.Background(), long, nil); !done || !ran {
		t.Fatal("the admitted run did not run")
	}
	close(b.release)
}
