package planstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

func open(t *testing.T, path string, now func() time.Time) *Bolt {
	t.Helper()
	b, err := OpenBolt(path, now)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBoltConsumeSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.db")
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	b := open(t, path, nil)
	if err := b.Consume(ctx, "ref-1", exp); err != nil {
		t.Fatal(err)
	}
	if err := b.Consume(ctx, "ref-1", exp); !errors.Is(err, intent.ErrPlanUsed) {
		t.Fatalf("second consume = %v", err)
	}
	if err := b.Consume(ctx, "ref-2", exp); err != nil {
		t.Fatalf("another ref = %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = open(t, path, nil)
	defer b.Close()
	if err := b.Consume(ctx, "ref-1", exp); !errors.Is(err, intent.ErrPlanUsed) {
		t.Fatalf("consume after reopening = %v", err)
	}
}

func TestBoltForgetsExpiredRecords(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	b := open(t, filepath.Join(t.TempDir(), "plans.db"), clock)
	defer b.Close()
	ctx := context.Background()
	for _, ref := range []string{"a", "b", "c"} {
		if err := b.Consume(ctx, ref, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Consume(ctx, "long", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute) // a, b, c expired; a sweep is due
	if err := b.Consume(ctx, "d", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Len(); n != 2 {
		t.Fatalf("%d records after the sweep, want 2 (long, d)", n)
	}
	if err := b.Consume(ctx, "long", now.Add(time.Hour)); !errors.Is(err, intent.ErrPlanUsed) {
		t.Fatalf("unexpired record forgotten: %v", err)
	}
}

func TestBoltConcurrentConsumeRunsOnce(t *testing.T) {
	b := open(t, filepath.Join(t.TempDir(), "plans.db"), nil)
	defer b.Close()
	assertOneWinner(t, 16, func(int) intent.PlanStore { return b })
}

// assertOneWinner has n goroutines consume the same plan_ref at once, the
// i-th through storeFor(i), and checks exactly one of them wins.
func assertOneWinner(t *testing.T, n int, storeFor func(i int) intent.PlanStore) {
	t.Helper()
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := storeFor(i).Consume(context.Background(), "v1.same-ref", time.Now().Add(time.Hour)); {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, intent.ErrPlanUsed):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d consumers won, want 1", wins.Load())
	}
}

func TestBoltRefusesASecondOpener(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.db")
	b := open(t, path, nil)
	defer b.Close()
	if _, err := OpenBolt(path, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open = %v, want ErrLocked", err)
	}
}

// TestRestartRefusesReplayedPlanRef runs the whole path through package
// intent: a destructive operation previewed and confirmed, then the server
// rebuilt over the reopened store (a restart with the same plan key), and
// the same plan_ref replayed.
func TestRestartRefusesReplayedPlanRef(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.db")
	key := bytes.Repeat([]byte("p"), 32)
	var ran atomic.Int64
	start := func() (*intent.Server, *Bolt) {
		reg := operations.NewRegistry()
		type in struct {
			ID int `json:"id"`
		}
		err := operations.Add(reg, operations.Operation{ID: "tickets.delete", Summary: "Delete a ticket", Kind: operations.KindDestructive},
			func(context.Context, in) (string, error) { ran.Add(1); return "deleted", nil })
		if err != nil {
			t.Fatal(err)
		}
		store := open(t, path, nil)
		srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm, PlanKey: key, PlanStore: store})
		if err != nil {
			t.Fatal(err)
		}
		return srv, store
	}
	ctx := intent.WithCaller(context.Background(), "alice")
	srv, store := start()
	preview := srv.Call(ctx, intent.ToolAct, []byte(`{"action":"tickets.delete","params":{"id":3}}`))
	details, _ := json.Marshal(preview.Details)
	var d struct {
		PlanRef string `json:"plan_ref"`
	}
	_ = json.Unmarshal(details, &d)
	ref := d.PlanRef
	if ref == "" {
		t.Fatalf("no plan_ref: %s", preview.JSON())
	}
	confirm, _ := json.Marshal(map[string]any{"action": "tickets.delete", "params": map[string]any{"id": 3}, "plan_ref": ref})
	if env := srv.Call(ctx, intent.ToolAct, confirm); !env.OK {
		t.Fatalf("confirm: %s", env.JSON())
	}
	store.Close()

	srv, store = start() // the restart
	defer store.Close()
	if env := srv.Call(ctx, intent.ToolAct, confirm); env.OK || env.Code != intent.CodePlanInvalid {
		t.Fatalf("replay after restart: %s", env.JSON())
	}
	if ran.Load() != 1 {
		t.Fatalf("ran %d times, want 1", ran.Load())
	}
}
