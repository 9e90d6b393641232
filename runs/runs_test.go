package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runs/runstest"
)

// gate is work that blocks until released or cancelled, and records what
// it saw.
type gate struct {
	release   chan struct{}
	started   chan struct{}
	cancelled chan struct{}
	value     any
}

func newGate(value any) *gate {
	return &gate{release: make(chan struct{}), started: make(chan struct{}), cancelled: make(chan struct{}), value: value}
}

func (g *gate) work(ctx context.Context) runs.Outcome {
	close(g.started)
	select {
	case <-g.release:
		return runs.Outcome{Value: g.value}
	case <-ctx.Done():
		close(g.cancelled)
		return runs.Outcome{Failed: true, Value: "cancelled"}
	}
}

// long is a wait that only a broken run would exhaust.
const long = time.Minute

func TestFastRunIsNotKept(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	r := m.Start(context.Background(), "alice", "op.fast", func(context.Context) runs.Outcome { return runs.Outcome{Value: 42} })
	out, done := r.Wait(context.Background(), long, nil)
	if !done || out.Value != 42 || out.Failed {
		t.Fatalf("outcome = %+v, done = %v", out, done)
	}
	if _, _, finished := r.Detach(); !finished {
		t.Fatal("Detach of a finished run must hand back its outcome, not keep it")
	}
	if recs, _ := m.List(context.Background(), "alice", nil, 0); len(recs) != 0 {
		t.Fatalf("a run that finished within its wait was kept: %+v", recs)
	}
	if _, err := m.Get(context.Background(), "alice", r.ID()); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("Get = %v, want runs.ErrUnknownRun", err)
	}
}

func TestDetachedRunAwaitsItsResult(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	g := newGate(map[string]int{"rows": 7})
	r := m.Start(context.Background(), "alice", "op.slow", g.work)
	<-g.started
	if _, done := r.Wait(context.Background(), 0, nil); done {
		t.Fatal("a blocked run reported done")
	}
	rec, _, finished := r.Detach()
	if finished || rec.State != runs.StateRunning || rec.Operation != "op.slow" || !strings.HasPrefix(rec.ID, "run_") || len(rec.ID) != 26 {
		t.Fatalf("handle = %+v finished=%v", rec, finished)
	}
	got, err := m.Get(context.Background(), "alice", rec.ID)
	if err != nil || got.State != runs.StateRunning {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if again, _, _ := r.Detach(); again.ID != rec.ID {
		t.Fatalf("a second Detach made another run: %s, then %s", rec.ID, again.ID)
	}
	if l, _ := m.List(context.Background(), "alice", nil, 0); len(l) != 1 {
		t.Fatalf("after two Detach calls, %d runs", len(l))
	}
	// A short await returns the running record.
	if got, _ = m.Await(context.Background(), "alice", rec.ID, time.Millisecond, nil); got.State != runs.StateRunning {
		t.Fatalf("short await: %+v", got)
	}
	close(g.release)
	got, err = m.Await(context.Background(), "alice", rec.ID, long, nil)
	if err != nil || got.State != runs.StateSucceeded || string(got.Result) != `{"rows":7}` || got.FinishedAt.IsZero() {
		t.Fatalf("Await = %+v, %v", got, err)
	}
	// Once finished, it is read from the store.
	got, err = m.Get(context.Background(), "alice", rec.ID)
	if err != nil || got.State != runs.StateSucceeded || string(got.Result) != `{"rows":7}` {
		t.Fatalf("Get after finish = %+v, %v", got, err)
	}
}

func TestRunOutlivesItsStartersContext(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	g := newGate("done")
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "kept"))
	var sawValue any
	r := m.Start(parent, "alice", "op", func(ctx context.Context) runs.Outcome {
		sawValue = ctx.Value(ctxKey{})
		return g.work(ctx)
	})
	<-g.started
	r.Wait(parent, 0, nil)
	rec, _, _ := r.Detach()
	cancelParent() // the client went away
	close(g.release)
	got, _ := m.Await(context.Background(), "alice", rec.ID, long, nil)
	if got.State != runs.StateSucceeded || sawValue != "kept" {
		t.Fatalf("state %s, value %v: the run must keep the starter's values and ignore its cancellation", got.State, sawValue)
	}
	select {
	case <-g.cancelled:
		t.Fatal("the work saw the starter's cancellation")
	default:
	}
}

