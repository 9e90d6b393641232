package main

import "testing"

// The gate bounds its own memory unless the user chose a limit, "off"
// included.
func TestGateMemoryLimitYieldsToGOMEMLIMIT(t *testing.T) {
	if limit, set := gateMemoryLimit(""); !set || limit != gateSoftMemoryLimit {
		t.Errorf("no GOMEMLIMIT: got %d, %v; want %d, true", limit, set, gateSoftMemoryLimit)
	}
	for _, env := range []string{"off", "2GiB", "512MiB"} {
		if _, set := gateMemoryLimit(env); set {
			t.Errorf("GOMEMLIMIT=%s: the gate set its own limit over the user's", env)
		}
	}
}
