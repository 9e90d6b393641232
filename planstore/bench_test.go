package planstore

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/redistest"
	"github.com/intentsrv/intentsrv/operations"
)

// benchStores are the stores compared side by side: package intent's
// in-memory store, Bolt (one synced transaction per record) and Redis (a
// real redis-server on loopback, one round trip per record, appendfsync
// always).
var benchStores = []struct {
	name string
	open func(b *testing.B) intent.PlanStore
}{
	{"memory", func(*testing.B) intent.PlanStore { return &intent.MemoryPlanStore{} }},
	{"bolt", func(b *testing.B) intent.PlanStore {
		s, err := OpenBolt(filepath.Join(b.TempDir(), "plans.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}},
	{"redis", func(b *testing.B) intent.PlanStore {
		s, err := OpenRedis(context.Background(), redistest.Start(b).URL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}},
}

// BenchmarkConsume records fresh plan_refs.
func BenchmarkConsume(b *testing.B) {
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b)
			exp := time.Now().Add(time.Hour)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if err := s.Consume(ctx, "v1.ref."+strconv.Itoa(i), exp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConfirm is the plan_ref confirm latency through package intent:
// each iteration previews a destructive call, then confirms it; only the
// confirmation (verify, consume in the store, run a no-op handler) is
// timed, reported as confirm_us/op.
func BenchmarkConfirm(b *testing.B) {
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			reg := operations.NewRegistry()
			type in struct {
				ID int `json:"id"`
			}
			err := operations.Add(reg, operations.Operation{ID: "tickets.delete", Summary: "Delete a ticket", Kind: operations.KindDestructive},
				func(context.Context, in) (string, error) { return "deleted", nil })
			if err != nil {
				b.Fatal(err)
			}
			srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm, PlanKey: bytes.Repeat([]byte("k"), 32), PlanStore: st.open(b)})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			call := []byte(`{"action":"tickets.delete","params":{"id":3}}`)
			var confirming time.Duration
			n := 0
			for b.Loop() {
				preview := srv.Call(ctx, intent.ToolAct, call)
				raw, _ := json.Marshal(preview.Details)
				var d struct {
					PlanRef string `json:"plan_ref"`
				}
				_ = json.Unmarshal(raw, &d)
				confirm := []byte(`{"action":"tickets.delete","params":{"id":3},"plan_ref":"` + d.PlanRef + `"}`)
				start := time.Now()
				env := srv.Call(ctx, intent.ToolAct, confirm)
				confirming += time.Since(start)
				n++
				if !env.OK {
					b.Fatalf("confirm: %s", env.JSON())
				}
			}
			b.ReportMetric(float64(confirming.Microseconds())/float64(n), "confirm_us/op")
		})
	}
}
