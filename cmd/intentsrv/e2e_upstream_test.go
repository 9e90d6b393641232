package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// goUpstreamConfig writes an mcpServers file whose one server, "notes", is
// this test binary serving the Go test upstream; its pid goes to pidFile.
func goUpstreamConfig(t *testing.T, pidFile string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"command": exe, "args": []string{"-test.run=^$"},
		"env": map[string]string{testupstream.EnvMode: "serve", testupstream.EnvPIDFile: pidFile},
	}}}
	b, _ := json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// servedProcess is intentsrv serve run as a child with a client on its
// pipes, so the test can signal the process itself.
type servedProcess struct {
	cmd    *exec.Cmd
	client *client.Client
	stderr *bytes.Buffer
}

func serveProcess(t testing.TB, args ...string) *servedProcess {
	t.Helper()
	cmd := exec.Command(intentsrvBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), "INTENTSRV_PLAN_KEY=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	c := client.NewClient(transport.NewIO(stdout, stdin, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "e2e", Version: "0"},
	}}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	return &servedProcess{cmd: cmd, client: c, stderr: &stderr}
}

func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// processGone waits until pid has exited (a zombie counts as exited).
func processGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("upstream process %d outlived intentsrv", pid)
}

// The Go test upstream through the real binary and a real MCP client: the
// four tools reach its tools with the contract's codes, and SIGTERM ends
// intentsrv and its child.
func TestE2EUpstreamGoServer(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := serveProcess(t, "--mcp-config", goUpstreamConfig(t, pidFile), "--mcp-cache", "off", "--writes", "confirm", "--max-result-tokens", "400")
	c := p.client
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 4 {
		t.Fatalf("tools/list: %v %v", list, err)
	}
	env := callTool(t, c, "find", map[string]any{"intent": "echo a message back"})
	if !env.OK || !strings.Contains(string(env.Data), "notes.echo") {
		t.Fatalf("find: %s", env.Data)
	}
	env = callTool(t, c, "describe", map[string]any{"action": "notes.echo"})
	if !env.OK || !strings.Contains(string(env.Data), `"message"`) {
		t.Fatalf("describe: %s", env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.echo", "params": map[string]any{"message": "hi"}})
	if !env.OK || !strings.Contains(string(env.Data), "echo: hi") {
		t.Fatalf("ask: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.echo", "params": map[string]any{}})
	if env.OK || env.Code != "invalid_params" {
		t.Fatalf("ask without the required param: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.fail"})
	if env.OK || env.Code != "upstream_error" || !strings.Contains(env.Error, "the quota is exhausted") {
		t.Fatalf("isError upstream: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.wipe"})
	if env.OK || env.Code != "not_read_only" {
		t.Fatalf("ask on a tool with no annotations: %+v", env)
	}
	env = callTool(t, c, "act", map[string]any{"action": "notes.wipe"})
	if env.OK || env.Code != "confirmation_required" || !strings.Contains(string(env.Details), `"tool":"wipe"`) {
		t.Fatalf("act on a destructive tool: %+v %s", env, env.Details)
	}
	var details struct {
		PlanRef string `json:"plan_ref"`
	}
	json.Unmarshal(env.Details, &details)
	env = callTool(t, c, "act", map[string]any{"action": "notes.wipe", "plan_ref": details.PlanRef})
	if !env.OK || !strings.Contains(string(env.Data), "wiped") {
		t.Fatalf("confirmed act: %+v", env)
	}

	// A tool the upstream adds at run time becomes findable and callable.
	env = callTool(t, c, "act", map[string]any{"action": "notes.grow", "params": map[string]any{"name": "fetchWeather"}})
	json.Unmarshal(env.Details, &details)
	env = callTool(t, c, "act", map[string]any{"action": "notes.grow", "params": map[string]any{"name": "fetchWeather"}, "plan_ref": details.PlanRef})
	if !env.OK {
		t.Fatalf("grow: %+v", env)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		env = callTool(t, c, "find", map[string]any{"intent": "fetch weather"})
		if strings.Contains(string(env.Data), `"id":"notes.fetch_weather"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool added at run time is not findable: %s", env.Data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.fetch_weather"})
	if !env.OK || !strings.Contains(string(env.Data), "hello from fetchWeather") {
		t.Fatalf("the new tool: %+v", env)
	}

	// The result budget applies to upstream results: 300 content blocks
	// are cut at block boundaries.
	var full struct {
		Content []json.RawMessage `json:"content"`
	}
	env = callTool(t, c, "ask", map[string]any{"action": "notes.many"})
	if !env.OK || json.Unmarshal(env.Data, &full) != nil || len(full.Content) == 0 || len(full.Content) >= 300 {
		t.Fatalf("many: %d blocks, want fewer than 300 under a 400-token budget (%s)", len(full.Content), env.Code)
	}

	child := readPIDFile(t, pidFile)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("intentsrv did not exit on SIGTERM\n%s", p.stderr.String())
	}
	processGone(t, child)
}

// SIGKILL gives intentsrv no chance to close anything; its upstream still
// ends (Linux's parent-death signal).
func TestE2EUpstreamDiesWithKilledIntentsrv(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := serveProcess(t, "--mcp-config", goUpstreamConfig(t, pidFile), "--mcp-cache", "off")
	child := readPIDFile(t, pidFile)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	processGone(t, child)
}

func TestMockRefusedWithUpstreams(t *testing.T) {
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"list", "--mock", "--mcp-config", goUpstreamConfig(t, filepath.Join(t.TempDir(), "pid"))}, nil, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "mock_upstream_unsupported") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

func TestBadMCPConfigIsAUsageError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x", "env": {"T": "${INTENTSRV_TEST_SURELY_UNSET}"}}}}`), 0o600)
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"list", "--mcp-config", path}, nil, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "mcp_variable_unset") || !strings.Contains(stderr.String(), "INTENTSRV_TEST_SURELY_UNSET") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600)
	stderr.Reset()
	code = run(context.Background(), []string{"list", "--mcp-config", path, "--mcp-config", path}, nil, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "mcp_server_duplicate") {
		t.Fatalf("the same server twice: exit %d: %s", code, stderr.String())
	}
}

