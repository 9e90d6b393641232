//go:build !linux

package mcpsrc

import "os/exec"

// setDieWithParent does nothing outside Linux: there, a child is ended by
// the fleet's Close on every signal intentsrv handles, and a stdio server
// also exits when its stdin closes with intentsrv's death.
func setDieWithParent(*exec.Cmd) {}
