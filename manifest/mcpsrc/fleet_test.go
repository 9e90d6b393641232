//go:build linux

package mcpsrc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/operations"
)

// testServer is an entry that runs this test binary as the Go test
// upstream in mode.
func testServer(t *testing.T, name, mode string, env ...string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{testupstream.EnvMode: mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return Server{Name: name, Command: exe, Args: []string{"-test.run=^$"}, Env: e}
}

func startFleet(t *testing.T, reg *operations.Registry, opts Options, servers ...Server) *Fleet {
	t.Helper()
	checked, err := Check(servers, "", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	f := Start(context.Background(), reg, checked, opts)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestFleetServesToolsAsOperations(t *testing.T) {
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "Notes App", "serve"))
	if st := statusOf(f, "Notes App"); st.State != StateReady || st.Operations != testupstream.Tools {
		t.Fatalf("status %+v", st)
	}
	kinds := map[string]operations.Kind{}
	for _, op := range reg.All() {
		kinds[op.ID] = op.Kind
		if op.Source != "mcp:Notes App" || op.Namespace != "notes_app" {
			t.Errorf("%s: source %q namespace %q", op.ID, op.Source, op.Namespace)
		}
	}
	want := map[string]operations.Kind{
		"notes_app.echo": operations.KindRead, "notes_app.add_note": operations.KindWrite, "notes_app.wipe": operations.KindDestructive,
		"notes_app.media": operations.KindRead, "notes_app.fail": operations.KindRead, "notes_app.grow": operations.KindWrite,
	}
	for id, k := range want {
		if kinds[id] != k {
			t.Errorf("%s: kind %q, want %q (all: %v)", id, kinds[id], k, kinds)
		}
	}
	ctx := context.Background()
	out, err := reg.Call(ctx, "notes_app.echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || !strings.Contains(string(out), `"text":"echo: hi"`) {
		t.Fatalf("echo: %s, %v", out, err)
	}
	// The schema is kept and checked before anything is forwarded.
	var ve *operations.ValidationError
	if _, err := reg.Call(ctx, "notes_app.echo", json.RawMessage(`{"message":5}`)); !errors.As(err, &ve) {
		t.Fatalf("bad params: %v, want a validation error", err)
	}
	out, err = reg.Call(ctx, "notes_app.add_note", json.RawMessage(`{"text":"milk"}`))
	if err != nil || !strings.Contains(string(out), `"structuredContent":{"id":7,"text":"milk"}`) {
		t.Fatalf("add_note: %s, %v", out, err)
	}
	_, err = reg.Call(ctx, "notes_app.fail", nil)
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_error" || !strings.Contains(oe.Message, "the quota is exhausted") {
		t.Fatalf("fail: %v, want upstream_error with the upstream's text", err)
	}
	if d, ok := f.Declared("notes_app.wipe"); !ok || d != operations.KindDestructive {
		t.Fatalf("declared kind of wipe = %q, %v", d, ok)
	}
}

func TestFleetResultKeepsEveryContentType(t *testing.T) {
	reg := operations.NewRegistry()
	startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "t", "serve"))
	out, err := reg.Call(context.Background(), "t.media", nil)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, c := range res.Content {
		types = append(types, c["type"].(string))
	}
	if strings.Join(types, ",") != "text,image,audio,resource_link,resource,resource" {
		t.Fatalf("content types %v", types)
	}
	if res.Content[1]["data"] != testupstream.PNG || res.Content[1]["mimeType"] != "image/png" {
		t.Errorf("image block %v", res.Content[1])
	}
	if res.Content[0]["text"] != "here is everything" {
		t.Errorf("the image must not be folded into the text: %v", res.Content[0])
	}
	if res.Content[3]["uri"] != "test://notes/1" {
		t.Errorf("resource link %v", res.Content[3])
	}
	blob := res.Content[5]["resource"].(map[string]any)
	if blob["blob"] != testupstream.PNG {
		t.Errorf("embedded blob %v", blob)
	}
}

// One server that fails, one that hangs and one that works: Start returns
// within the start timeout, the working one serves, and the others are
// reported with why.
func TestFleetIsolatesFailedAndHungServers(t *testing.T) {
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 3 * time.Second},
		testServer(t, "good", "serve"), testServer(t, "broken", "fail"), testServer(t, "stuck", "hang"))
	if st := statusOf(f, "good"); st.State != StateReady {
		t.Fatalf("good: %+v", st)
	}
	broken := statusOf(f, "broken")
	if broken.State != StateFailed || !strings.Contains(broken.Error, "cannot open the database") {
		t.Errorf("broken: %+v; want failed with its stderr", broken)
	}
	stuck := statusOf(f, "stuck")
	if stuck.State != StateFailed || !strings.Contains(stuck.Error, "did not start within 3s") {
		t.Errorf("stuck: %+v", stuck)
	}
	if _, err := reg.Call(context.Background(), "good.echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatal(err)
	}
}

