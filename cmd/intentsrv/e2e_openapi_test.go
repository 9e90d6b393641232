package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

const (
	e2eToken  = "e2e_TOKEN_0123456789"
	e2eAPIKey = "e2e_KEY_abcdefghij"
)

// findPrism locates the Prism CLI: $INTENTSRV_PRISM, the copy that
// .ci/install-prism.sh puts under .cache/npm, or prism on PATH.
func findPrism() string {
	if p := os.Getenv("INTENTSRV_PRISM"); p != "" {
		return p
	}
	local, _ := filepath.Abs(filepath.Join("..", "..", ".cache", "npm", "prism", "node_modules", ".bin", "prism"))
	if _, err := os.Stat(local); err == nil {
		return local
	}
	if p, err := exec.LookPath("prism"); err == nil {
		return p
	}
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrism runs Prism as a validating mock of spec on 127.0.0.1 and
// returns its base URL once it answers.
func startPrism(t *testing.T, prism, spec string) string {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prism, "mock", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--errors", spec)
	logPath := filepath.Join(t.TempDir(), "prism.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prism: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("prism log:\n%s", b)
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/__ready")
		if err == nil {
			resp.Body.Close()
			return base
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("prism did not answer on %s within 90s", base)
	return ""
}

// callOpenAPITool is callTool that also fails when a credential shows up
// anywhere in the result.
func callOpenAPITool(t *testing.T, c *client.Client, name string, args map[string]any) e2eEnvelope {
	t.Helper()
	env := callTool(t, c, name, args)
	b, _ := json.Marshal(env)
	if strings.Contains(string(b), e2eToken) || strings.Contains(string(b), e2eAPIKey) {
		t.Fatalf("%s: a secret leaked into the result: %s", name, b)
	}
	return env
}

func TestE2EOpenAPIAgainstPrism(t *testing.T) {
	if os.Getenv("INTENTSRV_E2E") != "1" {
		t.Skip("set INTENTSRV_E2E=1 (and install Prism with .ci/install-prism.sh) to run")
	}
	prism := findPrism()
	if prism == "" {
		t.Fatal("INTENTSRV_E2E=1 but Prism is not installed: run .ci/install-prism.sh or set INTENTSRV_PRISM")
	}
	spec, err := filepath.Abs(filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := startPrism(t, prism, spec)

	// Prism really validates: no credentials and an out-of-range limit are
	// refused before intentsrv is involved.
	for _, probe := range []struct {
		path, auth string
	}{{"/projects", ""}, {"/projects?limit=1000", "Bearer x"}} {
		req, _ := http.NewRequest("GET", base+probe.path, nil)
		if probe.auth != "" {
			req.Header.Set("Authorization", probe.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode > 499 {
			t.Fatalf("prism accepted an invalid request %s: HTTP %d", probe.path, resp.StatusCode)
		}
	}

	bin := intentsrvBinary(t)
	env := append(os.Environ(), "TRACKER_TOKEN="+e2eToken, "TRACKER_API_KEY="+e2eAPIKey, "INTENTSRV_PLAN_KEY=")
	c, err := client.NewStdioMCPClient(bin, env, "serve",
		"--openapi", "tracker="+spec, "--base-url", base, "--writes", "allow", "--openapi-cache", "off")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "e2e-openapi", Version: "0"},
	}}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 4 {
		t.Fatalf("tools/list has %d tools, want the four intent tools", len(list.Tools))
	}

	steps := []struct {
		name, tool, action string
		params             map[string]any
		want               string // a substring of data
	}{
		{"query array, enum, integer and header", "ask", "tracker.projects.list",
			map[string]any{"status": []any{"active", "paused"}, "limit": 10, "X-Request-Id": "123e4567-e89b-12d3-a456-426614174000"}, `"key"`},
		{"path param and unexploded array", "ask", "tracker.tasks.list",
			map[string]any{"projectId": "prj_1", "labels": []any{"bug", "ui"}, "sort": "priority"}, "["},
		{"path param get", "ask", "tracker.projects.get", map[string]any{"projectId": "prj_42"}, `"name"`},
		{"json body create", "act", "tracker.projects.create",
			map[string]any{"body": map[string]any{"key": "CORE", "name": "Core", "status": "active"}}, `"id"`},
		{"json body with nullable date", "act", "tracker.tasks.create",
			map[string]any{"projectId": "prj_1", "body": map[string]any{"title": "Ship it", "priority": "high", "labels": []any{"release"}, "due": nil}}, `"title"`},
		{"header and patch body", "act", "tracker.tasks.update",
			map[string]any{"projectId": "prj_1", "taskId": 7, "If-Match": `"etag-1"`, "body": map[string]any{"done": true}}, `"done"`},
		{"form body with api key", "act", "tracker.comments.create",
			map[string]any{"projectId": "prj_1", "taskId": 7, "body": map[string]any{"text": "Looks good & ready", "notify": true}}, `"text"`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			env := callOpenAPITool(t, c, s.tool, map[string]any{"action": s.action, "params": s.params})
			if !env.OK {
				t.Fatalf("%s %s: %s (%s) %s", s.tool, s.action, env.Code, env.Error, env.Details)
			}
			if !strings.Contains(string(env.Data), s.want) {
				t.Errorf("data = %s, want it to contain %s", env.Data, s.want)
			}
		})
	}

	t.Run("an HTTP path as the intent", func(t *testing.T) {
		// find lists what lives at a path; ask runs the GET it names.
		env := callOpenAPITool(t, c, "find", map[string]any{"intent": "/projects/{projectId}"})
		if !env.OK || !strings.Contains(string(env.Data), `"id":"tracker.projects.get"`) {
			t.Fatalf("find /projects/{projectId}: %s %s", env.Code, env.Data)
		}
		env = callOpenAPITool(t, c, "ask", map[string]any{"intent": "GET /projects/prj_42", "params": map[string]any{"projectId": "prj_42"}})
		if !env.OK || !strings.Contains(string(env.Data), `"name"`) {
			t.Fatalf("ask GET /projects/prj_42: %s (%s) %s", env.Code, env.Error, env.Data)
		}
	})

	t.Run("destructive previews then runs with plan_ref", func(t *testing.T) {
		args := map[string]any{"action": "tracker.projects.delete", "params": map[string]any{"projectId": "prj_9"}}
		first := callOpenAPITool(t, c, "act", args)
		var holder struct {
			PlanRef string          `json:"plan_ref"`
			Preview json.RawMessage `json:"preview"`
		}
		src := first.Details
		if first.OK {
			src = first.Data
		}
		if err := json.Unmarshal(src, &holder); err != nil || holder.PlanRef == "" {
			t.Fatalf("no plan_ref in first act: %+v", first)
		}
		if !strings.Contains(string(holder.Preview), `"DELETE"`) || !strings.Contains(string(holder.Preview), "/projects/prj_9") {
			t.Errorf("preview = %s", holder.Preview)
		}
		args["plan_ref"] = holder.PlanRef
		second := callOpenAPITool(t, c, "act", args)
		if !second.OK {
			t.Fatalf("confirmed delete: %s (%s) %s", second.Code, second.Error, second.Details)
		}
	})
}