type ctxKey struct{}

func TestProgress(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	step := make(chan struct{})
	r := m.Start(context.Background(), "alice", "op", func(ctx context.Context) runs.Outcome {
		for i := 1; i <= 3; i++ {
			<-step
			runs.Report(ctx, float64(i), 3, fmt.Sprintf("page %d", i))
		}
		<-step
		return runs.Outcome{Value: "ok"}
	})
	var mu sync.Mutex
	var seen []runs.Progress
	notify := func(p runs.Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
	step <- struct{}{}
	waitFor(t, func() bool { return r.Record().Progress != nil })
	rec, _, _ := r.Detach()
	if rec.Progress == nil || rec.Progress.String() != "step 1 of 3: page 1" {
		t.Fatalf("handle progress = %+v", rec.Progress)
	}
	awaited := make(chan runs.Record)
	go func() {
		got, _ := m.Await(context.Background(), "alice", rec.ID, long, notify)
		awaited <- got
	}()
	// The awaiting caller gets the last report at once, then the new ones.
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 1 })
	step <- struct{}{}
	step <- struct{}{}
	step <- struct{}{}
	got := <-awaited
	if got.State != runs.StateSucceeded || got.Progress.Done != 3 {
		t.Fatalf("final = %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []float64{1, 2, 3}
	if len(seen) != 3 {
		t.Fatalf("notified %+v, want progress 1, 2, 3", seen)
	}
	for i, p := range seen {
		if p.Done != want[i] || p.Total != 3 {
			t.Fatalf("notified %+v, want progress 1, 2, 3", seen)
		}
	}
	if runs.Report(context.Background(), 1, 2, "x") {
		t.Fatal("Report outside a run must report false")
	}
}

// waitFor polls cond: a condition another goroutine makes true, never a
// timing claim.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(long)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never became true")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLongProgressMessagesAreCut(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	r := m.Start(context.Background(), "alice", "op", func(ctx context.Context) runs.Outcome {
		runs.Report(ctx, 1, 0, strings.Repeat("é", 300))
		return runs.Outcome{Value: 1}
	})
	r.Wait(context.Background(), long, nil)
	msg := r.Record().Progress.Message
	if n := utf8.RuneCountInString(msg); n != 200 || !strings.HasSuffix(msg, "…") {
		t.Fatalf("message of %d runes: %q", n, msg)
	}
}

