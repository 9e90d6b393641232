package gate_test

import (
	"fmt"
	"testing"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/synth"
)

// BenchmarkRun measures a whole gate run (listing, token counts and
// reachability of every operation) over generated catalogs: the cost a CI
// step pays.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			reg, err := synth.Registry(n, 1)
			if err != nil {
				b.Fatal(err)
			}
			srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r, err := gate.Run(b.Context(), srv, gate.Budgets{})
				if err != nil {
					b.Fatal(err)
				}
				if !r.Passed() {
					b.Fatalf("gate failed: %v", r.Breaches)
				}
			}
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
