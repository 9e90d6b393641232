//go:build linux

package mcpsrc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/operations"
)

// envFleetParent makes the test binary a parent that starts one upstream
// (whose pid goes to the file it names) and waits to be killed.
const envFleetParent = "INTENTSRV_TEST_FLEET_PARENT"

func fleetParentMain() {
	pidFile := os.Getenv(envFleetParent)
	if pidFile == "" {
		return
	}
	exe, _ := os.Executable()
	srv := Server{Name: "child", Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{testupstream.EnvMode: "serve", testupstream.EnvPIDFile: pidFile, envFleetParent: ""}}
	servers, err := Check([]Server{srv}, "", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	f := Start(context.Background(), operations.NewRegistry(), servers, Options{StartTimeout: 20 * time.Second})
	fmt.Println(f.Status()[0].State)
	select {}
}

// When intentsrv is killed with SIGKILL it closes nothing; Linux ends its
// children for it (Pdeathsig), so no upstream is orphaned.
func TestChildDiesWithKilledParent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), envFleetParent+"="+pidFile)
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	child := readPID(t, pidFile)
	if !alive(child) {
		t.Fatal("the upstream is not running")
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	waitGone(t, child)
}
