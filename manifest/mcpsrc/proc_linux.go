//go:build linux

package mcpsrc

import (
	"os/exec"
	"syscall"
)

// setDieWithParent asks Linux to send the child SIGTERM when intentsrv
// dies, whatever killed it (SIGKILL included), so no upstream outlives it.
// The signal is tied to the thread that started the child; the Go runtime
// keeps its threads for the process's life, which is what makes this hold.
//
// The child also gets its own process group: a terminal's Ctrl-C reaches
// intentsrv, which closes each session in order, instead of reaching every
// upstream at once in the middle of a call.
func setDieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
}
