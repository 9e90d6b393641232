// Package redistest runs a real redis-server for tests: on a free loopback
// port, with its data in a temporary directory, stopped by its PID.
//
// The binary is $INTENTSRV_REDIS, else redis-server on PATH
// (.ci/install-redis.sh installs it). When neither exists the test is
// skipped, except with INTENTSRV_E2E=1, where it fails.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is one redis-server process and the port and directory it keeps
// across restarts.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
}

// Binary returns the redis-server to run, or skips (fails with
// INTENTSRV_E2E=1) when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("INTENTSRV_REDIS"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("INTENTSRV_REDIS=%s: %v", p, err)
		}
		return p
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p
	}
	if os.Getenv("INTENTSRV_E2E") == "1" {
		t.Fatal("INTENTSRV_E2E=1 but redis-server is not installed: run .ci/install-redis.sh or set INTENTSRV_REDIS")
	}
	t.Skip("redis-server is not installed; run .ci/install-redis.sh (or set INTENTSRV_E2E=1 to make this a failure)")
	return ""
}

// Start runs a redis-server that syncs every write to its append-only file,
// so a restart keeps what was written before a kill. It is stopped when
// the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), dir: t.TempDir(), port: freePort(t)}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Kill stops the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server (again) on the same port and directory and
// waits until it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.cmd = exec.Command(s.bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr()) == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	s.t.Fatalf("redis-server on %s did not answer PING:\n%s", s.Addr(), log)
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}