func TestCancelAtEachStage(t *testing.T) {
	ctx := context.Background()
	t.Run("pending", func(t *testing.T) {
		m := runs.NewManager(runs.Options{MaxActive: 1})
		first := newGate("first")
		r1 := m.Start(ctx, "alice", "op", first.work)
		<-first.started
		ran := make(chan struct{}, 1)
		r2 := m.Start(ctx, "alice", "op", func(context.Context) runs.Outcome { ran <- struct{}{}; return runs.Outcome{Value: "second"} })
		rec, _, _ := r2.Detach()
		if rec.State != runs.StatePending {
			t.Fatalf("second run = %s, want pending behind MaxActive 1", rec.State)
		}
		if got, err := m.Cancel(ctx, "alice", rec.ID); err != nil || !got.CancelRequested {
			t.Fatalf("Cancel = %+v, %v", got, err)
		}
		got, _ := m.Await(ctx, "alice", rec.ID, long, nil)
		if got.State != runs.StateCancelled || got.Result != nil {
			t.Fatalf("after cancel: %+v", got)
		}
		close(first.release)
		if out, _ := r1.Wait(ctx, long, nil); out.Value != "first" {
			t.Fatalf("first = %+v", out)
		}
		select {
		case <-ran:
			t.Fatal("a run cancelled while pending started its work")
		default:
		}
	})
	t.Run("running", func(t *testing.T) {
		m := runs.NewManager(runs.Options{})
		g := newGate("never")
		r := m.Start(ctx, "alice", "op", g.work)
		<-g.started
		rec, _, _ := r.Detach()
		if _, err := m.Cancel(ctx, "alice", rec.ID); err != nil {
			t.Fatal(err)
		}
		<-g.cancelled // the work's context was cancelled
		got, _ := m.Await(ctx, "alice", rec.ID, long, nil)
		if got.State != runs.StateCancelled || !got.CancelRequested || string(got.Result) != `"cancelled"` {
			t.Fatalf("after cancel: %+v", got)
		}
	})
	t.Run("finished", func(t *testing.T) {
		m := runs.NewManager(runs.Options{})
		g := newGate("kept")
		r := m.Start(ctx, "alice", "op", g.work)
		<-g.started
		rec, _, _ := r.Detach()
		close(g.release)
		m.Await(ctx, "alice", rec.ID, long, nil)
		got, err := m.Cancel(ctx, "alice", rec.ID)
		if err != nil || got.State != runs.StateSucceeded || string(got.Result) != `"kept"` || got.CancelRequested {
			t.Fatalf("cancel of a finished run changed it: %+v, %v", got, err)
		}
	})
	t.Run("work that succeeds despite the request", func(t *testing.T) {
		m := runs.NewManager(runs.Options{CancelWait: time.Nanosecond})
		release := make(chan struct{})
		started := make(chan struct{})
		r := m.Start(ctx, "alice", "op", func(context.Context) runs.Outcome {
			close(started)
			<-release // ignores its context
			return runs.Outcome{Value: "done anyway"}
		})
		<-started
		rec, _, _ := r.Detach()
		m.Cancel(ctx, "alice", rec.ID)
		close(release)
		got, _ := m.Await(ctx, "alice", rec.ID, long, nil)
		if got.State != runs.StateSucceeded || !got.CancelRequested {
			t.Fatalf("a run that finished its work must not claim to be cancelled: %+v", got)
		}
	})
}

func TestPrincipalsAreIsolated(t *testing.T) {
	ctx := context.Background()
	m := runs.NewManager(runs.Options{})
	g := newGate("secret")
	r := m.Start(ctx, "alice", "op", g.work)
	<-g.started
	rec, _, _ := r.Detach()

	check := func(stage string) {
		t.Helper()
		_, errOther := m.Get(ctx, "mallory", rec.ID)
		_, errNone := m.Get(ctx, "mallory", "run_AAAAAAAAAAAAAAAAAAAAAA")
		if !errors.Is(errOther, runs.ErrUnknownRun) || errOther.Error() != errNone.Error() {
			t.Fatalf("%s: another principal's run gave %v, a missing one %v: they must not differ", stage, errOther, errNone)
		}
		if _, err := m.Await(ctx, "mallory", rec.ID, time.Millisecond, nil); !errors.Is(err, runs.ErrUnknownRun) {
			t.Fatalf("%s: Await by another principal = %v", stage, err)
		}
		if _, err := m.Cancel(ctx, "mallory", rec.ID); !errors.Is(err, runs.ErrUnknownRun) {
			t.Fatalf("%s: Cancel by another principal = %v", stage, err)
		}
		if recs, _ := m.List(ctx, "mallory", nil, 0); len(recs) != 0 {
			t.Fatalf("%s: another principal lists %+v", stage, recs)
		}
	}
	check("running")
	if got, _ := m.Get(ctx, "alice", rec.ID); got.State != runs.StateRunning {
		t.Fatal("mallory's cancel reached alice's run")
	}
	close(g.release)
	m.Await(ctx, "alice", rec.ID, long, nil)
	check("finished")
}

func TestRetentionExpiry(t *testing.T) {
	ctx := context.Background()
	c := runstest.NewClock()
	m := runs.NewManager(runs.Options{Now: c.Now, Retention: time.Hour})
	g := newGate("result")
	r := m.Start(ctx, "alice", "op", g.work)
	<-g.started
	rec, _, _ := r.Detach()
	c.Add(3 * time.Hour) // a long run is kept while it runs, however long
	close(g.release)
	got, err := m.Await(ctx, "alice", rec.ID, long, nil)
	if err != nil || got.State != runs.StateSucceeded || !got.ExpiresAt.Equal(c.Now().Add(time.Hour)) {
		t.Fatalf("finished = %+v, %v", got, err)
	}
	c.Add(time.Hour - time.Second)
	if _, err := m.Get(ctx, "alice", rec.ID); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	c.Add(time.Second)
	if _, err := m.Get(ctx, "alice", rec.ID); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatalf("at expiry: %v, want runs.ErrUnknownRun", err)
	}
	if recs, _ := m.List(ctx, "alice", nil, 0); len(recs) != 0 {
		t.Fatalf("expired runs listed: %+v", recs)
	}
}

