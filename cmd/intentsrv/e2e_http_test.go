package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const e2eKey = "e2e-http-key-0123456789abcdef"

// cleanEnv is the test's environment without API keys or a plan key, so
// the caller's shell does not leak into the server under test.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INTENTSRV_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var servingAddr = regexp.MustCompile(`msg="intentsrv serving MCP over HTTP".* addr=(\S+)`)

// startHTTPServer starts the real binary with serve --http on a free
// loopback port and returns its base URL once it serves.
func startHTTPServer(t *testing.T, args ...string) (string, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	return startHTTPServerEnv(t, nil, args...)
}

// startHTTPServerEnv is startHTTPServer with extra environment entries.
func startHTTPServerEnv(t *testing.T, env []string, args ...string) (string, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	return startHTTPServerKeys(t, append(env, "INTENTSRV_API_KEY_ALICE="+e2eKey), args...)
}

// startHTTPServerKeys is startHTTPServer with env as the only INTENTSRV_
// variables: without a key variable in env, the server has no keys and
// every request is the anonymous principal. The user's cache directory
// (where the default plan store lives) is the test's own unless env sets
// XDG_CACHE_HOME.
func startHTTPServerKeys(t *testing.T, env []string, args ...string) (string, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(intentsrvBinary(t), append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = cleanEnv(append([]string{"XDG_CACHE_HOME=" + t.TempDir()}, env...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingAddr.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1], cmd, stderr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server did not come up:\n%s", stderr.String())
	return "", nil, nil
}

// dialHTTP opens an initialized MCP client session on base's /mcp; the
// test's cleanup closes it.
func dialHTTP(t *testing.T, base string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(base+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "e2e", Version: "0"},
	}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestE2EHTTPServeCallAndStop(t *testing.T) {
	base, cmd, stderr := startHTTPServer(t)

	c := dialHTTP(t, base, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + e2eKey}))
	env := callTool(t, c, "find", map[string]any{"intent": "close a ticket"})
	if !env.OK {
		t.Fatalf("find over HTTP = %+v", env)
	}

	// GET /v1/tools is what export prints.
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/tools", nil)
	req.Header.Set("Authorization", "Bearer "+e2eKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exported, err := exec.Command(intentsrvBinary(t), "export").Output()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !jsonEqual(t, served, exported) {
		t.Fatalf("GET /v1/tools (%d) differs from export:\n%s\n---\n%s", resp.StatusCode, served, exported)
	}

	// No key: 401 with a Bearer challenge.
	resp, err = http.Post(base+"/v1/find", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no key: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	logs := stderr.String()
	if !strings.Contains(logs, "shut down cleanly") || !strings.Contains(logs, `path=/v1/find status=401`) {
		t.Fatalf("logs lack the shutdown or access lines:\n%s", logs)
	}
	if strings.Contains(logs, e2eKey) {
		t.Fatal("the API key reached the log")
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ra, _ := json.Marshal(x)
	rb, _ := json.Marshal(y)
	return bytes.Equal(ra, rb)
}

func TestE2EHTTPRefusesOpenAddressWithoutKeys(t *testing.T) {
	cmd := exec.Command(intentsrvBinary(t), "serve", "--http", "0.0.0.0:0")
	cmd.Env = cleanEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Fatalf("exit = %v, want %d\n%s", err, exitUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--allow-unauthenticated") {
		t.Fatalf("the refusal does not say the way forward:\n%s", stderr.String())
	}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "listening") {
			t.Fatalf("it listened before refusing: %s", sc.Text())
		}
	}
}

// restAct posts an act call to the REST twin and returns its envelope.
func restAct(t *testing.T, base string, body map[string]any) e2eEnvelope {
	t.Helper()
	env, err := postAct(base, body)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// postAct is restAct for goroutines: it returns the error instead.
func postAct(base string, body map[string]any) (e2eEnvelope, error) {
	var env e2eEnvelope
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/act", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+e2eKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return env, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusOK {
		return env, fmt.Errorf("act: HTTP %d %v", resp.StatusCode, err)
	}
	return env, nil
}

func stopServer(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// TestE2EHTTPRestartRefusesReplayedPlanRef restarts the real binary with
// a shared plan key between a confirmed delete and its replay. The demo
// catalog is re-seeded at start, so the comment exists again: only the
// plan store stands between the replay and a second delete. Without
// --plan-store the default store on disk must stand there; only an
// explicit --plan-store memory lets the replay run.
func TestE2EHTTPRestartRefusesReplayedPlanRef(t *testing.T) {
	planKey := "INTENTSRV_PLAN_KEY=" + strings.Repeat("e2e-plan-key-", 4)
	del := map[string]any{"action": "helpdesk.comments.delete", "params": map[string]any{"comment_id": 79}}
	for _, tc := range []struct {
		name       string
		store      string // --plan-store; "" for none
		replayRuns bool
	}{
		{"the default store refuses the replay", "", false},
		{"a plan store file refuses the replay", "FILE", false},
		{"an explicit memory store lets the replay run", "memory", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			env := []string{planKey, "XDG_CACHE_HOME=" + cache}
			args := []string{"--writes", "confirm"}
			switch tc.store {
			case "FILE":
				args = append(args, "--plan-store", t.TempDir()+"/plans.db")
			case "memory":
				args = append(args, "--plan-store", "memory")
			}
			base, cmd, _ := startHTTPServerEnv(t, env, args...)
			preview := restAct(t, base, del)
			var d struct {
				PlanRef string `json:"plan_ref"`
			}
			if json.Unmarshal(preview.Details, &d); d.PlanRef == "" {
				t.Fatalf("no plan_ref in the preview: %+v", preview)
			}
			confirm := map[string]any{"action": del["action"], "params": del["params"], "plan_ref": d.PlanRef}
			if env := restAct(t, base, confirm); !env.OK {
				t.Fatalf("confirm: %+v", env)
			}
			stopServer(t, cmd)

			base, cmd, _ = startHTTPServerEnv(t, env, args...)
			defer stopServer(t, cmd)
			replay := restAct(t, base, confirm)
			if replay.OK != tc.replayRuns {
				t.Fatalf("replay after restart ran=%v, want %v: %+v", replay.OK, tc.replayRuns, replay)
			}
			if !tc.replayRuns && replay.Code != "plan_invalid" {
				t.Fatalf("replay code %q", replay.Code)
			}
			defaults, _ := filepath.Glob(filepath.Join(cache, "intentsrv", "plans-*.db"))
			if want := tc.store == ""; (len(defaults) == 1) != want {
				t.Fatalf("default store files %q, want one: %v", defaults, want)
			}
		})
	}
}

func TestServeRefusesHTTPFlagsWithoutHTTP(t *testing.T) {
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"serve", "--stateless", "--audit-log", "a.jsonl"}, strings.NewReader(""), io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--audit-log --stateless") || !strings.Contains(stderr.String(), "--http") {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
}
