//go:build unix

package testupstream

import (
	"os"
	"os/exec"
	"syscall"
)

// freeze turns this process into one that holds its pipes open and never
// answers again (it becomes "sleep"), as a hung server would be; the pid
// stays the same.
func freeze() {
	if sleep, err := exec.LookPath("sleep"); err == nil {
		_ = syscall.Exec(sleep, []string{"sleep", "3600"}, os.Environ())
	}
	select {}
}
