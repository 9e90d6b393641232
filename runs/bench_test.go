package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// BenchmarkRetainedRunMemory reports the heap one finished, retained run
// costs in the in-memory store, for a result of about 1 KiB (a typical
// budgeted envelope) and for none (a run cancelled before it started).
func BenchmarkRetainedRunMemory(b *testing.B) {
	for _, size := range []int{0, 1024} {
		b.Run(fmt.Sprintf("result=%dB", size), func(b *testing.B) {
			value := json.RawMessage(`"` + strings.Repeat("x", max(size-2, 0)) + `"`)
			const n = 10000
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				m := runs.NewManager(runs.Options{Store: runs.NewMemoryStore(runs.MemoryOptions{MaxRecords: 2 * n})})
				for range n {
					handedOver := make(chan struct{})
					r := m.Start(context.Background(), "principal", "namespace.operation", func(context.Context) runs.Outcome {
						<-handedOver
						if size == 0 {
							return runs.Outcome{Failed: true}
						}
						return runs.Outcome{Value: value}
					})
					r.Detach() // before it can finish, so it is kept
					close(handedOver)
					r.Wait(context.Background(), time.Hour, nil)
				}
				if recs, _ := m.List(context.Background(), "principal", nil, 0); len(recs) != n {
					b.Fatalf("kept %d runs, want %d", len(recs), n)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/run")
				runtime.KeepAlive(m)
			}
		})
	}
}
