package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// intentsrvBinary builds the command once per test process and returns its
// path.
func intentsrvBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "intentsrv-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "intentsrv")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildFailure{out: string(out), err: err}
		}
	})
	if buildErr != nil {
		t.Fatalf("build intentsrv: %v", buildErr)
	}
	return binPath
}

type buildFailure struct {
	out string
	err error
}

func (b *buildFailure) Error() string { return b.err.Error() + "\n" + b.out }

// startClient starts the real binary with args and connects mcp-go's stdio
// client to it: an independent peer speaking the protocol over pipes.
func startClient(t *testing.T, args ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(intentsrvBinary(t), append(os.Environ(), "INTENTSRV_PLAN_KEY="), append([]string{"serve"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "e2e", Version: "0"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo.Name != "intentsrv" || init.ServerInfo.Version == "" {
		t.Fatalf("serverInfo = %+v", init.ServerInfo)
	}
	return c
}

type e2eEnvelope struct {
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    string          `json:"error"`
	Code     string          `json:"code"`
	Details  json.RawMessage `json:"details"`
	Warnings []string        `json:"warnings"`
	Remedy   *struct {
		Tool, Action, Fix string
	} `json:"remedy"`
	Meta struct {
		Replayed bool `json:"replayed"`
	} `json:"meta"`
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) e2eEnvelope {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return callToolRequest(t, c, req)
}

// callToolRequest sends req and returns its envelope, checking that
// isError mirrors ok.
func callToolRequest(t *testing.T, c *client.Client, req mcp.CallToolRequest) e2eEnvelope {
	t.Helper()
	name := req.Params.Name
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env e2eEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: structuredContent is not an envelope: %s", name, b)
	}
	if res.IsError == env.OK {
		t.Fatalf("%s: isError=%v but ok=%v", name, res.IsError, env.OK)
	}
	return env
}

func TestE2EStdioDefaultIsReadOnly(t *testing.T) {
	c := startClient(t)
	ctx := context.Background()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("%s should be read-only under the default policy", tool.Name)
		}
	}
	if strings.Join(names, ",") != "find,describe,ask" {
		t.Fatalf("tools = %v", names)
	}
	env := callTool(t, c, "find", map[string]any{"intent": "show me ticket 42"})
	if !env.OK || !strings.Contains(string(env.Data), "helpdesk.tickets.get") {
		t.Fatalf("find: %+v", env)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "helpdesk.tickets.get", "params": map[string]any{"ticket_id": 42}})
	if !env.OK || !strings.Contains(string(env.Data), `"id":42`) {
		t.Fatalf("ask: %s", env.Data)
	}
	env = callTool(t, c, "ask", map[string]any{"action": "helpdesk.tickets.delete", "params": map[string]any{"ticket_id": 42}})
	if env.OK || env.Code != "writes_disabled" {
		t.Fatalf("a write through the read-only server: %+v", env)
	}
	// A verb the router's lexicon does not know, for a hidden write named
	// for it (helpdesk.webhooks.rotate_secret): the webhook reads come
	// back flagged, with the word that writes are hidden, not as the
	// answer; ask refuses, listing them.
	env = callTool(t, c, "find", map[string]any{"intent": "rotate the webhook secret"})
	if !env.OK || !strings.Contains(string(env.Data), `"confidence":"low"`) || !strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Fatalf("find for a hidden call: %s warnings %q", env.Data, env.Warnings)
	}
	env = callTool(t, c, "ask", map[string]any{"intent": "rotate the webhook secret"})
	if env.OK || env.Code != "writes_disabled" || !strings.Contains(string(env.Details), "helpdesk.webhooks.get") {
		t.Fatalf("ask for a hidden call: %+v", env)
	}
	// "run" asks for a call; the view's run is a read, so the read-only
	// server answers with it rather than refusing a write.
	env = callTool(t, c, "ask", map[string]any{"intent": "run view 2"})
	if env.Code == "writes_disabled" || !strings.Contains(string(env.Data)+string(env.Details), "helpdesk.views.run") {
		t.Fatalf("ask to run a view (a read): %+v", env)
	}
}