// intentsrv.yaml lists upstreams beside OpenAPI sources, with a namespace,
// include/exclude globs and an overlay; doctor reports the start and the
// overlay that lowered a kind.
func TestYAMLUpstreamWithFiltersAndOverlay(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.overlay.yaml"), []byte("- match: n.wipe\n  kind: write\n"), 0o600)
	cfg := fmt.Sprintf(`mcpServers:
  notes:
    command: %q
    args: ["-test.run=^$"]
    env: {%s: serve}
    namespace: n
    exclude: ["n.crash", "n.sleep"]
    overlay: notes.overlay.yaml
    start_timeout: 20s
`, exe, testupstream.EnvMode)
	os.WriteFile(filepath.Join(dir, "intentsrv.yaml"), []byte(cfg), 0o600)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"list", "--config", filepath.Join(dir, "intentsrv.yaml"), "--mcp-cache", "off", "--writes", "allow"}, nil, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("list: exit %d\n%s", code, stderr.String())
	}
	ids := strings.Fields(stdout.String())
	if strings.Contains(stdout.String(), "n.crash") || !strings.Contains(stdout.String(), "n.echo") || len(ids) != testupstream.Tools-2 {
		t.Fatalf("ids %v", ids)
	}
	stdout.Reset()
	run(context.Background(), []string{"doctor", "--config", filepath.Join(dir, "intentsrv.yaml"), "--mcp-cache", "off", "--writes", "allow"}, nil, &stdout, &stderr)
	out := stdout.String()
	if !strings.Contains(out, fmt.Sprintf("notes (stdio): started and listed %d tools", testupstream.Tools)) || !strings.Contains(out, fmt.Sprintf("%d operations under n.*", testupstream.Tools-2)) {
		t.Fatalf("doctor upstream line missing:\n%s", out)
	}
	if !strings.Contains(out, "n.wipe: served as write by an operator overlay; its upstream's annotations and name imply destructive") {
		t.Fatalf("doctor should list the lowered kind:\n%s", out)
	}
}
