package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestProbeConcurrentCutsRSS measures the real path of issue #10 item 5:
// the intentsrv binary serving an OpenAPI source over stdio, whose loopback
// upstream answers every call with one large JSON array, and eight ask
// calls in flight at once, each cut to the default token budget. It logs
// each call's outcome and time and the server process's peak RSS. It is a
// measurement, not a check, and runs only when INTENTSRV_RSS_PROBE is set:
//
//	INTENTSRV_RSS_PROBE=1 go test ./cmd/intentsrv -run ProbeConcurrentCutsRSS -v
//
// INTENTSRV_RSS_PROBE_MB sets the answer's size (default 7.5) and
// INTENTSRV_RSS_PROBE_CALLS the number of calls (default 8).
func TestProbeConcurrentCutsRSS(t *testing.T) {
	if os.Getenv("INTENTSRV_RSS_PROBE") == "" {
		t.Skip("a measurement; set INTENTSRV_RSS_PROBE=1 to run it")
	}
	mb, calls := 7.5, 8
	if v, err := strconv.ParseFloat(os.Getenv("INTENTSRV_RSS_PROBE_MB"), 64); err == nil {
		mb = v
	}
	if v, err := strconv.Atoi(os.Getenv("INTENTSRV_RSS_PROBE_CALLS")); err == nil {
		calls = v
	}
	// The large answer, and a small one (a page of about 5,000 tokens,
	// given for ?limit=) whose call loads the tokenizer before the measure.
	answer, small := pageOfRecords(int(mb*(1<<20))), pageOfRecords(20<<10)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := answer
		if r.URL.Query().Has("limit") {
			body = small
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer upstream.Close()
	spec := filepath.Join(t.TempDir(), "records.json")
	if err := os.WriteFile(spec, []byte(recordsSpec), 0o600); err != nil {
		t.Fatal(err)
	}

	var server *exec.Cmd
	tr := transport.NewStdioWithOptions(intentsrvBinary(t), append(os.Environ(), "INTENTSRV_PLAN_KEY="),
		[]string{"serve", "--openapi", "records=" + spec, "--base-url", upstream.URL, "--openapi-cache", "off", "--log-level", "warn"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			server = exec.CommandContext(ctx, command, args...)
			server.Env = env
			return server, nil
		}))
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "rss-probe", Version: "0"},
	}}); err != nil {
		t.Fatal(err)
	}
	idle := procStatusKB(t, server.Process.Pid, "VmRSS")
	var warmUp mcp.CallToolRequest
	warmUp.Params.Name = "ask"
	warmUp.Params.Arguments = map[string]any{"action": "records.records.list", "params": map[string]any{"limit": 100}}
	if res, err := c.CallTool(ctx, warmUp); err != nil || res.IsError {
		t.Fatalf("warm-up call: %v %+v", err, res)
	}
	warm := procStatusKB(t, server.Process.Pid, "VmRSS")

	type outcome struct {
		elapsed time.Duration
		summary string
	}
	outcomes := make([]outcome, calls)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var req mcp.CallToolRequest
			req.Params.Name = "ask"
			req.Params.Arguments = map[string]any{"action": "records.records.list"}
			t0 := time.Now()
			res, err := c.CallTool(ctx, req)
			outcomes[i].elapsed = time.Since(t0)
			switch {
			case err != nil:
				outcomes[i].summary = "error: " + err.Error()
			default:
				text := ""
				if len(res.Content) > 0 {
					if tc, ok := res.Content[0].(mcp.TextContent); ok {
						text = tc.Text
					}
				}
				outcomes[i].summary = fmt.Sprintf("isError=%v truncated=%v %d bytes", res.IsError, strings.Contains(text, `"truncated":true`), len(text))
				if res.IsError {
					outcomes[i].summary += ": " + clip(text, 200)
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	peak := procStatusKB(t, server.Process.Pid, "VmHWM")
	for i, o := range outcomes {
		t.Logf("call %d: %s in %s", i, o.summary, o.elapsed.Round(time.Millisecond))
	}
	t.Logf("%d concurrent calls, %d-byte answers: all answered in %s; server RSS %.1f MiB idle, %.1f MiB with the tokenizer loaded, peak %.1f MiB: %.1f MiB over the loaded server = %.2f x the %d answers' bytes",
		calls, len(answer), wall.Round(time.Millisecond), float64(idle)/1024, float64(warm)/1024, float64(peak)/1024, float64(peak-warm)/1024,
		float64(peak-warm)*1024/float64(calls*len(answer)), calls)
}

// recordsSpec is an OpenAPI document with one list operation.
const recordsSpec = `{"openapi":"3.0.3","info":{"title":"Records","version":"1"},
"paths":{"/records":{"get":{"operationId":"records.list","summary":"List records",
"parameters":[{"name":"limit","in":"query","schema":{"type":"integer","minimum":1}}],
"responses":{"200":{"description":"the records","content":{"application/json":{"schema":{"type":"array","items":{"type":"object"}}}}}}}}}}`

// pageOfRecords is a JSON array of records, at least size bytes.
func pageOfRecords(size int) []byte {
	var b strings.Builder
	b.Grow(size + 1024)
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"record %d","owner":{"login":"owner%d","id":%d},"status":"active","tags":["alpha","beta"],"note":"a short note about record %d that says what it holds and why it matters"}`, i, i, i%50, i%50, i)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// procStatusKB reads a kB field of /proc/PID/status (VmRSS, VmHWM).
func procStatusKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
