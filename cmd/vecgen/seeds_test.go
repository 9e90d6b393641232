package main

import "testing"

// TestSpread: -validate-seeds reports the seeds' held-out top-1 as a mean
// and a range, the noise a change that needs a refit is read against.
func TestSpread(t *testing.T) {
	mean, lo, hi := spread([]float64{0.7505, 0.7502, 0.7468})
	if lo != 0.7468 || hi != 0.7505 || mean < 0.7491 || mean > 0.7492 {
		t.Fatalf("spread = %v, %v, %v; want mean 0.74917, range 0.7468-0.7505", mean, lo, hi)
	}
	if mean, lo, hi := spread([]float64{0.7}); mean != 0.7 || lo != 0.7 || hi != 0.7 {
		t.Fatalf("one seed: %v, %v, %v; want 0.7 three times", mean, lo, hi)
	}
}
