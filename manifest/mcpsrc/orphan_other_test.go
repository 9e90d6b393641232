//go:build !linux

package mcpsrc

// fleetParentMain has no role where the orphan test does not run.
func fleetParentMain() {}