// A crashed stdio upstream fails the call under way as unavailable and
// restarts on the next call.
func TestFleetRestartsACrashedServer(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "t", "serve", testupstream.EnvPIDFile, pidFile))
	first := readPID(t, pidFile)
	ctx := context.Background()
	_, err := reg.Call(ctx, "t.crash", nil)
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_unavailable" {
		t.Fatalf("crash: %v, want upstream_unavailable", err)
	}
	if st := statusOf(f, "t"); st.State != StateFailed {
		t.Fatalf("after the crash: %+v", st)
	}
	out, err := reg.Call(ctx, "t.echo", json.RawMessage(`{"message":"again"}`))
	if err != nil || !strings.Contains(string(out), "echo: again") {
		t.Fatalf("after restart: %s, %v", out, err)
	}
	if second := readPID(t, pidFile); second == first {
		t.Fatalf("the server was not restarted (pid %d)", first)
	}
	if st := statusOf(f, "t"); st.State != StateReady {
		t.Fatalf("after restart: %+v", st)
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	if backoff(1) != backoffFirst || backoff(2) != 2*backoffFirst || backoff(3) != 4*backoffFirst {
		t.Fatalf("backoff 1..3 = %s %s %s", backoff(1), backoff(2), backoff(3))
	}
	if backoff(100) != backoffMax {
		t.Fatalf("backoff(100) = %s", backoff(100))
	}
}

// A server that failed is not started again before its backoff passes:
// calls in between are answered at once with upstream_unavailable.
func TestFleetHonoursBackoff(t *testing.T) {
	reg := operations.NewRegistry()
	srv := testServer(t, "t", "serve")
	checked, _ := Check([]Server{srv}, "", nil)
	f := Start(context.Background(), reg, checked, Options{StartTimeout: 20 * time.Second})
	defer f.Close()
	c := f.conns[0]
	now := time.Now()
	c.mu.Lock()
	c.now = func() time.Time { return now }
	c.mu.Unlock()
	if _, err := reg.Call(context.Background(), "t.crash", nil); err == nil {
		t.Fatal("crash returned no error")
	}
	// Two failures in a row: the second restart waits.
	c.mu.Lock()
	c.failures = 2
	c.retryAt = now.Add(backoff(2))
	c.mu.Unlock()
	_, err := reg.Call(context.Background(), "t.echo", json.RawMessage(`{"message":"x"}`))
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_unavailable" || !strings.Contains(oe.Message, "restarts in") {
		t.Fatalf("within the backoff: %v", err)
	}
	c.mu.Lock()
	c.now = func() time.Time { return now.Add(time.Minute) }
	c.mu.Unlock()
	if _, err := reg.Call(context.Background(), "t.echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatalf("after the backoff: %v", err)
	}
}

func TestFleetReindexesOnListChanged(t *testing.T) {
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "t", "serve"))
	changed := make(chan struct{}, 8)
	var calls atomic.Int32
	f.OnChange(func() {
		calls.Add(1)
		changed <- struct{}{}
	})
	<-changed // OnChange runs once at once
	if _, err := reg.Call(context.Background(), "t.grow", json.RawMessage(`{"name":"fetchWeather"}`)); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		if _, ok := reg.Get("t.fetch_weather"); ok {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the tool added at run time was not registered")
		}
	}
	out, err := reg.Call(context.Background(), "t.fetch_weather", nil)
	if err != nil || !strings.Contains(string(out), "hello from fetchWeather") {
		t.Fatalf("new tool: %s, %v", out, err)
	}
	if calls.Load() < 2 {
		t.Fatalf("OnChange ran %d times", calls.Load())
	}
}

// With the tools list cached, a restart registers the operations before
// the upstream has started, and a call waits for the start.
func TestFleetServesFromCacheWhileStarting(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow")
	srv := testServer(t, "t", "serve", testupstream.EnvSlowFile, slow, testupstream.EnvSlowDelay, "1500ms")
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second, CacheDir: dir}, srv)
	f.Close()

	if err := os.WriteFile(slow, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	reg2 := operations.NewRegistry()
	f2 := startFleet(t, reg2, Options{StartTimeout: 20 * time.Second, CacheDir: dir}, srv)
	st := statusOf(f2, "t")
	if st.State != StateStarting || !st.Cached || reg2.Len() != testupstream.Tools {
		t.Fatalf("second start: %+v, %d operations; want starting, served from the cache", st, reg2.Len())
	}
	out, err := reg2.Call(context.Background(), "t.echo", json.RawMessage(`{"message":"cached"}`))
	if err != nil || !strings.Contains(string(out), "echo: cached") {
		t.Fatalf("call while starting: %s, %v", out, err)
	}
}

