package runstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/redistest"
	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runs/runstest"
	"github.com/intentsrv/intentsrv/runstore"
)

func openBolt(t *testing.T, path string, o runstore.BoltOptions) *runstore.Bolt {
	t.Helper()
	b, err := runstore.OpenBolt(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBoltContract(t *testing.T) {
	runstest.Run(t, func(t *testing.T, now func() time.Time) runs.Store {
		return openBolt(t, filepath.Join(t.TempDir(), "runs.db"), runstore.BoltOptions{Now: now})
	})
}

// TestBoltRestart: a finished run's result is readable by its principal
// after the store is reopened; a run still executing when the process
// ended reads interrupted, finished at the reopening, kept for the
// retention period, and never lost.
func TestBoltRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	b, err := runstore.OpenBolt(path, runstore.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := runs.NewManager(runs.Options{Store: b})
	handedOver := make(chan struct{})
	finished := m.Start(ctx, "alice", "tests.quick", func(context.Context) runs.Outcome {
		<-handedOver
		return runs.Outcome{Value: map[string]int{"rows": 42}}
	})
	release := make(chan struct{})
	defer close(release)
	reported := make(chan struct{})
	stuck := m.Start(ctx, "alice", "tests.slow", func(ctx context.Context) runs.Outcome {
		runs.Report(ctx, 3, 7, "crawling")
		close(reported)
		<-release
		return runs.Outcome{}
	})
	doneRec, _, _ := finished.Detach()
	close(handedOver)
	finished.Wait(ctx, time.Minute, nil)
	// Hand the slow run over only once it has reported: the hand-over saves
	// its progress, while reports after it are saved at most once a
	// second, so a run that reports late would read no progress here.
	<-reported
	stuckRec, _, _ := stuck.Detach()
	// The process "dies": the store is closed without the Manager closing.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2 := openBolt(t, path, runstore.BoltOptions{Retention: 10 * time.Minute})
	if b2.Interrupted() != 1 {
		t.Fatalf("marked %d runs interrupted, want 1", b2.Interrupted())
	}
	got, err := b2.Load(ctx, "alice", doneRec.ID)
	if err != nil || got.State != runs.StateSucceeded || string(got.Result) != `{"rows":42}` {
		t.Fatalf("the finished run after a restart: %+v, %v", got, err)
	}
	if _, err := b2.Load(ctx, "bob", doneRec.ID); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("another principal reads it after a restart: %v", err)
	}
	got, err = b2.Load(ctx, "alice", stuckRec.ID)
	if err != nil || got.State != runs.StateInterrupted || got.FinishedAt.IsZero() || got.Progress == nil || got.Progress.Done != 3 {
		t.Fatalf("the run executing at the restart: %+v, %v", got, err)
	}
	if left := time.Until(got.ExpiresAt); left < 9*time.Minute || left > 10*time.Minute {
		t.Fatalf("the interrupted run expires in %s, want the retention (10m)", left)
	}
	l, err := b2.List(ctx, "alice", []runs.State{runs.StateInterrupted}, 0)
	if err != nil || len(l) != 1 || l[0].ID != stuckRec.ID {
		t.Fatalf("runs.list interrupted: %+v, %v", l, err)
	}
}

// TestBoltLocked: a second process cannot open the file.
func TestBoltLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	openBolt(t, path, runstore.BoltOptions{})
	if _, err := runstore.OpenBolt(path, runstore.BoltOptions{}); !errors.Is(err, runstore.ErrLocked) {
		t.Fatalf("a second open: %v, want ErrLocked", err)
	}
}

func finishedRecord(c *runstest.Clock, id string, result int) runs.Record {
	r := runs.Record{ID: id, Principal: "alice", Operation: "tests.op", State: runs.StateSucceeded,
		StartedAt: c.Now(), FinishedAt: c.Now(), ExpiresAt: c.Now().Add(time.Hour)}
	if result > 0 {
		r.Result = json.RawMessage(`"` + strings.Repeat("x", result-2) + `"`)
	}
	c.Add(time.Second)
	return r
}

