package gate_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/synth"
)

// BenchmarkRun measures a whole gate run (listing, token counts and
// reachability of every operation) over generated catalogs: the cost a CI
// step pays. Besides time it reports the collections per run (gc/op): at
// 100,000 operations under the gate command's soft memory limit the
// collector is a large share of the run. INTENTSRV_BENCH_GATE_OPS adds a
// catalog of that many operations (100000 is the target; one run
// takes minutes, so it is not among the defaults).
func BenchmarkRun(b *testing.B) {
	sizes := []int{1000, 10000}
	if n, err := strconv.Atoi(os.Getenv("INTENTSRV_BENCH_GATE_OPS")); err == nil && n > 0 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			reg, err := synth.Registry(n, 1)
			if err != nil {
				b.Fatal(err)
			}
			srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
			if err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				r, err := gate.Run(b.Context(), srv, gate.Budgets{})
				if err != nil {
					b.Fatal(err)
				}
				if !r.Passed() {
					b.Fatalf("gate failed: %v", r.Breaches)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N), "gc/op")
		})
	}
}

// BenchmarkListing measures the listing alone, without reachability.
func BenchmarkListing(b *testing.B) {
	reg, err := synth.Registry(1000, 1)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := gate.Run(b.Context(), srv, gate.Budgets{SkipReachability: true}); err != nil {
			b.Fatal(err)
		}
	}
}