func TestMemoryStoreCaps(t *testing.T) {
	ctx := context.Background()
	c := runstest.NewClock()
	s := runs.NewMemoryStore(runs.MemoryOptions{MaxResultBytes: 100, MaxRecords: 10, Now: c.Now})
	save := func(id string, result string) {
		c.Add(time.Second)
		rec := runs.Record{ID: id, Principal: "p", State: runs.StateSucceeded, StartedAt: c.Now(), FinishedAt: c.Now(), ExpiresAt: c.Now().Add(time.Hour)}
		if result != "" {
			rec.Result = json.RawMessage(result)
		}
		if err := s.Save(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	thirty := `"` + strings.Repeat("x", 28) + `"`
	save("a", thirty)
	save("b", thirty)
	save("c", thirty)
	save("d", thirty) // 120 bytes: the oldest results go until at most 90 remain
	for id, dropped := range map[string]bool{"a": true, "b": false, "c": false, "d": false} {
		rec, err := s.Load(ctx, "p", id)
		if err != nil || rec.ResultDropped != dropped || (rec.Result == nil) != dropped {
			t.Fatalf("%s: %+v, %v; want dropped=%v", id, rec, err, dropped)
		}
	}
	save("huge", `"`+strings.Repeat("y", 200)+`"`)
	if rec, _ := s.Load(ctx, "p", "huge"); !rec.ResultDropped || rec.State != runs.StateSucceeded {
		t.Fatalf("a result over the whole cap must be dropped, its record kept: %+v", rec)
	}
	for i := range 8 {
		save(fmt.Sprint("n", i), "")
	}
	recs, _ := s.List(ctx, "p", nil, 0)
	if len(recs) > 10 || len(recs) < 9 {
		t.Fatalf("kept %d records with MaxRecords 10", len(recs))
	}
	if _, err := s.Load(ctx, "p", "a"); !errors.Is(err, runs.ErrUnknownRun) {
		t.Fatal("the oldest record must be the first forgotten")
	}
	if recs[0].ID != "n7" {
		t.Fatalf("List is not newest first: %s", recs[0].ID)
	}
}

// TestMemoryStoreCapsOnATiedClock: records that finished at the same
// instant (a coarse clock) are forgotten in one order, by id, so the
// same history keeps the same records on every run.
func TestMemoryStoreCapsOnATiedClock(t *testing.T) {
	ctx := context.Background()
	var first []string
	for trial := range 20 {
		c := runstest.NewClock()
		s := runs.NewMemoryStore(runs.MemoryOptions{MaxRecords: 10, Now: c.Now})
		for i := range 11 {
			rec := runs.Record{ID: fmt.Sprintf("r%02d", i), Principal: "p", State: runs.StateSucceeded, StartedAt: c.Now(), FinishedAt: c.Now(), ExpiresAt: c.Now().Add(time.Hour)}
			if err := s.Save(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		recs, _ := s.List(ctx, "p", nil, 0)
		var kept []string
		for _, r := range recs {
			kept = append(kept, r.ID)
		}
		slices.Sort(kept)
		if trial == 0 {
			first = kept
			if _, err := s.Load(ctx, "p", "r00"); !errors.Is(err, runs.ErrUnknownRun) {
				t.Fatalf("kept %v: the first id of a tie must be the first forgotten", kept)
			}
		} else if !slices.Equal(kept, first) {
			t.Fatalf("trial %d kept %v, trial 0 kept %v", trial, kept, first)
		}
	}
}

func TestListFiltersByState(t *testing.T) {
	ctx := context.Background()
	m := runs.NewManager(runs.Options{})
	running := newGate(nil)
	r := m.Start(ctx, "alice", "op.running", running.work)
	<-running.started
	runningRec, _, _ := r.Detach()
	done := newGate("x")
	r = m.Start(ctx, "alice", "op.done", done.work)
	<-done.started
	doneRec, _, _ := r.Detach()
	close(done.release)
	m.Await(ctx, "alice", doneRec.ID, long, nil)

	for _, tc := range []struct {
		states []runs.State
		want   []string
	}{
		{[]runs.State{runs.StateRunning}, []string{runningRec.ID}},
		{[]runs.State{runs.StateSucceeded}, []string{doneRec.ID}},
		{[]runs.State{runs.StateFailed, runs.StateCancelled}, nil},
	} {
		recs, err := m.List(ctx, "alice", tc.states, 0)
		if err != nil || len(recs) != len(tc.want) {
			t.Fatalf("%v: %+v, %v", tc.states, recs, err)
		}
		for i := range recs {
			if recs[i].ID != tc.want[i] {
				t.Fatalf("%v: %+v", tc.states, recs)
			}
		}
	}
	if recs, _ := m.List(ctx, "alice", nil, 1); len(recs) != 1 {
		t.Fatalf("limit 1 gave %d", len(recs))
	}
	close(running.release)
}

// TestSharedStore is two processes sharing one store (as replicas share
// Redis): the one that does not execute a run can await it, and says so
// when asked to cancel it.
func TestSharedStore(t *testing.T) {
	ctx := context.Background()
	store := runs.NewMemoryStore(runs.MemoryOptions{})
	a := runs.NewManager(runs.Options{Store: store})
	b := runs.NewManager(runs.Options{Store: store})
	g := newGate("from a")
	r := a.Start(ctx, "alice", "op", g.work)
	<-g.started
	rec, _, _ := r.Detach()
	if got, err := b.Get(ctx, "alice", rec.ID); err != nil || got.State != runs.StateRunning {
		t.Fatalf("b.Get = %+v, %v", got, err)
	}
	if _, err := b.Cancel(ctx, "alice", rec.ID); !errors.Is(err, runs.ErrElsewhere) {
		t.Fatalf("b.Cancel = %v, want runs.ErrElsewhere", err)
	}
	awaited := make(chan runs.Record)
	go func() {
		got, _ := b.Await(ctx, "alice", rec.ID, long, nil)
		awaited <- got
	}()
	close(g.release)
	if got := <-awaited; got.State != runs.StateSucceeded || string(got.Result) != `"from a"` {
		t.Fatalf("b.Await = %+v", got)
	}
}

func TestPanickingWorkFails(t *testing.T) {
	m := runs.NewManager(runs.Options{})
	r := m.Start(context.Background(), "alice", "op", func(context.Context) runs.Outcome { panic("boom") })
	out, done := r.Wait(context.Background(), long, nil)
	if !done || !out.Failed || out.Value != nil {
		t.Fatalf("outcome = %+v", out)
	}
}

// TestManyConcurrentRuns starts 100 runs at once, hands half of them over,
// reports progress from all, and reads them from many goroutines: run it
// with -race.
func TestManyConcurrentRuns(t *testing.T) {
	ctx := context.Background()
	m := runs.NewManager(runs.Options{})
	const n = 100
	release := make(chan struct{})
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			principal := fmt.Sprint("p", i%4)
			r := m.Start(ctx, principal, "op", func(ctx context.Context) runs.Outcome {
				for s := range 5 {
					runs.Report(ctx, float64(s), 5, "")
				}
				<-release
				return runs.Outcome{Value: i}
			})
			if i%2 == 0 {
				if out, done := r.Wait(ctx, long, func(runs.Progress) {}); !done || out.Value != i {
					t.Errorf("run %d: %+v", i, out)
				}
				return
			}
			r.Wait(ctx, 0, nil)
			rec, out, finished := r.Detach()
			if finished {
				if out.Value != i {
					t.Errorf("run %d: %+v", i, out)
				}
				return
			}
			ids <- principal + " " + rec.ID
			m.List(ctx, principal, nil, 0)
		}()
	}
	close(release)
	wg.Wait()
	close(ids)
	for line := range ids {
		principal, id, _ := strings.Cut(line, " ")
		rec, err := m.Await(ctx, principal, id, long, nil)
		if err != nil || rec.State != runs.StateSucceeded {
			t.Fatalf("%s: %+v, %v", id, rec, err)
		}
	}
}
