package planstore

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// BenchmarkConsume records fresh plan_refs, side by side: package intent's
// in-memory store and Bolt (one synced transaction per plan_ref).
func BenchmarkConsume(b *testing.B) {
	stores := []struct {
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
	}
	for _, st := range stores {
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
