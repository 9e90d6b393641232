//go:build unix

package testupstream

import (
	"os"
	"syscall"
)

// freeze stops this process, as a hung server would be.
func freeze() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