func TestFleetCallWhileStartingRespectsDeadline(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow")
	srv := testServer(t, "t", "serve", testupstream.EnvSlowFile, slow, testupstream.EnvSlowDelay, "5s")
	startFleet(t, operations.NewRegistry(), Options{StartTimeout: 20 * time.Second, CacheDir: dir}, srv).Close()
	os.WriteFile(slow, nil, 0o600)
	reg := operations.NewRegistry()
	startFleet(t, reg, Options{StartTimeout: 20 * time.Second, CacheDir: dir}, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := reg.Call(ctx, "t.echo", json.RawMessage(`{"message":"x"}`))
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_unavailable" || !strings.Contains(oe.Message, "still starting") {
		t.Fatalf("call past its deadline: %v", err)
	}
}

func TestFleetCloseEndsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "t", "serve", testupstream.EnvPIDFile, pidFile))
	pid := readPID(t, pidFile)
	if err := f.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitGone(t, pid)
	_, err := reg.Call(context.Background(), "t.echo", json.RawMessage(`{"message":"x"}`))
	var oe *operations.Error
	if !errors.As(err, &oe) || oe.Code != "upstream_unavailable" {
		t.Fatalf("call after close: %v", err)
	}
}

func TestFleetSkipsDisabledServers(t *testing.T) {
	reg := operations.NewRegistry()
	off := testServer(t, "off", "serve")
	off.Disabled = true
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, off)
	if reg.Len() != 0 || statusOf(f, "off").State != StateDisabled {
		t.Fatalf("disabled server: %d operations, %+v", reg.Len(), statusOf(f, "off"))
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}

// waitFrozen waits until pid has become the "sleep" that testupstream's
// freeze turns it into.
func waitFrozen(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil || strings.TrimSpace(string(b)) == "sleep" {
			return // no /proc: the freeze call's own probe has to find it
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not freeze: it runs %q", pid, strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d outlived its parent", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server that stops answering altogether (not just one slow tool) is
// found by a ping after a call runs out of time, and replaced on the next
// call; a merely slow tool leaves the server in place.
func TestFleetRestartsAHungServer(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "t", "serve", testupstream.EnvPIDFile, pidFile))
	f.conns[0].pingTimeout = time.Second
	first := readPID(t, pidFile)

	slow, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err := reg.Call(slow, "t.sleep", nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("sleep: %v", err)
	}
	time.Sleep(2 * time.Second) // the probe's ping is answered
	if st := statusOf(f, "t"); st.State != StateReady {
		t.Fatalf("a slow tool must not fail the server: %+v", st)
	}

	frozen, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = reg.Call(frozen, "t.freeze", nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("freeze: %v", err)
	}
	waitFrozen(t, first)
	// On a loaded machine the freeze call can run out of time before the
	// upstream froze, and its probe's ping is then answered. Once the
	// process is frozen and that probe is over, a call that runs out of
	// time is what a user's next call would be: its probe finds the hang.
	time.Sleep(2 * time.Second) // longer than the probe's ping timeout
	if statusOf(f, "t").State == StateReady {
		late, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err = reg.Call(late, "t.echo", json.RawMessage(`{"message":"late"}`))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("echo on the frozen server: %v", err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for statusOf(f, "t").State != StateFailed {
		if time.Now().After(deadline) {
			t.Fatalf("the hung server was not noticed: %+v", statusOf(f, "t"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := statusOf(f, "t"); !strings.Contains(st.Error, "stopped answering") {
		t.Fatalf("status %+v", st)
	}
	out, err := reg.Call(context.Background(), "t.echo", json.RawMessage(`{"message":"fresh"}`))
	if err != nil || !strings.Contains(string(out), "echo: fresh") {
		t.Fatalf("after restart: %s, %v", out, err)
	}
	if readPID(t, pidFile) == first {
		t.Fatal("the hung server was not replaced")
	}
	waitGone(t, first)
}

// A server that failed its first start has no operations, so no call will
// ever restart it: it is retried in the background, and its tools appear
// once it comes up.
func TestFleetRetriesANeverStartedServer(t *testing.T) {
	failFile := filepath.Join(t.TempDir(), "fail")
	if err := os.WriteFile(failFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "late", "serve", testupstream.EnvFailFile, failFile))
	if st := statusOf(f, "late"); st.State != StateFailed || reg.Len() != 0 {
		t.Fatalf("first start: %+v, %d operations", st, reg.Len())
	}
	os.Remove(failFile)
	deadline := time.Now().Add(20 * time.Second)
	for reg.Len() != testupstream.Tools {
		if time.Now().After(deadline) {
			t.Fatalf("the server never came up: %+v", statusOf(f, "late"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := statusOf(f, "late"); st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
}