// TestBoltCaps: past the byte cap the oldest results are dropped, past the
// record cap the oldest records forgotten, as in the memory store; the
// counts survive a reopening.
func TestBoltCaps(t *testing.T) {
	ctx := context.Background()
	c := runstest.NewClock()
	path := filepath.Join(t.TempDir(), "runs.db")
	b, err := runstore.OpenBolt(path, runstore.BoltOptions{MaxResultBytes: 1000, MaxRecords: 20, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := b.Save(ctx, finishedRecord(c, fmt.Sprint("run_", i), 200)); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for i := range 10 {
		rec, err := b.Load(ctx, "alice", fmt.Sprint("run_", i))
		if err != nil {
			t.Fatal(err)
		}
		if rec.ResultDropped != (rec.Result == nil) {
			t.Fatalf("run_%d: dropped=%v result=%d bytes", i, rec.ResultDropped, len(rec.Result))
		}
		if rec.Result != nil {
			kept++
		} else if kept > 0 {
			t.Fatalf("run_%d lost its result while an older one kept its own", i)
		}
	}
	if kept*200 > 1000 || kept == 0 {
		t.Fatalf("%d results of 200 B kept under a 1000 B cap", kept)
	}
	b.Close()
	b = openBolt(t, path, runstore.BoltOptions{MaxResultBytes: 1000, MaxRecords: 20, Now: c.Now})
	for i := 10; i < 30; i++ {
		if err := b.Save(ctx, finishedRecord(c, fmt.Sprint("run_", i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := b.List(ctx, "alice", nil, 0)
	if len(l) > 20 || len(l) < 18 {
		t.Fatalf("%d records kept under a cap of 20", len(l))
	}
	if _, err := b.Load(ctx, "alice", "run_29"); err != nil {
		t.Fatalf("the newest record was dropped: %v", err)
	}
	if _, err := b.Load(ctx, "alice", "run_0"); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("the oldest record survived the cap: %v", err)
	}
}

func openRedis(t *testing.T, url string, now func() time.Time) *runstore.Redis {
	t.Helper()
	r, err := runstore.OpenRedis(context.Background(), url, runstore.RedisOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRedisContract(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	runstest.Run(t, func(t *testing.T, now func() time.Time) runs.Store {
		n++ // each check gets its own key space
		return openRedis(t, fmt.Sprintf("%s?prefix=contract%d:", srv.URL(), n), now)
	})
}

// TestRedisExpiresByTTL: the server forgets a record by itself at its
// expiry.
func TestRedisExpiresByTTL(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	s := openRedis(t, srv.URL(), nil)
	now := time.Now()
	rec := runs.Record{ID: "run_ttl", Principal: "alice", State: runs.StateSucceeded, StartedAt: now, FinishedAt: now, ExpiresAt: now.Add(300 * time.Millisecond)}
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "alice", "run_ttl"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	// Read the key space itself, not through Load's clock check.
	other := openRedis(t, srv.URL(), func() time.Time { return now })
	if _, err := other.Load(ctx, "alice", "run_ttl"); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("the key outlived its TTL: %v", err)
	}
}

// TestRedisReplicas: two Managers on one Redis. A run started on A is
// read and awaited from B by the same principal, unknown to another; a
// cancel asked of B reaches A's work.
func TestRedisReplicas(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a := runs.NewManager(runs.Options{Store: openRedis(t, srv.URL(), nil)})
	b := runs.NewManager(runs.Options{Store: openRedis(t, srv.URL(), nil), CancelWait: 5 * time.Second})
	defer a.Close(ctx)

	release := make(chan struct{})
	r := a.Start(ctx, "alice", "tests.export", func(ctx context.Context) runs.Outcome {
		select {
		case <-release:
			return runs.Outcome{Value: "exported"}
		case <-ctx.Done():
			return runs.Outcome{Failed: true}
		}
	})
	rec, _, _ := r.Detach()
	if got, err := b.Get(ctx, "alice", rec.ID); err != nil || got.State != runs.StateRunning {
		t.Fatalf("B reads A's run: %+v, %v", got, err)
	}
	if _, err := b.Get(ctx, "bob", rec.ID); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("bob reads alice's run on B: %v", err)
	}
	go func() { time.Sleep(300 * time.Millisecond); close(release) }()
	got, err := b.Await(ctx, "alice", rec.ID, 10*time.Second, nil)
	if err != nil || got.State != runs.StateSucceeded || string(got.Result) != `"exported"` {
		t.Fatalf("B awaits A's run: %+v, %v", got, err)
	}

	seen := make(chan struct{})
	r2 := a.Start(ctx, "alice", "tests.crawl", func(ctx context.Context) runs.Outcome {
		<-ctx.Done()
		close(seen)
		return runs.Outcome{Failed: true}
	})
	rec2, _, _ := r2.Detach()
	if _, err := b.Cancel(ctx, "bob", rec2.ID); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("bob cancels alice's run: %v", err)
	}
	got, err = b.Cancel(ctx, "alice", rec2.ID)
	if err != nil {
		t.Fatalf("B cancels A's run: %v", err)
	}
	select {
	case <-seen:
	case <-time.After(5 * time.Second):
		t.Fatal("A's work never saw the cancel asked of B")
	}
	if got.State != runs.StateCancelled || !got.CancelRequested {
		t.Fatalf("B's cancel answers %+v, want the cancelled record", got)
	}
}

// TestRedisConcurrentRuns: 100 runs at once on two replicas, each awaited
// from the other; run with -race.
func TestRedisConcurrentRuns(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a := runs.NewManager(runs.Options{Store: openRedis(t, srv.URL(), nil)})
	b := runs.NewManager(runs.Options{Store: openRedis(t, srv.URL(), nil)})
	defer a.Close(ctx)
	defer b.Close(ctx)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			here, there := a, b
			if i%2 == 1 {
				here, there = b, a
			}
			p := fmt.Sprint("p", i%7)
			start := make(chan struct{})
			r := here.Start(ctx, p, "tests.op", func(ctx context.Context) runs.Outcome {
				<-start
				for step := range 3 {
					runs.Report(ctx, float64(step), 3, "working")
				}
				return runs.Outcome{Value: i}
			})
			rec, _, _ := r.Detach()
			close(start)
			got, err := there.Await(ctx, p, rec.ID, 20*time.Second, nil)
			if err != nil || got.State != runs.StateSucceeded || string(got.Result) != fmt.Sprint(i) {
				t.Errorf("run %d awaited from the other replica: %+v, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
	for p := range 7 {
		l, err := a.List(ctx, fmt.Sprint("p", p), []runs.State{runs.StateSucceeded}, 0)
		want := 100 / 7
		if p < 100%7 {
			want++
		}
		if err != nil || len(l) != want {
			t.Fatalf("p%d lists %d succeeded runs, want %d (%v)", p, len(l), want, err)
		}
	}
}