func TestE2EStdioCreateThenRead(t *testing.T) {
	c := startClient(t, "--writes", "allow", "--tool-prefix", "hd_")
	env := callTool(t, c, "hd_describe", map[string]any{"action": "helpdesk.tickets.create"})
	if !env.OK || !strings.Contains(string(env.Data), `"subject"`) {
		t.Fatalf("describe: %+v", env)
	}
	env = callTool(t, c, "hd_act", map[string]any{"action": "helpdesk.tickets.create", "params": map[string]any{
		"subject": "Printer on floor 3 is jammed", "description": "It shows error E42 since this morning.", "priority": "high",
	}})
	if !env.OK {
		t.Fatalf("create: %+v", env)
	}
	var created struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(env.Data, &created); err != nil || created.ID == 0 {
		t.Fatalf("create returned %s", env.Data)
	}
	env = callTool(t, c, "hd_ask", map[string]any{"action": "helpdesk.tickets.get", "params": map[string]any{"ticket_id": created.ID}})
	if !env.OK || !strings.Contains(string(env.Data), "Printer on floor 3") {
		t.Fatalf("read back: %s", env.Data)
	}
	// Destructive: preview first, then confirm with the plan_ref.
	del := map[string]any{"action": "helpdesk.tickets.delete", "params": map[string]any{"ticket_id": created.ID}}
	env = callTool(t, c, "hd_act", del)
	if env.Code != "confirmation_required" || env.Remedy == nil || env.Remedy.Tool != "hd_act" {
		t.Fatalf("delete should preview: %+v", env)
	}
	var d struct {
		PlanRef string `json:"plan_ref"`
	}
	_ = json.Unmarshal(env.Details, &d)
	del["plan_ref"] = d.PlanRef
	if env = callTool(t, c, "hd_act", del); !env.OK {
		t.Fatalf("confirmed delete: %+v", env)
	}
	env = callTool(t, c, "hd_ask", map[string]any{"action": "helpdesk.tickets.get", "params": map[string]any{"ticket_id": created.ID}})
	if env.OK {
		t.Fatalf("ticket still there after a confirmed delete: %s", env.Data)
	}
}

// TestE2EStdoutIsProtocolOnly speaks raw JSON-RPC to the binary and checks
// that every line on stdout is a JSON-RPC message: logs go to stderr.
func TestE2EStdoutIsProtocolOnly(t *testing.T) {
	cmd := exec.Command(intentsrvBinary(t), "serve", "--log-level", "debug")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"action":"helpdesk.tickets.get","params":{"ticket_id":"not a number"}}}}`,
		`this line is not JSON`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"find","arguments":{"intent":"open tickets"}}}`,
	}
	for _, m := range msgs {
		io.WriteString(stdin, m+"\n")
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	seen := map[float64]bool{}
	deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for len(seen) < 4 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carried a non-JSON-RPC line: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			seen[id] = true
		}
	}
	stdin.Close()
	_ = cmd.Wait()
	for id := 1.0; id <= 4; id++ {
		if !seen[id] {
			t.Errorf("no response to request %v; stderr:\n%s", id, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "embedded demo catalog") {
		t.Errorf("stderr should tell how to point the server at a real source; got:\n%s", stderr.String())
	}
}

// TestE2EStdioAnotherAPIsRequestDoesNotRun: a request written for another
// API ("Add License", a title whose only word the petstore knows is its
// verb) asked of a small catalog with writes allowed. The binary chose to
// create a pet for it (stopped only by the missing params) and find called
// that high; now act answers no_match with the closest operation listed,
// and find says low. A request none of whose words the catalog knows
// ("Driving License") is answered none. What the catalog serves stays
// high.
func TestE2EStdioAnotherAPIsRequestDoesNotRun(t *testing.T) {
	c := startClient(t, "--openapi", "pets="+testdataPath("openapi", "petstore-swagger2.json"), "--mock", "--writes", "allow", "--openapi-cache", "off")
	if env := callTool(t, c, "find", map[string]any{"intent": "Driving License"}); !env.OK || !strings.Contains(string(env.Data), `"confidence":"none"`) {
		t.Errorf("find %q: %s, want confidence none", "Driving License", env.Data)
	}
	for _, q := range []string{"Add License", "Register Vehicle"} {
		env := callTool(t, c, "act", map[string]any{"intent": q})
		if env.OK || env.Code != "no_match" || !strings.Contains(string(env.Details), "pets.pet.add_pet") {
			t.Errorf("act %q: %+v, want no_match listing the closest operation", q, env)
		}
		env = callTool(t, c, "find", map[string]any{"intent": q})
		if !env.OK || !strings.Contains(string(env.Data), `"confidence":"low"`) {
			t.Errorf("find %q: %s, want the candidates flagged low", q, env.Data)
		}
	}
	env := callTool(t, c, "find", map[string]any{"intent": "Add a new pet to the store"})
	if !env.OK || !strings.Contains(string(env.Data), `"confidence":"high"`) || !strings.Contains(string(env.Data), "pets.pet.add_pet") {
		t.Errorf("find for what the catalog serves: %s", env.Data)
	}
}
