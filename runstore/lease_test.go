package runstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/redistest"
	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runstore"
)

// TestRedisLeaseMarksADeadReplicasRuns: a run executing on replica A stays
// running, read from B, for as long as A renews its lease; once A stops
// (its store closed: no heartbeat, as when the process dies), B marks the
// run interrupted after the lease lapses, instead of reporting it running
// until it expires.
func TestRedisLeaseMarksADeadReplicasRuns(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	const lease = 600 * time.Millisecond
	open := func() *runstore.Redis {
		r, err := runstore.OpenRedis(ctx, srv.URL(), runstore.RedisOptions{Lease: lease, Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	storeA, storeB := open(), open()
	defer storeB.Close()
	a := runs.NewManager(runs.Options{Store: storeA})
	b := runs.NewManager(runs.Options{Store: storeB})

	release := make(chan struct{})
	defer close(release)
	r := a.Start(ctx, "alice", "tests.export", func(ctx context.Context) runs.Outcome {
		<-release
		return runs.Outcome{Value: "too late"}
	})
	rec, _, _ := r.Detach()

	// Several leases pass while A renews: the run stays running.
	time.Sleep(4 * lease)
	if got, err := b.Get(ctx, "alice", rec.ID); err != nil || got.State != runs.StateRunning {
		t.Fatalf("B reads A's live run after 4 leases: %+v, %v", got, err)
	}

	storeA.Close() // A is gone
	got, err := b.Await(ctx, "alice", rec.ID, 20*time.Second, nil)
	if err != nil || got.State != runs.StateInterrupted || got.FinishedAt.IsZero() || got.Operation != "tests.export" {
		t.Fatalf("B awaits the run of a replica that died: %+v, %v", got, err)
	}
	if !got.ExpiresAt.After(time.Now().Add(50 * time.Minute)) {
		t.Fatalf("the interrupted run expires at %s, want the retention (1h) from now", got.ExpiresAt)
	}
	list, err := b.List(ctx, "alice", []runs.State{runs.StateInterrupted}, 0)
	if err != nil || len(list) != 1 || list[0].ID != rec.ID {
		t.Fatalf("B lists interrupted runs: %+v, %v", list, err)
	}
	// Another principal still cannot see it.
	if _, err := b.Get(ctx, "bob", rec.ID); err == nil {
		t.Fatal("bob reads alice's interrupted run")
	}
}

// A run finished by its replica loses its lease: nothing marks it later.
func TestRedisLeaseEndsWithTheRun(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	s, err := runstore.OpenRedis(ctx, srv.URL(), runstore.RedisOptions{Lease: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := runs.NewManager(runs.Options{Store: s})
	release := make(chan struct{})
	r := m.Start(ctx, "alice", "tests.op", func(context.Context) runs.Outcome { <-release; return runs.Outcome{Value: 1} })
	rec, _, _ := r.Detach()
	close(release)
	if got, _ := m.Await(ctx, "alice", rec.ID, time.Minute, nil); got.State != runs.StateSucceeded {
		t.Fatalf("run = %+v", got)
	}
	time.Sleep(time.Second)
	if got, err := s.Load(ctx, "alice", rec.ID); err != nil || got.State != runs.StateSucceeded || string(got.Result) != "1" {
		t.Fatalf("the finished run after its lease would have lapsed: %+v, %v", got, err)
	}
}
