package mcpsrc

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// tailBytes is how much of a child's stderr is kept to explain a failure.
const tailBytes = 1024

// tail receives a child process's stderr: each line goes to the log at
// debug level, and the last tailBytes are kept for error messages. Safe
// for concurrent use.
type tail struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte // the last bytes written
	cur []byte // the line being written
}

func newTail(log *slog.Logger) *tail { return &tail{log: log} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	t.cur = append(t.cur, p...)
	for {
		i := bytes.IndexByte(t.cur, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(t.cur[:i])); line != "" {
			t.log.Debug("upstream stderr", "line", line)
		}
		t.cur = t.cur[i+1:]
	}
	if len(t.cur) > tailBytes {
		t.cur = t.cur[len(t.cur)-tailBytes:]
	}
	return len(p), nil
}

// String is the kept tail, on one line.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.buf)), " ")
}

// await waits up to d for the child's stderr to reach the tail: the
// transport copies it asynchronously, so a child that wrote why it failed
// and exited may be seen to fail before its words arrive.
func (t *tail) await(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		t.mu.Lock()
		n := len(t.buf)
		t.mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
